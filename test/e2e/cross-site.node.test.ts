/**
 * Cross-site, said plainly (docs/broker-contract.md rule 5), in Chromium, Firefox and WebKit through
 * test/support/engines.ts: a page on `localhost` whose token broker is on `127.0.0.1` (another site) while
 * the user is signed in there. The browser withholds the broker's SameSite=Lax session cookie from the
 * page's cross-site fetch; the broker, seeing `Sec-Fetch-Site: cross-site` and no Cookie, answers 401
 * `{ error, reason: "no-cookie" }`, and the elements fail with `cookie-blocked` and a message that names
 * the fix, where they used to say "Your session has ended". `<bio-diagnostics>` on that page reads the
 * token broker as blocked. The same page served from the broker's own site gets its token.
 * Framed by another site (docs/cms.md, "Framed by another site"): a portal on `localhost` frames the widget
 * page on `127.0.0.1`, whose broker is on its own origin. The browser withholds the session cookie from the
 * frame's requests and the broker, asked same-origin, can only say "no session"; the element says the cookie
 * was withheld (`cookie-blocked`), offers the page in a new tab, and where the browser has the Storage Access
 * API asks for it on a click and runs again. It never shows a sign-in link, which would lead back to the same
 * refusal.
 * One node:http server on 127.0.0.1 port 0 is every party: the page (reached as localhost or as
 * 127.0.0.1), the broker (with the minimal rule of docs/broker-contract.md and CORS for both page origins), and a
 * fake middleware. Needs `npm run build` first (npm test builds).
 */
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENGINE_NAMES, launch, selectedEngines, type Browser, type Page } from '../support/engines.js';
import { runOperation } from './operations.js';

const BUNDLE = readFileSync(new URL('../../dist/bioid-elements.js', import.meta.url), 'utf8');
/** The file the script loads for <bio-diagnostics>, served beside it. */
const DIAGNOSTICS = readFileSync(new URL('../../dist/bioid-diagnostics.js', import.meta.url), 'utf8');
const TOKEN = 'cross-site-token-0123456789';
const SESSION = 'sid=signed-in-user';

interface Party {
  port: number;
  brokerCalls: { site: string | undefined; cookie: string | undefined }[];
  close(): Promise<void>;
}

