// Chromium only, by design: Local Network Access is Chromium's; Firefox and WebKit have no such
// permission, and the element tests there (test/elements/*.browser.test.ts) show them unchanged.
/**
 * Chromium's real Local Network Access check (docs/cms.md, docs/testing.md): the page is served as
 * http://public.test (mapped to 127.0.0.1, treated as a secure context, and placed in the public
 * address space by --ip-address-space-overrides); the local service and the middleware listen on
 * 127.0.0.1, the loopback address space. Chromium then applies its `loopback-network` permission to
 * each request, and CDP sets that permission as a user would answer the browser's question.
 */
import { assert } from 'chai';
import { build } from 'esbuild';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CHROMIUM_ARGS, chromiumLaunch } from '../../scripts/browsers.mjs';

const path = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url));
const PERMISSIONS = ['loopback-network', 'local-network-access'];

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const listen = async (handler: Handler): Promise<{ server: Server; port: number }> => {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
};

describe('Local Network Access in Chromium (a public page, the local service on loopback)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let page: Page;
  let pageServer: Server;
  let loopback: Server;
  let origin: string;
  let local: string;
  /** /status requests that reached the local service. */
  let statusHits = 0;
  /** /status requests the page started, whether or not Chromium let them through. */
  let statusAttempts = 0;

  before(async () => {
    const script = (
      await build({
        entryPoints: [path('src/bundle.ts')],
        bundle: true,
        format: 'iife',
        target: 'es2022',
        write: false,
        tsconfig: path('tsconfig.json'),
        ignoreAnnotations: true,
        logLevel: 'silent',
      })
    ).outputFiles[0]!.text;
    // The local service and the middleware, on loopback, answering any origin (CORS).
    const service = await listen((req, res) => {
      const cors = {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Headers': String(req.headers['access-control-request-headers'] ?? ''),
        'Access-Control-Allow-Methods': 'GET, POST',
      };
      if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
      const send = (body: unknown) => res.writeHead(200, { ...cors, 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/status') {
        statusHits += 1;
        return send({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: true }] });
      }
      if (req.url === '/orchestrator/verify') return send({ subjectId: 'alice', match: true, score: 0.97, verificationId: 'ver-1' });
      res.writeHead(404, cors).end();
    });
    loopback = service.server;
    local = `http://127.0.0.1:${service.port}`;
    const site = await listen((req, res) => {
      if (req.url === '/token')
        return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"access_token":"t-1","expires_in":300}');
      if (req.url === '/sdk.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><body></body>');
    });
    pageServer = site.server;
    origin = `http://public.test:${site.port}`;
    browser = await puppeteer.launch({
      ...chromiumLaunch(),
      args: [
        ...CHROMIUM_ARGS,
        '--host-resolver-rules=MAP public.test 127.0.0.1',
        `--unsafely-treat-insecure-origin-as-secure=${origin}`,
        `--ip-address-space-overrides=127.0.0.1:${site.port}=public`,
        '--enable-features=LocalNetworkAccessChecks',
      ],
    });
  });

  after(async () => {
    await browser?.close();
    pageServer?.close();
    loopback?.close();
  });

  /** A fresh page at `origin` with the permission set as the user left it, the SDK loaded and `markup` in the body. */
  async function open(setting: 'granted' | 'denied' | 'prompt', markup: string, init?: () => void): Promise<void> {
    await page?.close();
    statusHits = statusAttempts = 0;
    page = await browser.newPage();
    const cdp = await page.createCDPSession();
    for (const name of PERMISSIONS) await cdp.send('Browser.setPermission', { origin, permission: { name }, setting });
    await cdp.send('Network.enable');
    cdp.on('Network.requestWillBeSent', (e: { request: { url: string } }) => {
      if (e.request.url === `${local}/status`) statusAttempts += 1;
    });
    if (init) await page.evaluateOnNewDocument(init);
    await page.goto(`${origin}/`);
    await page.evaluate(
      (html: string) => {
        (window as { errors?: unknown[] }).errors = [];
        document.addEventListener('bio-error', (e) => (window as unknown as { errors: unknown[] }).errors.push((e as CustomEvent).detail));
        document.body.innerHTML = html;
      },
      markup.replaceAll('LOCAL', local),
    );
    await page.addScriptTag({ url: '/sdk.js' });
  }

  const stateOf = (selector = 'bio-reader-status') =>
    page.evaluate((s: string) => (document.querySelector(s) as unknown as { status?: { state: string } }).status?.state, selector);
  const waitForState = (state: string, selector = 'bio-reader-status') =>
    page.waitForFunction(
      (s: string, want: string) => (document.querySelector(s) as unknown as { status?: { state: string } } | null)?.status?.state === want,
      {},
      selector,
      state,
    );
  const shadowText = (selector: string) =>
    page.evaluate((s: string) => document.querySelector(s)!.shadowRoot!.textContent!.replace(/\s+/g, ' '), selector);
  const clickIn = (host: string, part: string) =>
    page.evaluate(
      (h: string, p: string) => (document.querySelector(h)!.shadowRoot!.querySelector(`[part="${p}"]`) as HTMLElement).click(),
      host,
      part,
    );
  const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

  it('granted: the local service is polled from the first render, as in browsers without the permission', async () => {
    await open('granted', '<bio-reader-status local-service-url="LOCAL"></bio-reader-status>');
    await waitForState('ready');
    assert.isAbove(statusHits, 0);
  });

  it('while the loopback permission is prompt, no request reaches the local service before a click', async () => {
    await open('prompt', '<bio-reader-status local-service-url="LOCAL"></bio-reader-status>');
    await waitForState('prompt');
    await settle();
    assert.strictEqual(statusAttempts, 0, 'no /status request started before the click');
    assert.include(await shadowText('bio-reader-status'), 'Connect to this computer’s reader');
    // The user's click starts the request; headless Chromium answers its question with no, so it fails.
    await clickIn('bio-reader-status', 'connect');
    await settle();
    assert.isAbove(statusAttempts, 0, 'the click started a /status request');
    assert.strictEqual(statusHits, 0, 'which Chromium held back: nobody said yes');
    assert.notStrictEqual(await stateOf(), 'prompt');
  });

  it('while prompt, a first verify click completes in one click (the user allows the request it starts)', async () => {
    // Chromium reports the state the user has not answered yet; CDP gives the answer the user gives.
    await open(
      'granted',
      `<bio-verify middleware-url="LOCAL" token-endpoint="/token" local-service-url="LOCAL" subject-id="alice" integrator-id="acme"></bio-verify>
       <bio-reader-status local-service-url="LOCAL"></bio-reader-status>`,
      () => {
        const query = navigator.permissions.query.bind(navigator.permissions);
        navigator.permissions.query = async (descriptor) => {
          const real = await query(descriptor);
          return Object.defineProperty(real, 'state', { value: 'prompt' });
        };
      },
    );
    await waitForState('prompt');
    await settle();
    assert.strictEqual(statusAttempts, 0, 'nothing asked on load');
    const result = page.evaluate(
      () =>
        new Promise((resolve) => document.addEventListener('bio-result', (e) => resolve((e as CustomEvent).detail.result), { once: true })),
    );
    await clickIn('bio-verify', 'button');
    assert.deepInclude(await result, { match: true, verificationId: 'ver-1' });
    await waitForState('ready'); // the click let the status element poll too
  });

  it('denied: the blocked state, in four languages, with bio-error code local-network-blocked, and no request', async () => {
    const langs = ['en', 'de', 'fr', 'es'];
    await open(
      'denied',
      langs.map((lang) => `<bio-reader-status id="s-${lang}" lang="${lang}" local-service-url="LOCAL"></bio-reader-status>`).join('') +
        '<bio-verify middleware-url="LOCAL" token-endpoint="/token" local-service-url="LOCAL" subject-id="alice" integrator-id="acme"></bio-verify>',
    );
    for (const lang of langs) await waitForState('blocked', `#s-${lang}`);
    const texts = Object.fromEntries(await Promise.all(langs.map(async (lang) => [lang, await shadowText(`#s-${lang}`)])));
    assert.include(texts.en, 'The browser blocks this site from reaching the fingerprint service on this computer.');
    assert.include(texts.en, 'site settings');
    assert.include(texts.de, 'Der Browser sperrt den Zugriff dieser Website');
    assert.include(texts.de, 'Website-Einstellungen');
    assert.include(texts.fr, 'Le navigateur empêche ce site');
    assert.include(texts.fr, 'paramètres du site');
    assert.include(texts.es, 'El navegador impide que este sitio');
    assert.include(texts.es, 'configuración del sitio');
    await clickIn('bio-verify', 'button');
    await page.waitForFunction(() => (window as unknown as { errors: unknown[] }).errors.length === 5);
    const errors = await page.evaluate(() => (window as unknown as { errors: { operation: string; code: string }[] }).errors);
    assert.deepEqual(
      errors.map((e) => [e.operation, e.code]),
      [...langs.map(() => ['status', 'local-network-blocked']), ['verify', 'local-network-blocked']],
    );
    assert.strictEqual(statusAttempts, 0, 'no /status request, not even for the verify click');
  });

  it('prompt: a verify click the user blocks at the question it made the browser put fails with local-network-blocked, not local-service-unreachable', async () => {
    // As in the diagnostics case below: the page reads 'prompt' once, then Chromium blocks as after "Block".
    await open(
      'denied',
      '<bio-verify middleware-url="LOCAL" token-endpoint="/token" local-service-url="LOCAL" subject-id="alice" integrator-id="acme"></bio-verify>',
      () => {
        const query = navigator.permissions.query.bind(navigator.permissions);
        let reads = 0;
        navigator.permissions.query = async (descriptor) => {
          const real = await query(descriptor);
          return reads++ === 0 ? Object.defineProperty(real, 'state', { value: 'prompt' }) : real;
        };
      },
    );
    await clickIn('bio-verify', 'button');
    await page.waitForFunction(() => (window as unknown as { errors: unknown[] }).errors.length === 1);
    const errors = await page.evaluate(() => (window as unknown as { errors: { operation: string; code: string }[] }).errors);
    assert.deepEqual(
      errors.map((e) => [e.operation, e.code]),
      [['verify', 'local-network-blocked']],
    );
    assert.include(await shadowText('bio-verify'), 'The browser blocks this site');
    assert.isAbove(statusAttempts, 0, 'the click asked, the permission being prompt');
    assert.strictEqual(statusHits, 0);
  });

  it('denied: <bio-diagnostics> reports the local service blocked, with its code, and sends nothing there', async () => {
    await open('denied', '<bio-diagnostics local-service-url="LOCAL"></bio-diagnostics>');
    await page.waitForFunction(() =>
      /local-service: blocked/.test((document.querySelector('bio-diagnostics') as unknown as { report: string }).report),
    );
    const report = await page.evaluate(() => (document.querySelector('bio-diagnostics') as unknown as { report: string }).report);
    assert.match(report, /local-service: blocked local-network-blocked/);
    assert.strictEqual(statusAttempts, 0);
  });

  it('prompt: <bio-diagnostics> asks; blocked at the question the browser then puts, its row says blocked with its code, not unreachable', async () => {
    // Chromium blocks the request as after the user's "Block"; the page read 'prompt' before it went out.
    await open('denied', '<bio-diagnostics local-service-url="LOCAL"></bio-diagnostics>', () => {
      const query = navigator.permissions.query.bind(navigator.permissions);
      let reads = 0;
      navigator.permissions.query = async (descriptor) => {
        const real = await query(descriptor);
        return reads++ === 0 ? Object.defineProperty(real, 'state', { value: 'prompt' }) : real;
      };
    });
    await page.waitForFunction(() =>
      /local-service: (?!checking)/.test((document.querySelector('bio-diagnostics') as unknown as { report: string }).report),
    );
    const report = await page.evaluate(() => (document.querySelector('bio-diagnostics') as unknown as { report: string }).report);
    assert.match(report, /local-service: blocked local-network-blocked/);
    assert.isAbove(statusAttempts, 0, 'it asked, the permission being prompt');
    assert.strictEqual(statusHits, 0);
  });

  it('follows the permission: allowed in the site settings, the blocked elements recover without a reload', async () => {
    await open(
      'denied',
      `<bio-reader-status local-service-url="LOCAL"></bio-reader-status>
       <bio-verify middleware-url="LOCAL" token-endpoint="/token" local-service-url="LOCAL" subject-id="alice" integrator-id="acme"></bio-verify>`,
    );
    await waitForState('blocked');
    await clickIn('bio-verify', 'button');
    await page.waitForFunction(() => (window as unknown as { errors: unknown[] }).errors.length === 2);
    assert.include(await shadowText('bio-verify'), 'The browser blocks this site');
    const cdp = await page.createCDPSession();
    for (const name of PERMISSIONS) await cdp.send('Browser.setPermission', { origin, permission: { name }, setting: 'granted' });
    await waitForState('ready');
    assert.isAbove(statusHits, 0);
    // The verify element's failure was about the reader: it clears once the status watch reports it ready.
    await page.waitForFunction(() => !/blocks this site/.test(document.querySelector('bio-verify')!.shadowRoot!.textContent!));
  });

  it('a browser that does not know the permission names polls on load, as today', async () => {
    await open('prompt', '<bio-reader-status local-service-url="LOCAL"></bio-reader-status>', () => {
      navigator.permissions.query = () => Promise.reject(new TypeError('not a valid enum value'));
    });
    await settle();
    assert.isAbove(statusAttempts, 0, 'asked at once');
  });
});
