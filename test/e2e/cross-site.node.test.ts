/**
 * Cross-site, said plainly (docs/broker-contract.md rule 5), in Chromium, Firefox and WebKit through
 * scripts/engines.mjs: a page on `localhost` whose token broker is on `127.0.0.1` (another site) while
 * the user is signed in there. The browser withholds the broker's SameSite=Lax session cookie from the
 * page's cross-site fetch; the broker, seeing `Sec-Fetch-Site: cross-site` and no Cookie, answers 401
 * `{ error, reason: "no-cookie" }`, and the elements fail with `cookie-blocked` and a message that names
 * the fix, where they used to say "Your session has ended". `<bio-diagnostics>` on that page reads the
 * token broker as blocked. The same page served from the broker's own site gets its token.
 * One node:http server on 127.0.0.1 port 0 is every party: the page (reached as localhost or as
 * 127.0.0.1), the broker (with the minimal rule of docs/broker-contract.md and CORS for both page origins), and a
 * fake middleware. Needs `npm run build` first (npm test builds).
 */
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENGINE_NAMES, launch, selectedEngines, type Browser, type Page } from '../../scripts/engines.mjs';
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
    if (path === '/bioid-elements.js') return send(res, 200, 'text/javascript', BUNDLE);
    if (path === '/bioid-diagnostics.js') return send(res, 200, 'text/javascript', DIAGNOSTICS);
    // The integrator's sign-in on the broker's site: a session cookie as most frameworks set it.
    if (path === '/signin')
      return send(res, 200, 'text/html', '<p>signed in</p>', { 'Set-Cookie': `${SESSION}; HttpOnly; SameSite=Lax; Path=/` });
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
      browser = await launch(engine);
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
  });
