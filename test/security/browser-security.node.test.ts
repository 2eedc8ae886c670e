/**
 * Chromium only, by design: it reads Chromium's own console lines (the network error of a deliberate 500,
 * CSP and Trusted Types messages over CDP), which WebDriver BiDi and WebDriver classic do not report.
 * Browser security of the built bundle, in real Chromium through test/support/engines.ts:
 *  - a page with a strict Content-Security-Policy (no unsafe-inline, no unsafe-eval, Trusted Types
 *    required for scripts) runs every element of dist/bioid-elements.js, and an operation of each,
 *    without a single `securitypolicyviolation` event, violation report or console error;
 *  - markup in strings from the middleware and the local service stays text (no element, no script);
 *  - the token lives in memory only: not in storage, cookies, the DOM (shadow roots included),
 *    attributes, event details or console output;
 *  - the client-secret path of the core is closed in a browser without dangerouslyAllowBrowser, and
 *    the bundle builds `client_secret` in exactly one place.
 * One tiny node:http server on 127.0.0.1 port 0 serves the page, the bundle, and fakes of the token
 * broker, the middleware and the local service (same origin, so `default-src 'self'` covers them).
 * Needs `npm run build` first (npm test builds).
 */
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launch, type Browser, type Context, type Page } from '../support/engines.js';
import { runOperation } from '../e2e/operations.js';

const BUNDLE = readFileSync(new URL('../../dist/bioid-elements.js', import.meta.url), 'utf8');
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjc3AtdGVzdCJ9.CSPTOKENdeadbeef';
const TOKEN_MARK = 'CSPTOKENdeadbeef';
const SECRET = 'browser-SECRET-0xfeed';
/** Markup a hostile middleware or local service could send; it would call window.__pwned if it ever ran. */
const IMG = '<img src=x onerror="window.__pwned.push(\'img\')">';
const SCRIPT = '<script>window.__pwned.push("script")</script>';
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; require-trusted-types-for 'script'; report-uri /csp-report";

