/**
 * The Node adapters drive the broker's core without a web Response, and build a web Request only if
 * the gate reads it (src/broker/adapters/lazy-request.ts; toNodeHandler where the platform's `new Request()` accepts a lazy
 * one), while `authorize` still receives a standard Request.
 */
import { assert } from 'chai';
import { request as httpRequest } from 'node:http';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { createBrokerCore } from '../../src/broker/handler.js';
import { lazyRequest, platformAcceptsLazy } from '../../src/broker/adapters/lazy-request.js';
import { nodeBroker } from '../../src/broker/adapters/node.js';
import { createTokenBroker, toNodeHandler, type BrokerContext, type TokenBrokerOptions } from '../../src/broker/index.js';
import { APP_ORIGIN, CLIENT, startServer, type LocalServer } from './support.js';

/** The platform class, kept before countRequests swaps the global. */
const PlatformRequest = globalThis.Request;

let idp: RunningIdp;
before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

const options = (overrides: Partial<TokenBrokerOptions> = {}): TokenBrokerOptions => ({
  issuerUrl: idp.baseUrl,
  realm: idp.realm,
  ...CLIENT,
  allowedOrigins: [APP_ORIGIN],
  authorize: () => true,
  logger: () => {},
  ...overrides,
});

/** Counts `new Request(...)` while `run` runs (the platform class swapped for a counting subclass). */
async function countRequests(run: () => Promise<void>): Promise<number> {
  const Platform = globalThis.Request;
  let built = 0;
  globalThis.Request = class extends Platform {
    constructor(...args: ConstructorParameters<typeof Request>) {
      super(...args);
      built += 1;
    }
  };
  try {
    await run();
  } finally {
    globalThis.Request = Platform;
  }
  return built;
}