function page(port: number): string {
  const attrs = `token-endpoint="http://127.0.0.1:${port}/token" middleware-url="http://127.0.0.1:${port}/mw" workstation-id="ws-1" device-id="dev-1"`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CMS page</title>
<script src="/bioid-elements.js"></script></head><body>
<bio-verify ${attrs} subject-id="alice"></bio-verify>
<bio-diagnostics ${attrs} local-service-url="http://127.0.0.1:${port}/local"></bio-diagnostics>
</body></html>`;
}

/** The widget's own page (on 127.0.0.1): everything on its origin, and a login-url that must not be offered in a frame. */
const widget = () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Widget</title>
<script src="/bioid-elements.js"></script></head><body>
<bio-verify token-endpoint="/token" middleware-url="/mw" workstation-id="ws-1" device-id="dev-1" subject-id="alice" login-url="/signin"></bio-verify>
</body></html>`;

/** A portal on another site (localhost) framing the widget, with the storage-access permission the docs ask for. */
const portal = (port: number) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portal</title></head><body>
<iframe src="http://127.0.0.1:${port}/widget" allow="storage-access" style="width: 640px; height: 480px"></iframe>
</body></html>`;

async function startParty(): Promise<Party> {
  const brokerCalls: Party['brokerCalls'] = [];
  let port = 0;
  const pageOrigins = () => [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
  const send = (res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
    res.end(body);
  };
  const cors = (req: IncomingMessage): Record<string, string> => {
    const origin = req.headers.origin;
    return origin && pageOrigins().includes(origin)
      ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin' }
      : { Vary: 'Origin' };
  };
  const json = (req: IncomingMessage, res: ServerResponse, status: number, body: unknown) =>
    send(res, status, 'application/json', JSON.stringify(body), cors(req));

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'OPTIONS') {
      return send(res, 204, 'text/plain', '', {
        ...cors(req),
        'Access-Control-Allow-Methods': 'GET, POST',
        'Access-Control-Allow-Headers': 'X-CSRF, Authorization, Content-Type, Accept, X-Integrator-Id',
      });
    }
    if (path === '/page') return send(res, 200, 'text/html; charset=utf-8', page(port));
    if (path === '/widget') return send(res, 200, 'text/html; charset=utf-8', widget());
    if (path === '/portal') return send(res, 200, 'text/html; charset=utf-8', portal(port));
    if (path === '/bioid-elements.js') return send(res, 200, 'text/javascript', BUNDLE);
    if (path === '/bioid-diagnostics.js') return send(res, 200, 'text/javascript', DIAGNOSTICS);
    // The integrator's sign-in on the broker's site: a session cookie as most frameworks set it.
    if (path === '/signin')
      return send(res, 200, 'text/html', '<p>signed in</p>', { 'Set-Cookie': `${SESSION}; HttpOnly; SameSite=Lax; Path=/` });
    // The same, with the attributes a framed widget needs (docs/cms.md): only then can storage access let it through.
    if (path === '/signin-framed')
      return send(res, 200, 'text/html', '<p>signed in</p>', { 'Set-Cookie': `${SESSION}; HttpOnly; SameSite=None; Secure; Path=/` });
    if (path === '/token') {
      const site = req.headers['sec-fetch-site'] as string | undefined;
      const cookie = req.headers.cookie;
      brokerCalls.push({ site, cookie });
      if (req.headers['x-csrf'] !== '1') return json(req, res, 403, { error: 'Missing anti-CSRF header: send X-CSRF: 1.' });
      if (cookie?.includes(SESSION)) return json(req, res, 200, { access_token: TOKEN, expires_in: 300 });
      // docs/broker-contract.md: the broker says when the browser sent no cookie across sites.
      if (site === 'cross-site' && !cookie) return json(req, res, 401, { error: 'No session cookie arrived.', reason: 'no-cookie' });
      return json(req, res, 401, { error: 'Sign in to obtain a token.' });
    }
    if (path === '/mw/orchestrator/verify') {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(req, res, 401, { error: 'invalid_token' });
      return json(req, res, 200, { subjectId: 'alice', match: true, score: 0.97, verificationId: 'ver-1' });
    }
    if (path === '/mw/') return json(req, res, 401, { error: 'invalid_token' });
    if (path === '/local/status') return json(req, res, 200, { workstationId: 'ws-1', devices: [{ deviceId: 'dev-1', connected: true }] });
    if (path === '/local/test-capture') return json(req, res, 200, { deviceId: 'dev-1', quality: 77 });
    return send(res, 404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    port,
    brokerCalls,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

for (const engine of selectedEngines())
  describe(`cross-site token broker in ${ENGINE_NAMES[engine]} (page on localhost, broker on 127.0.0.1)`, function () {
    this.timeout(120_000);
    let party: Party;
    let browser: Browser;
    before(async () => {
      party = await startParty();
      // Firefox's own testing preferences answer its storage access prompt with "allow", as a user would
      // (headless, the prompt would wait for ever); they change nothing else. Chromium blocks third-party
      // cookies through its launch flags (scripts/browsers.mjs, CHROMIUM_ARGS).
      browser = await launch(engine, {
        firefoxPrefs: { 'dom.storage_access.prompt.testing': true, 'dom.storage_access.prompt.testing.allow': true },
      });
    });
    after(async () => {
      await browser?.close();
      await party?.close();
    });

    /** A fresh context signed in on the broker's site (127.0.0.1), then on `origin`'s page. */
    async function signedInPage(origin: string): Promise<{ page: Page; close(): Promise<void> }> {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${party.port}/signin`);
      await page.goto(`${origin}/page`);
      await page.waitForFunction(() => ['bio-verify', 'bio-diagnostics'].every((t) => customElements.get(t)));
      return { page, close: () => context.close() };
    }

    it("the same page on the broker's site gets a token (the session cookie is sent)", async () => {
      const { page, close } = await signedInPage(`http://127.0.0.1:${party.port}`);
      try {
        const outcome = await runOperation(page, 'bio-verify');
        assert.strictEqual(outcome.type, 'bio-result', JSON.stringify(outcome.detail));
      } finally {
        await close();
      }
    });

    it('on another site the browser withholds the cookie and the element fails with cookie-blocked, naming the fix', async () => {
      party.brokerCalls.length = 0;
      const { page, close } = await signedInPage(`http://localhost:${party.port}`);
      try {
        const outcome = await runOperation(page, 'bio-verify');
        assert.strictEqual(outcome.type, 'bio-error');
        assert.strictEqual(outcome.detail.code, 'cookie-blocked', JSON.stringify(outcome.detail));
        assert.strictEqual(outcome.detail.status, 401);
        assert.match(String(outcome.detail.message), /SameSite.*Host the token broker on this page's site/);
        const shown = await page.text('bio-verify >>> [part="status"]');
        assert.match(shown, /Sign-in blocked/);
        assert.notMatch(shown, /session has ended/i);
        // What the broker saw: a cross-site request without any cookie.
        const verifyCall = party.brokerCalls.find((c) => c.site === 'cross-site');
        assert.ok(verifyCall, `a cross-site broker call: ${JSON.stringify(party.brokerCalls)}`);
        assert.strictEqual(verifyCall.cookie, undefined);
      } finally {
        await close();
      }
    });

    it('<bio-diagnostics> on the other site reads the token broker as blocked (cookie-blocked), the rest ok', async () => {
      const { page, close } = await signedInPage(`http://localhost:${party.port}`);
      try {
        const report = (await page.evaluate(() => document.querySelector('bio-diagnostics')!.start())) as string;
        assert.match(report, /^token-broker: blocked cookie-blocked /m);
        assert.match(report, /^middleware: ok reachable \(HTTP 401 without a token\)$/m);
        assert.match(report, /^local-service: ok ws-1: dev-1$/m);
        assert.notInclude(report, TOKEN);
        await page.waitForText('bio-diagnostics >>> [data-row="token-broker"]', 'kept your sign-in');
      } finally {
        await close();
      }
    });

    it('framed by a portal on another site: cookie-blocked with the page in a new tab, storage access on a click, never a sign-in link', async () => {
      const widgetOrigin = `http://127.0.0.1:${party.port}`;
      const portalOrigin = `http://localhost:${party.port}`;
      const context = await browser.newContext();
      try {
        const top = await context.newPage();
        // Headless Chromium refuses every storage access request itself: the user's "allow" is its permission,
        // set for this portal and frame (CDP, as the user would). Firefox answers through the preferences above;
        // WebKit grants by itself.
        if (engine === 'chromium') {
          await context.setPermission!({
            permission: { name: 'storage-access' },
            origin: portalOrigin,
            embeddedOrigin: widgetOrigin,
            setting: 'granted',
          });
        }
        await top.goto(`${widgetOrigin}/signin-framed`);
        await top.goto(`${portalOrigin}/portal`);
        const frame = await top.frame('iframe');
        await frame.waitForFunction(() => Boolean(customElements.get('bio-verify')));
        party.brokerCalls.length = 0;

        /** What the card offers: its status line (a link to the page in a new tab), the sign-in link (never), the access button. */
        const offered = () =>
          frame.evaluate(() => {
            const root = document.querySelector('bio-verify')!.shadowRoot!;
            const open = root.querySelector<HTMLAnchorElement>('a[part="open"]');
            return {
              status: root.querySelector('[part="status"]')!.textContent!.trim(),
              login: root.querySelectorAll('a[part="login"]').length,
              access: root.querySelectorAll('button[part="access"]').length,
              open: open && { href: open.href, target: open.target, text: open.textContent },
            };
          });
        const wayOut = { href: `${widgetOrigin}/widget`, target: '_blank', text: 'Open this page in a new tab to sign in.' };

        // A browser without the Storage Access API (Chrome before 119): cookie-blocked and the page in a new tab.
        await frame.evaluate(() => {
          const w = window as unknown as { requestAccess: unknown; asked: number };
          w.requestAccess = Document.prototype.requestStorageAccess;
          w.asked = 0;
          delete (Document.prototype as Partial<Document>).requestStorageAccess;
        });
        let outcome = await runOperation(frame, 'bio-verify');
        assert.strictEqual(outcome.detail.code, 'cookie-blocked', JSON.stringify(outcome.detail));
        assert.strictEqual(outcome.detail.status, 401);
        assert.match(String(outcome.detail.message), /^<bio-verify> in a frame of another site got no session cookie \(docs\/cms.md\)/);
        assert.deepStrictEqual(await offered(), {
          status: 'Sign-in blocked',
          login: 0,
          access: 0,
          open: wayOut,
        });
        // What the broker saw: a same-origin request from the frame, without the cookie, so no reason it could give.
        // (One call, or two when the sign of intent before the click asked first: a refusal is not kept.)
        assert.isNotEmpty(party.brokerCalls);
        for (const call of party.brokerCalls) assert.deepStrictEqual(call, { site: 'same-origin', cookie: undefined });

        // With it, counted as the page calls it: the card offers to ask, and asks on the click.
        await frame.evaluate(() => {
          const w = window as unknown as { requestAccess: (this: Document) => Promise<void>; asked: number };
          Document.prototype.requestStorageAccess = function (this: Document) {
            w.asked += 1;
            return w.requestAccess.call(this);
          };
        });
        outcome = await runOperation(frame, 'bio-verify');
        assert.strictEqual(outcome.detail.code, 'cookie-blocked');
        assert.deepStrictEqual(await offered(), {
          status: 'Sign-in blocked',
          login: 0,
          access: 1,
          open: wayOut,
        });
        outcome = await runOperation(frame, 'bio-verify', 'access');
        assert.strictEqual(await frame.evaluate(() => (window as unknown as { asked: number }).asked), 1);
        if (engine === 'webkit') {
          // WebKitGTK grants the request, yet its cookie policy still keeps the cookie from the frame: the card
          // stays on cookie-blocked, does not offer to ask again, and keeps the new tab's link.
          assert.strictEqual(outcome.detail.code, 'cookie-blocked', JSON.stringify(outcome.detail));
          assert.deepStrictEqual(await offered(), {
            status: 'Sign-in blocked',
            login: 0,
            access: 0,
            open: wayOut,
          });
        } else {
          // Granted: the frame's requests carry the cookie and the operation, run again, succeeds.
          assert.strictEqual(outcome.type, 'bio-result', JSON.stringify(outcome.detail));
          assert.deepInclude(party.brokerCalls.at(-1), { site: 'same-origin', cookie: SESSION });
        }
      } finally {
        await context.close();
      }
    });
  });