const ATTRS = 'middleware-url="/mw" token-endpoint="/token" local-service-url="/local" integrator-id="acme"';
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CSP</title>
<script src="/page.js"></script>
<script src="/bioid-elements.js"></script>
</head><body>
<bio-reader-status ${ATTRS}></bio-reader-status>
<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>
<bio-verify ${ATTRS} subject-id="alice" client-secret="${SECRET}"></bio-verify>
<bio-verify id="failing" ${ATTRS} subject-id="mallory"></bio-verify>
<bio-search ${ATTRS}></bio-search>
</body></html>`;

/** The page's own script (external, as the CSP demands): records violations, events and console output. */
const PAGE_JS = `
window.__pwned = [];
window.__violations = [];
window.__events = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''));
});
for (const type of ['bio-start', 'bio-progress', 'bio-result', 'bio-error', 'bio-status']) {
  document.addEventListener(type, (e) => window.__events.push({ type, tag: e.target.localName, detail: JSON.parse(JSON.stringify(e.detail)) }));
}
window.__dump = () => {
  const parts = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      for (const a of el.getAttributeNames()) parts.push(a + '=' + el.getAttribute(a));
      if (el.shadowRoot) { parts.push(el.shadowRoot.innerHTML); walk(el.shadowRoot); }
    }
  };
  parts.push(document.documentElement.outerHTML);
  walk(document);
  return parts.join('\\n');
};
window.__storage = (s) => Object.keys(s).map((k) => k + '=' + s.getItem(k)).join(';');
window.__activeInShadow = () => {
  let n = 0;
  for (const el of document.querySelectorAll('*')) {
    // The fingerprint glyph the operation elements draw themselves (the first child of their base) is not counted.
    if (el.shadowRoot) n += el.shadowRoot.querySelectorAll('img, script, iframe, object, embed, svg:not([part="base"] > svg[part="glyph"]:first-child), a').length;
  }
  return n;
};
`;

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

function startServer(recorded: Recorded[], reports: string[]) {
  const reply = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
    res.end(body);
  };
  const json = (res: ServerResponse, status: number, body: unknown) => reply(res, status, 'application/json', JSON.stringify(body));
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      recorded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (path === '/')
        return reply(res, 200, 'text/html; charset=utf-8', PAGE, {
          'Content-Security-Policy': CSP,
          'Set-Cookie': 'sid=session-1; HttpOnly; SameSite=Lax; Path=/',
        });
      if (path === '/page.js') return reply(res, 200, 'text/javascript', PAGE_JS);
      if (path === '/bioid-elements.js') return reply(res, 200, 'text/javascript', BUNDLE);
      if (path === '/favicon.ico') return reply(res, 204, 'image/x-icon', '');
      if (path === '/csp-report') {
        reports.push(body);
        return reply(res, 204, 'text/plain', '');
      }
      if (path === '/token') {
        if (req.headers['x-csrf'] !== '1') return json(res, 403, { error: 'csrf' });
        return json(res, 200, { access_token: TOKEN, expires_in: 300 });
      }
      if (path === '/local/status') {
        return json(res, 200, { workstationId: `ws-${IMG}`, devices: [{ deviceId: `dev-${SCRIPT}`, model: IMG, connected: true }] });
      }
      if (path.startsWith('/mw/')) {
        if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, 401, { error: 'invalid_token' });
        const sent = body ? (JSON.parse(body) as { subjectId?: string }) : {};
        if (sent.subjectId === 'mallory') return json(res, 500, { error: `${IMG}${SCRIPT} internal` });
        if (path === '/mw/orchestrator/enroll')
          return json(res, 200, { subjectId: `${sent.subjectId}${IMG}`, enrollmentId: SCRIPT, quality: 90 });
        if (path === '/mw/orchestrator/verify')
          return json(res, 200, { subjectId: sent.subjectId, match: true, score: 0.93, verificationId: `ver-${IMG}` });
        if (path === '/mw/orchestrator/search') {
          return json(res, 200, {
            candidates: [
              { subjectId: IMG, score: 0.9 },
              { subjectId: SCRIPT, score: 0.5 },
            ],
            searchId: 's-1',
          });
        }
      }
      if (path.startsWith('/idp')) return json(res, 200, { access_token: 'idp-token', expires_in: 60 });
      return reply(res, 404, 'text/plain', 'not found');
    });
  });
  return new Promise<{ url: string; close(): Promise<void> }>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

const operate = runOperation;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('browser security of dist/bioid-elements.js (strict CSP, inert markup, tokens in memory, no secret path)', function () {
  this.timeout(120_000);
  let browser: Browser;
  let server: { url: string; close(): Promise<void> };
  const recorded: Recorded[] = [];
  const reports: string[] = [];
  let context: Context;
  let page: Page;
  const consoleLines = () => page.consoleMessages.filter((m) => m.type !== 'pageerror').map((m) => `${m.type}: ${m.text}`);
  const pageErrors = () => page.consoleMessages.filter((m) => m.type === 'pageerror').map((m) => m.text);

  before(async () => {
    server = await startServer(recorded, reports);
    browser = await launch('chromium');
    context = await browser.newContext();
    page = await context.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => ['bio-enroll', 'bio-verify', 'bio-search', 'bio-reader-status'].every((t) => customElements.get(t)));
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await server?.close();
  });

  it("CSP: every element renders and runs an operation under script-src/style-src 'self' and require-trusted-types-for 'script' without a violation", async () => {
    await page.waitForFunction(() =>
      (window as unknown as { __events: { type: string; detail: { state?: string } }[] }).__events.some(
        (e) => e.type === 'bio-status' && e.detail.state === 'ready',
      ),
    );
    assert.match(await page.text('bio-reader-status >>> [part="state"]'), /ready|Ready/i);

    const enrolled = await operate(page, 'bio-enroll');
    assert.strictEqual(enrolled.type, 'bio-result', JSON.stringify(enrolled.detail));
    const verified = await operate(page, 'bio-verify:not(#failing)');
    assert.strictEqual(verified.type, 'bio-result', JSON.stringify(verified.detail));
    const searched = await operate(page, 'bio-search');
    assert.strictEqual(searched.type, 'bio-result', JSON.stringify(searched.detail));
    const failed = await operate(page, '#failing');
    assert.strictEqual(failed.type, 'bio-error');
    assert.strictEqual(failed.detail.code, 'middleware');

    // The elements really styled themselves (adopted stylesheets, allowed under style-src 'self').
    const styled = await page.evaluate(() => document.querySelector('bio-verify')!.shadowRoot!.adoptedStyleSheets.length);
    assert.ok(styled > 0, 'adopted stylesheets in use');
    await pause(300); // violation reports are sent asynchronously
    const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
    assert.deepStrictEqual(violations, [], 'securitypolicyviolation events');
    assert.deepStrictEqual(reports, [], 'CSP violation reports');
    // Chromium logs the deliberate 500 of #failing as a failed resource load; nothing else may be logged as an error.
    const expected500 = 'error: Failed to load resource: the server responded with a status of 500 (Internal Server Error)';
    assert.deepStrictEqual(
      consoleLines().filter((l) => (/^error/.test(l) && l !== expected500) || /Content Security Policy|Trusted Type/i.test(l)),
      [],
      'console errors',
    );
    assert.strictEqual(consoleLines().filter((l) => l === expected500).length, 1);
    assert.deepStrictEqual(pageErrors(), [], 'uncaught page errors');
  });

  it('markup from the middleware and the local service (subject ids, ids, messages) is rendered as text: no element created, no script run', async () => {
    const pwned = await page.evaluate(() => (window as unknown as { __pwned: string[] }).__pwned);
    assert.deepStrictEqual(pwned, []);
    assert.strictEqual(await page.evaluate(() => (window as unknown as { __activeInShadow(): number }).__activeInShadow()), 0);
    // The markup is there, as text.
    assert.match(await page.text('bio-search >>> [part="results"]'), /<img src=x onerror=/);
    assert.match(await page.text('bio-search >>> [part="results"]'), /<script>window.__pwned/);
    assert.match(await page.text('bio-reader-status >>> [part="details"]'), /ws-<img src=x/);
    // A server's text never reaches an operation card (docs/elements.md): the card says the problem in words.
    assert.match(await page.text('#failing >>> [part="error"]'), /fingerprint service could not do this/);
    assert.notMatch(await page.text('#failing >>> [part="error"]'), /<img|onerror/);
  });

  it('tokens live in memory only: not in localStorage, sessionStorage, cookies, the DOM with shadow roots, attributes, event details or the console', async () => {
    // The token was used: the middleware saw it as the bearer.
    assert.ok(recorded.some((r) => r.url.startsWith('/mw/') && r.headers.authorization === `Bearer ${TOKEN}`));
    const seen = await page.evaluate(() => {
      const w = window as unknown as { __dump(): string; __events: unknown[]; __storage(s: Storage): string };
      return {
        localStorage: w.__storage(localStorage),
        sessionStorage: w.__storage(sessionStorage),
        cookie: document.cookie,
        dom: w.__dump(),
        events: JSON.stringify(w.__events),
        eventCount: w.__events.length,
      };
    });
    assert.ok(seen.eventCount >= 8, 'events were recorded');
    for (const [where, text] of Object.entries(seen)) {
      assert.ok(!String(text).includes(TOKEN_MARK), `the token is in ${where}`);
    }
    assert.ok(!consoleLines().join('\n').includes(TOKEN_MARK), 'the token is in the console output');
    const cookies = await context.cookies(server.url);
    assert.deepStrictEqual(
      cookies.map((c) => c.name),
      ['sid'],
      'the SDK sets no cookie',
    );
    assert.ok(!JSON.stringify(cookies).includes(TOKEN_MARK));
    const cached = await page.evaluate(async (): Promise<number> => ('caches' in window ? (await window.caches.keys()).length : 0));
    assert.strictEqual(cached, 0, 'nothing in Cache Storage');
  });

  it('no client secret leaves the browser: BioID with idpClientCredentials throws in the page and no token endpoint is called; a client-secret attribute goes nowhere', async () => {
    const before = recorded.length;
    const outcome = await page.evaluate(
      ({ secret }) => {
        const sdk = (window as unknown as { BioIDSDK: { BioID: new (c: unknown) => unknown } }).BioIDSDK;
        const results: { code?: unknown; message: string; threw: boolean }[] = [];
        for (const dangerouslyAllowBrowser of [undefined, false, 'true', 1]) {
          try {
            new sdk.BioID({
              middlewareUrl: `${location.origin}/mw`,
              integratorId: 'acme',
              auth: {
                type: 'idpClientCredentials',
                clientId: 'acme',
                clientSecret: secret,
                issuerUrl: `${location.origin}/idp`,
                realm: 'r',
                dangerouslyAllowBrowser,
              },
            });
            results.push({ threw: false, message: '' });
          } catch (e) {
            results.push({ threw: true, code: (e as { code?: unknown }).code, message: String((e as Error).message) });
          }
        }
        return results;
      },
      { secret: SECRET },
    );
    for (const result of outcome) {
      assert.strictEqual(result.threw, true, 'constructing must throw without dangerouslyAllowBrowser: true');
      assert.strictEqual(result.code, 'config');
      assert.match(result.message, /must not run in a browser/);
      assert.ok(!result.message.includes(SECRET));
    }
    await pause(100);
    const after = recorded.slice(before);
    assert.deepStrictEqual(
      after.filter((r) => r.url.startsWith('/idp')),
      [],
      'no request to a token endpoint',
    );
    assert.ok(!recorded.some((r) => r.url.startsWith('/idp')));
    // Nothing ever sent carries the secret (the client-secret attribute on a bio-verify is ignored).
    const everything = recorded.map((r) => `${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`).join('\n');
    assert.ok(!everything.includes(SECRET), 'a request carried the secret');
    assert.ok(!everything.includes('client_secret'));
  });

  it('static: the bundle builds client_secret in exactly one place (the core exchange form), guarded by dangerouslyAllowBrowser', () => {
    const mentions = BUNDLE.match(/client_secret/g) ?? [];
    // 1: core/exchange.ts clientCredentialsForm; 2: core/errors.ts scrubServerText's redaction pattern;
    // 3: core/exchange.ts reading the value back to scrub it from the identity provider's answer.
    assert.strictEqual(mentions.length, 3, `client_secret occurs ${mentions.length} times: a new code path would send a secret`);
    assert.strictEqual((BUNDLE.match(/\.get\("client_secret"\)/g) ?? []).length, 1, 'the one read, for scrubbing');
    assert.strictEqual((BUNDLE.match(/client_secret:/g) ?? []).length, 1, 'one form field client_secret');
    assert.strictEqual((BUNDLE.match(/\|client_secret\)/g) ?? []).length, 1, 'the redaction pattern');
    assert.strictEqual((BUNDLE.match(/clientSecret/g) ?? []).length >= 1, true);
    assert.ok(BUNDLE.includes('dangerouslyAllowBrowser'), 'the browser guard is in the bundle');
    // The RFC 8693 exchange (server only) is not in the browser bundle.
    assert.ok(!BUNDLE.includes('token-exchange'), 'no token-exchange grant in the browser bundle');
  });
});
