/**
 * brokerTokenSource: the broker client in core (docs/core.md),
 * against a real HTTP server on loopback. Its failures are ReaderAuthErrors whose code tells
 * session-expired, cookie-blocked and broker-unavailable apart.
 */
import { assert } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { BioID, ReaderAuthError, brokerTokenSource, clearBrokerTokens, createFingerprintReader } from '../../src/index.js';
import { rejectsWith } from '../support/expect-error.js';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

describe('brokerTokenSource (spec 4.1; docs/core.md)', () => {
  let server: Server;
  let base: string;
  let route: Route;
  let requests: IncomingMessage[];

  before(async () => {
    server = createServer((req, res) => {
      requests.push(req);
      route(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    clearBrokerTokens();
    requests = [];
  });

  const answer =
    (status: number, body: unknown, headers: Record<string, string> = {}): Route =>
    (_req, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };

  it('GETs with X-CSRF: 1 and Accept: application/json, once per token lifetime for every caller', async () => {
    let issued = 0;
    route = (_req, res) => answer(200, { access_token: `tok-${++issued}`, expires_in: 300 })(_req, res);
    const source = brokerTokenSource(`${base}/token`);
    const tokens = await Promise.all([source.get(), source.get(), brokerTokenSource(`${base}/token`).get()]);
    assert.deepStrictEqual(tokens, ['tok-1', 'tok-1', 'tok-1']);
    assert.lengthOf(requests, 1);
    assert.strictEqual(requests[0]!.method, 'GET');
    assert.strictEqual(requests[0]!.headers['x-csrf'], '1');
    assert.strictEqual(requests[0]!.headers.accept, 'application/json');
  });

  it('a query in the broker URL is kept (admin-ajax.php?action=…)', async () => {
    route = answer(200, { access_token: 'tok', expires_in: 300 });
    await brokerTokenSource(`${base}/wp-admin/admin-ajax.php?action=bioid_token`).get();
    assert.strictEqual(requests[0]!.url, '/wp-admin/admin-ajax.php?action=bioid_token');
  });

  for (const [what, reply, code] of [
    ['401', answer(401, { error: 'no session' }), 'session-expired'],
    ['403', answer(403, { error: 'csrf' }), 'session-expired'],
    ['a redirect to a login page', answer(302, '', { Location: 'https://login.example/' }), 'session-expired'],
    ['a login page served in place', answer(200, '<!doctype html><form>', { 'Content-Type': 'text/html' }), 'session-expired'],
    ['401 with reason no-cookie', answer(401, { error: 'no cookie', reason: 'no-cookie' }), 'cookie-blocked'],
    ['502 from its identity provider', answer(502, { error: 'idp failed' }), 'broker-unavailable'],
    ['an answer without access_token', answer(200, { token: 'x' }), 'broker-unavailable'],
  ] as const) {
    it(`${what} is a ReaderAuthError with code ${code}`, async () => {
      route = reply;
      const error = await rejectsWith(brokerTokenSource(`${base}/token`).get(), ReaderAuthError);
      assert.strictEqual(error.code, code);
      if (code === 'cookie-blocked') assert.match(error.message, /Host the token broker on this page's site/);
    });
  }

  for (const [what, reply, status] of [
    [
      'a 404 page (a typo in the path, nothing mounted there)',
      answer(404, '<!doctype html><h1>Not found</h1>', { 'Content-Type': 'text/html' }),
      'HTTP 404',
    ],
    ['a 404 in JSON', answer(404, { error: 'not_found' }), 'HTTP 404'],
    ['405 (a route for another method)', answer(405, ''), 'HTTP 405'],
    ['a 200 that is not JSON (a static file)', answer(200, 'hello', { 'Content-Type': 'text/plain' }), 'HTTP 200, not JSON'],
  ] as const) {
    it(`${what} is a config error naming the URL and the status, not an ended session`, async () => {
      route = reply;
      await rejectsWith(brokerTokenSource(`${base}/tokn`).get(), {
        name: 'BioIDError',
        code: 'config',
        retryable: false,
        message: new RegExp(`^No token broker answers at ${base}/tokn \\(${status}\\): check token-endpoint\\.$`),
      });
    });
  }

  it('a failure is never cached: the next call asks the broker again', async () => {
    route = answer(502, { error: 'down' });
    await rejectsWith(brokerTokenSource(`${base}/token`).get(), { code: 'broker-unavailable' });
    route = answer(200, { access_token: 'back', expires_in: 300 });
    assert.strictEqual(await brokerTokenSource(`${base}/token`).get(), 'back');
  });

  it("spec 5.3: as a reader's getToken, a 401 from the middleware gets a fresh broker token, then one retry", async () => {
    let issued = 0;
    const seen: string[] = [];
    route = (req, res) => {
      if (req.url === '/token') return answer(200, { access_token: `tok-${++issued}`, expires_in: 300 })(req, res);
      seen.push(String(req.headers.authorization));
      return seen.length === 1 ? answer(401, { error: 'expired' })(req, res) : answer(200, { candidates: [] })(req, res);
    };
    const reader = createFingerprintReader({
      middlewareUrl: base,
      getToken: brokerTokenSource(`${base}/token`),
      workstationId: 'w',
      deviceId: 'd',
    });
    await reader.search();
    assert.deepStrictEqual(seen, ['Bearer tok-1', 'Bearer tok-2']);
  });

  it('BioID takes it as auth.getToken', async () => {
    route = (req, res) =>
      req.url === '/token'
        ? answer(200, { access_token: 'tok-b', expires_in: 300 })(req, res)
        : answer(200, { match: true, verificationId: 'v' })(req, res);
    const bio = new BioID({
      middlewareUrl: base,
      auth: { type: 'tokenProvider', getToken: brokerTokenSource(`${base}/token`) },
      workstationId: 'w',
      deviceId: 'd',
    });
    assert.deepStrictEqual(await bio.reader.verify({ subjectId: 'alice' }), { match: true, verificationId: 'v' });
  });

  it('a token whose broker names middleware_url is never sent to another origin (config error, nothing sent)', async () => {
    const other = createServer((req, res) => {
      requests.push(req);
      answer(200, { candidates: [] })(req, res);
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const elsewhere = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    try {
      route = (req, res) =>
        req.url === '/token'
          ? answer(200, { access_token: 'tok-bound', expires_in: 300, middleware_url: base })(req, res)
          : answer(200, { candidates: [] })(req, res);
      const tokens = brokerTokenSource(`${base}/token`);
      const pinned = { workstationId: 'w', deviceId: 'd' };
      const attacker = createFingerprintReader({ middlewareUrl: elsewhere, getToken: tokens, ...pinned });
      await rejectsWith(attacker.search(), {
        code: 'config',
        message: /is for the middleware at http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:\d+: nothing was sent/,
      });
      assert.isFalse(
        requests.some((r) => r.headers.host === new URL(elsewhere).host),
        'nothing reached the other origin',
      );
      const own = createFingerprintReader({ middlewareUrl: base, getToken: tokens, ...pinned });
      assert.deepStrictEqual(await own.search(), { candidates: [] });
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('a broker that names no middleware binds its token to the first middleware origin it is sent to', async () => {
    route = (req, res) =>
      req.url === '/token'
        ? answer(200, { access_token: 'tok-first', expires_in: 300 })(req, res)
        : answer(200, { candidates: [] })(req, res);
    const tokens = brokerTokenSource(`${base}/token`);
    const pinned = { workstationId: 'w', deviceId: 'd' };
    await createFingerprintReader({ middlewareUrl: base, getToken: tokens, ...pinned }).search();
    const moved = createFingerprintReader({ middlewareUrl: 'https://attacker.example', getToken: tokens, ...pinned });
    await rejectsWith(moved.search(), { code: 'config', message: /, not https:\/\/attacker\.example: nothing was sent/ });
  });

  it('docs/security.md claim 15: no spelling of a bound broker yields a token for another origin', async () => {
    let issued = 0;
    route = (req, res) =>
      /token/i.test(decodeURIComponent(req.url!))
        ? answer(200, { access_token: `tok-${++issued}`, expires_in: 300 })(req, res)
        : answer(200, { candidates: [] })(req, res);
    const pinned = { workstationId: 'w', deviceId: 'd' };
    await createFingerprintReader({ middlewareUrl: base, getToken: brokerTokenSource(`${base}/token`), ...pinned }).search();
    const port = new URL(base).port;
    const spellings = [
      `${base}/token?x`,
      `${base}/token/`,
      `${base}//token`,
      `${base}/TOKEN`,
      `${base}/%74oken`,
      `HTTP://127.0.0.1:${port}/token`,
    ];
    for (const spelling of spellings) {
      const moved = createFingerprintReader({
        middlewareUrl: 'https://attacker.example',
        getToken: brokerTokenSource(spelling),
        ...pinned,
      });
      await rejectsWith(moved.search(), { code: 'config', message: /, not https:\/\/attacker\.example: nothing was sent/ });
    }
  });

  it('a trailing dot and a default port name the same broker as the plain host', () => {
    // Bound without a network call: the binding is made on the first send, which the attacker's reader tries second.
    const first = brokerTokenSource('https://broker.example/token');
    first.bind!('t', 'https://mw.example');
    for (const spelling of ['https://BROKER.example:443/token', 'https://broker.example./token', 'https://broker.example/token/?q']) {
      assert.throws(
        () => brokerTokenSource(spelling).bind!('t', 'https://attacker.example'),
        /is for the middleware at https:\/\/mw\.example, not https:\/\/attacker\.example/,
      );
    }
  });

  it('a URL that is not absolute http(s) is a config error naming the argument', () => {
    assert.throws(() => brokerTokenSource('/token'), /brokerTokenSource: url is not an absolute URL/);
  });
});
