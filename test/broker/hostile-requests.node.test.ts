/**
 * The broker's security matrix where the other broker tests leave gaps: oversized and
 * malformed headers through the Node adapter on a real socket (a clean 431/403, no crash, no token, the
 * server keeps serving), and token-exchange user isolation under concurrent requests through the same
 * adapter. Already covered elsewhere (cited in docs/security.md): no session, missing CSRF header,
 * foreign origin and preflight (broker.node.test.ts), method not allowed (broker.node.test.ts,
 * express.node.test.ts), IdP failure modes (broker.node.test.ts), in-process concurrent isolation
 * (exchange.node.test.ts).
 */
import { assert } from 'chai';
import { request as httpRequest } from 'node:http';
import { toNodeHandler } from '../../src/broker/index.js';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { APP_ORIGIN, CLIENT, brokerAgainst, captureLog, startServer, verifyMiddlewareToken, type LocalServer } from './support.js';

let idp: RunningIdp;
let server: LocalServer;
const log = captureLog();
let authorizeCalls = 0;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

before(async () => {
  process.on('unhandledRejection', onUnhandled);
  idp = await startIdp({ clients: [CLIENT], accessTokenTtl: 300 });
  const { broker } = brokerAgainst(idp, {
    authorize: (request) => {
      authorizeCalls++;
      return /(?:^|;\s*)sid=ok(?:;|$)/.test(request.headers.get('cookie') ?? '');
    },
    allowedOrigins: [APP_ORIGIN],
    logger: log.logger,
  });
  server = await startServer(toNodeHandler(broker));
});
after(async () => {
  await server?.close();
  await idp?.close();
  process.off('unhandledRejection', onUnhandled);
  assert.deepStrictEqual(unhandled, [], 'no unhandled rejections');
});

/** A raw GET through node:http (fetch would refuse some of these headers itself). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const SIGNED_IN = { Cookie: 'sid=ok', 'X-CSRF': '1' };

describe('token broker: oversized and malformed headers through the Node adapter (real socket)', () => {
  it('a huge Cookie header (20 KB, over the 16 KB limit of node:http) is refused with 431 before the broker runs; no token; the server keeps serving', async () => {
    const calls = authorizeCalls;
    const huge = await rawGet(`${server.url}/token`, { Cookie: `sid=ok; pad=${'a'.repeat(20 * 1024)}`, 'X-CSRF': '1' });
    assert.strictEqual(huge.status, 431);
    assert.ok(!huge.body.includes('access_token'));
    assert.strictEqual(authorizeCalls, calls, 'authorize never saw the request');
    const ok = await rawGet(`${server.url}/token`, SIGNED_IN);
    assert.strictEqual(ok.status, 200);
    assert.strictEqual(typeof (JSON.parse(ok.body) as { access_token?: unknown }).access_token, 'string');
  });

  it('a huge X-CSRF header (under the size limit) is a clean 403 without a token, and authorize is not asked', async () => {
    const calls = authorizeCalls;
    const reply = await rawGet(`${server.url}/token`, { Cookie: 'sid=ok', 'X-CSRF': `1${'1'.repeat(12 * 1024)}` });
    assert.strictEqual(reply.status, 403);
    assert.ok(!reply.body.includes('access_token'));
    assert.ok(!reply.body.includes('1111111111'), 'the header is not echoed');
    assert.strictEqual(authorizeCalls, calls);
  });

  it('a huge foreign Origin header gets no CORS grant (the browser withholds the answer) and is not echoed', async () => {
    const origin = `${APP_ORIGIN}${'x'.repeat(12 * 1024)}`;
    const reply = await rawGet(`${server.url}/token`, { ...SIGNED_IN, Origin: origin });
    assert.strictEqual(reply.headers['access-control-allow-origin'], undefined);
    // Same answer as any foreign origin (broker.node.test.ts): served, but without a grant the browser withholds it.
    assert.strictEqual(reply.status, 200);
    assert.ok(!JSON.stringify(reply.headers).includes('xxxxxxxxxx'), 'the origin is not echoed');
    const allowed = await rawGet(`${server.url}/token`, { ...SIGNED_IN, Origin: APP_ORIGIN });
    assert.strictEqual(allowed.headers['access-control-allow-origin'], APP_ORIGIN);
  });

  it('a huge session cookie value (under the limit) is just a failed session: 401, no token', async () => {
    const reply = await rawGet(`${server.url}/token`, { Cookie: `sid=${'z'.repeat(12 * 1024)}`, 'X-CSRF': '1' });
    assert.strictEqual(reply.status, 401);
    assert.ok(!reply.body.includes('access_token'));
  });

  it('a malformed Host header and a long path do not crash the adapter', async () => {
    const host = await rawGet(`${server.url}/token`, { ...SIGNED_IN, Host: 'evil host/<script>' });
    assert.strictEqual(host.status, 200);
    for (const unparsable of ['broker.example:99999', '[zz]']) {
      assert.strictEqual((await rawGet(`${server.url}/token`, { ...SIGNED_IN, Host: unparsable })).status, 200, unparsable);
    }
    const path = await rawGet(`${server.url}/token/${'p'.repeat(8 * 1024)}?${'q=1&'.repeat(500)}`, SIGNED_IN);
    assert.strictEqual(path.status, 200);
    assert.ok(!log.text().includes('ppppp'), 'the path is not logged');
  });

  it('200 requests with oversized headers in parallel: every one answered (431/403/401), the process survives, a normal request still works', async () => {
    const bad = Array.from({ length: 200 }, (_, i) =>
      rawGet(
        `${server.url}/token`,
        i % 3 === 0
          ? { Cookie: 'c'.repeat(20 * 1024) }
          : i % 3 === 1
            ? { 'X-CSRF': 'x'.repeat(8 * 1024) }
            : { 'X-CSRF': '1', Cookie: `sid=${'n'.repeat(8 * 1024)}` },
      ),
    );
    const statuses = (await Promise.all(bad)).map((r) => r.status);
    assert.deepStrictEqual([...new Set(statuses)].sort(), [401, 403, 431]);
    const ok = await rawGet(`${server.url}/token`, SIGNED_IN);
    assert.strictEqual(ok.status, 200);
    assert.ok(!log.text().includes('access_token'));
  });
});

describe('token exchange user isolation through the Node adapter (real socket, concurrent)', () => {
  it('spec 5.8: two users interleaving 80 concurrent requests over HTTP each get only their own token', async () => {
    const { broker } = brokerAgainst(idp, { tokenExchange: { subjectToken: (request) => request.headers.get('x-user-token') } });
    const exchange = await startServer(toNodeHandler(broker));
    try {
      const tokens = { alice: await idp.userToken('alice'), bob: await idp.userToken('bob') };
      const asks = Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? 'alice' : 'bob') as 'alice' | 'bob');
      const answers = await Promise.all(
        asks.map(async (user) => ({ user, reply: await rawGet(`${exchange.url}/token`, { 'X-CSRF': '1', 'X-User-Token': tokens[user] }) })),
      );
      const issued = new Map<string, Set<string>>();
      for (const { user, reply } of answers) {
        assert.strictEqual(reply.status, 200);
        const token = (JSON.parse(reply.body) as { access_token: string }).access_token;
        assert.strictEqual((await verifyMiddlewareToken(idp, token)).sub, user);
        issued.set(user, (issued.get(user) ?? new Set()).add(token));
      }
      const [alice, bob] = [[...issued.get('alice')!], [...issued.get('bob')!]];
      assert.ok(
        alice.every((t) => !bob.includes(t)),
        'no token handed to both users',
      );
    } finally {
      await exchange.close();
    }
  });
});