async function withServer(handler: Parameters<typeof startServer>[0], run: (server: LocalServer) => Promise<void>) {
  const server = await startServer(handler);
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

/** A raw GET (fetch would add its own headers). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('lightweight request and response on Node', () => {
  it('the sidecar adapter builds no web Request when the gate does not read it (cached path)', async () => {
    const broker = nodeBroker(createBrokerCore(options()), 'on-first-read');
    await withServer(broker, async (server) => {
      await get(`${server.url}/token`, { 'X-CSRF': '1' }); // fills the cache
      const built = await countRequests(async () => {
        for (let i = 0; i < 5; i++) assert.strictEqual((await get(`${server.url}/token`, { 'X-CSRF': '1' })).status, 200);
      });
      assert.strictEqual(built, 0);
    });
  });

  it('authorize still receives a standard Request in the sidecar adapter, built on first read, once', async () => {
    const seen: { isRequest: boolean; cookie: string | null; url: string; method: string; copy: string | null; hasReq: boolean }[] = [];
    const broker = nodeBroker(
      createBrokerCore(
        options({
          authorize: (request: Request, context: BrokerContext) => {
            seen.push({
              isRequest: request instanceof PlatformRequest,
              cookie: request.headers.get('cookie'),
              url: request.url,
              method: request.method,
              copy: request.clone().headers.get('x-csrf'),
              hasReq: context.req !== undefined,
            });
            return true;
          },
        }),
      ),
      'on-first-read',
    );
    await withServer(broker, async (server) => {
      const built = await countRequests(async () => {
        assert.strictEqual((await get(`${server.url}/bioid/token?x=1`, { 'X-CSRF': '1', Cookie: 'sid=alice' })).status, 200);
      });
      assert.strictEqual(built, 1, 'one real Request, however many properties are read (clone aside)');
    });
    assert.deepStrictEqual(seen, [
      {
        isRequest: true,
        cookie: 'sid=alice',
        url: `http://127.0.0.1:${seen.length && new URL(seen[0]!.url).port}/bioid/token?x=1`,
        method: 'GET',
        copy: '1',
        hasReq: true,
      },
    ]);
  });

  it('refusals before the gate (preflight, 405, CSRF) build no Request in either adapter', async () => {
    for (const broker of [toNodeHandler(createTokenBroker(options())), nodeBroker(createBrokerCore(options()), 'on-first-read')]) {
      await withServer(broker, async (server) => {
        const built = await countRequests(async () => {
          assert.strictEqual((await get(`${server.url}/token`, {})).status, 403);
          assert.strictEqual((await get(`${server.url}/token`, { Origin: 'https://cms.example.org' })).status, 403);
        });
        assert.strictEqual(built, 0);
      });
    }
  });

  it('toNodeHandler (Express) keeps handing authorize a real Request, one new Request() accepts', async () => {
    let copied: Request | undefined;
    const broker = toNodeHandler(createTokenBroker(options({ authorize: (request: Request) => (copied = new Request(request)) })));
    await withServer(broker, async (server) => {
      assert.strictEqual((await get(`${server.url}/token`, { 'X-CSRF': '1' })).status, 200);
    });
    assert.ok(copied instanceof Request);
  });

  it('toNodeHandler by default builds no Request for a gate that does not read it, where new Request() accepts a lazy one, and a copy keeps URL, method and headers', async () => {
    const copies: { url: string; method: string; cookie: string | null }[] = [];
    const ignoring = toNodeHandler(createTokenBroker(options()));
    const copying = toNodeHandler(
      createTokenBroker(
        options({
          authorize: (request: Request) => {
            const copy = new PlatformRequest(request);
            copies.push({ url: new URL(copy.url).pathname, method: copy.method, cookie: copy.headers.get('cookie') });
            return true;
          },
        }),
      ),
    );
    await withServer(ignoring, async (server) => {
      await get(`${server.url}/token`, { 'X-CSRF': '1' }); // fills the cache
      const built = await countRequests(async () => {
        assert.strictEqual((await get(`${server.url}/token`, { 'X-CSRF': '1' })).status, 200);
      });
      assert.strictEqual(built, platformAcceptsLazy() ? 0 : 1);
    });
    await withServer(copying, async (server) => {
      assert.strictEqual((await get(`${server.url}/bioid/token`, { 'X-CSRF': '1', Cookie: 'sid=alice' })).status, 200);
    });
    assert.deepStrictEqual(copies, [{ url: '/bioid/token', method: 'GET', cookie: 'sid=alice' }]);
  });

  it('toNodeHandler(handler, { responseHeaders }): its headers go out with every answer, the broker core and any web handler alike', async () => {
    const responseHeaders = (req: { headers: Record<string, unknown> }) => ({ 'X-Request-Id': `id-${String(req.headers['x-mark'])}` });
    const core = toNodeHandler(createTokenBroker(options()), { responseHeaders });
    const web = toNodeHandler(async () => new Response('{}', { status: 201, headers: { 'Content-Type': 'application/json' } }), {
      responseHeaders,
    });
    await withServer(core, async (server) => {
      const token = await get(`${server.url}/token`, { 'X-CSRF': '1', 'X-Mark': 'a' });
      assert.strictEqual(token.status, 200);
      assert.strictEqual(token.headers['x-request-id'], 'id-a');
      assert.strictEqual(token.headers['cache-control'], 'no-store');
      const refused = await get(`${server.url}/token`, { 'X-Mark': 'b' });
      assert.strictEqual(refused.status, 403);
      assert.strictEqual(refused.headers['x-request-id'], 'id-b');
      // The broker's shared header record is not changed by what was added to an answer.
      assert.strictEqual((await get(`${server.url}/token`, { 'X-CSRF': '1', 'X-Mark': 'c' })).headers['x-request-id'], 'id-c');
    });
    await withServer(web, async (server) => {
      const reply = await get(`${server.url}/token`, { 'X-Mark': 'd' });
      assert.strictEqual(reply.status, 201);
      assert.strictEqual(reply.headers['x-request-id'], 'id-d');
    });
  });

  it('toNodeHandler hands authorize every header as sent: repeated ones joined, each Set-Cookie apart', async () => {
    const seen: { method: string; cookie: string | null; repeated: string | null; setCookie: string[]; csrf: string | null }[] = [];
    const broker = toNodeHandler(
      createTokenBroker(
        options({
          authorize: (request: Request) => {
            seen.push({
              method: request.method,
              cookie: request.headers.get('cookie'),
              repeated: request.headers.get('x-repeated'),
              setCookie: request.headers.getSetCookie(),
              csrf: request.headers.get('x-csrf'),
            });
            return true;
          },
        }),
      ),
    );
    await withServer(broker, async (server) => {
      // The plain case (every value one string) and the long way (an array value: Set-Cookie).
      const plain = { 'X-CSRF': '1', Cookie: 'sid=alice', 'X-Repeated': ['a', 'b'] } as unknown as Record<string, string>;
      assert.strictEqual((await get(`${server.url}/token`, plain)).status, 200);
      assert.strictEqual(
        (await get(`${server.url}/token`, { ...plain, 'Set-Cookie': ['x=1', 'y=2'] } as unknown as Record<string, string>)).status,
        200,
      );
    });
    assert.deepStrictEqual(seen, [
      { method: 'GET', cookie: 'sid=alice', repeated: 'a, b', setCookie: [], csrf: '1' },
      { method: 'GET', cookie: 'sid=alice', repeated: 'a, b', setCookie: ['x=1', 'y=2'], csrf: '1' },
    ]);
  });

  it('toNodeHandler(handler, { lazyRequest: true }): a gate that reads context.req only costs no web Request, and a request event comes with that context', async () => {
    const contexts: (BrokerContext | undefined)[] = [];
    const broker = toNodeHandler(
      createTokenBroker(
        options({
          authorize: (_request: Request, context: BrokerContext) => context.req?.headers['x-csrf'] === '1',
          onEvent: (event, context) => void (event.type === 'request' && contexts.push(context)),
        }),
      ),
      { lazyRequest: true },
    );
    await withServer(broker, async (server) => {
      await get(`${server.url}/token`, { 'X-CSRF': '1' });
      const built = await countRequests(async () => {
        assert.strictEqual((await get(`${server.url}/token`, { 'X-CSRF': '1', 'X-Mark': 'second' })).status, 200);
      });
      assert.strictEqual(built, 0);
    });
    assert.lengthOf(contexts, 2);
    assert.strictEqual(contexts[1]?.req?.headers['x-mark'], 'second');
  });

  it('both Node adapters answer byte for byte what the web handler answers', async () => {
    const handler = createTokenBroker(options({ middlewareUrl: 'https://mw.example.com' }));
    const cases: Record<string, string>[] = [
      { 'X-CSRF': '1', Origin: APP_ORIGIN },
      { Origin: APP_ORIGIN },
      { 'X-CSRF': '1', Origin: 'https://evil.example.com' },
    ];
    const web: { status: number; headers: Record<string, string>; body: string }[] = [];
    for (const headers of cases) {
      const response = await handler(new Request('http://broker.test/token', { headers }));
      web.push({ status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() });
    }
    for (const broker of [
      toNodeHandler(handler),
      nodeBroker(createBrokerCore(options({ middlewareUrl: 'https://mw.example.com' })), 'on-first-read'),
    ]) {
      await withServer(broker, async (server) => {
        for (const [i, headers] of cases.entries()) {
          const reply = await get(`${server.url}/token`, headers);
          const expected = web[i]!;
          assert.strictEqual(reply.status, expected.status);
          for (const [name, value] of Object.entries(expected.headers))
            if (name !== 'content-length') assert.strictEqual(reply.headers[name], value, name);
          const strip = (body: string) => body.replace(/"access_token":"[^"]+","expires_in":\d+/, 'TOKEN');
          assert.strictEqual(strip(reply.body), strip(expected.body));
        }
      });
    }
  });

  it('lazy-request: every property and method of the platform Request is forwarded, and the real one is built at most once', async () => {
    let builds = 0;
    const lazy = lazyRequest(() => {
      builds += 1;
      return new Request('https://a.example/p', { method: 'POST', headers: { 'X-A': '1' }, body: 'hello' });
    });
    assert.strictEqual(builds, 0);
    assert.ok(lazy instanceof Request);
    assert.strictEqual(Object.prototype.toString.call(lazy), '[object Request]');
    assert.strictEqual(lazy.method, 'POST');
    assert.strictEqual(lazy.headers.get('x-a'), '1');
    assert.strictEqual(await lazy.text(), 'hello');
    assert.strictEqual(lazy.bodyUsed, true);
    assert.strictEqual(builds, 1);
  });
});
