/**
 * A token the middleware refuses early can be replaced (docs/broker-contract.md, rule 13): after a 401
 * the broker client names the refused token by its hash in X-Refused-Token, and the reference broker
 * drops that token and exchanges again, at most once per token. Brokers that ignore the header keep working.
 */
import { assert } from 'chai';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createTokenBroker, toNodeHandler } from '../../src/broker/index.js';
import { brokerTokenSource, clearBrokerTokens, createFingerprintReader } from '../../src/index.js';
import { json } from '../support/fake-network.js';
import { MW, standardNetwork } from '../support/sdk-fixtures.js';
import { CLIENT, brokerRequest, readJson } from './support.js';

const IDP = 'https://idp.example.com';
const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

/** An identity provider that issues opaque tokens tok-1, tok-2, … and counts its exchanges. */
function fakeIdp() {
  const idp = {
    exchanges: 0,
    fetchImpl: async () => json({ access_token: `tok-${++idp.exchanges}`, expires_in: 300 }),
  };
  return idp;
}

const tokenOf = async (response: Response) => (await readJson(response)).access_token;
const refusing = (hash?: string) => brokerRequest(hash === undefined ? {} : { headers: { 'X-Refused-Token': hash } });

describe('a refused token is replaced through the broker (X-Refused-Token)', () => {
  it('the reference broker drops its cached token and exchanges again only when X-Refused-Token is the hash of that token, once per token', async () => {
    const idp = fakeIdp();
    const broker = createTokenBroker({
      issuerUrl: IDP,
      realm: 'acme',
      ...CLIENT,
      authorize: () => true,
      fetchImpl: idp.fetchImpl,
      logger: () => {},
    });
    assert.strictEqual(await tokenOf(await broker(refusing())), 'tok-1');
    assert.strictEqual(await tokenOf(await broker(refusing('not-the-hash'))), 'tok-1');
    assert.strictEqual(await tokenOf(await broker(refusing('tok-1'))), 'tok-1', 'the token itself is not a hash');
    assert.strictEqual(idp.exchanges, 1);
    assert.strictEqual(await tokenOf(await broker(refusing(hashOf('tok-1')))), 'tok-2');
    assert.strictEqual(await tokenOf(await broker(refusing(hashOf('tok-1')))), 'tok-2', 'once per token');
    assert.strictEqual(await tokenOf(await broker(refusing())), 'tok-2');
    assert.strictEqual(idp.exchanges, 2);
    const burst = await Promise.all(Array.from({ length: 5 }, () => broker(refusing(hashOf('tok-2')))));
    assert.deepStrictEqual(await Promise.all(burst.map(tokenOf)), Array(5).fill('tok-3'));
    assert.strictEqual(idp.exchanges, 3, 'concurrent refusals of one token share one exchange');
  });

  it('in token-exchange mode a refused token is replaced for its user only', async () => {
    const idp = fakeIdp();
    const broker = createTokenBroker({
      issuerUrl: IDP,
      realm: 'acme',
      ...CLIENT,
      authorize: () => true,
      fetchImpl: idp.fetchImpl,
      logger: () => {},
      tokenExchange: { subjectToken: (request) => request.headers.get('authorization')?.slice(7) },
    });
    const as = (user: string, hash?: string) =>
      brokerRequest({ headers: { Authorization: `Bearer ${user}`, ...(hash ? { 'X-Refused-Token': hash } : {}) } });
    assert.strictEqual(await tokenOf(await broker(as('alice-subject-token'))), 'tok-1');
    assert.strictEqual(await tokenOf(await broker(as('bob-subject-token'))), 'tok-2');
    assert.strictEqual(
      await tokenOf(await broker(as('bob-subject-token', hashOf('tok-1')))),
      'tok-2',
      "alice's token is not bob's to refuse",
    );
    assert.strictEqual(await tokenOf(await broker(as('alice-subject-token', hashOf('tok-1')))), 'tok-3');
    assert.strictEqual(await tokenOf(await broker(as('alice-subject-token', hashOf('tok-1')))), 'tok-3');
    assert.strictEqual(idp.exchanges, 3);
  });

  it('the preflight allows X-Refused-Token for a listed origin', async () => {
    const broker = createTokenBroker({
      issuerUrl: IDP,
      realm: 'acme',
      ...CLIENT,
      authorize: () => true,
      allowedOrigins: ['https://app.example.com'],
      logger: () => {},
    });
    const response = await broker(
      brokerRequest({
        method: 'OPTIONS',
        csrf: false,
        headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET' },
      }),
    );
    assert.strictEqual(response.status, 204);
    assert.match(response.headers.get('access-control-allow-headers')!, /\bX-Refused-Token\b/);
  });

  describe('brokerTokenSource against a broker', () => {
    let server: Server | undefined;
    let seen: IncomingMessage[];
    afterEach(async () => {
      clearBrokerTokens();
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    });
    const serve = async (handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void) => {
      seen = [];
      server = createServer((req, res) => {
        seen.push(req);
        handler(req, res);
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server!.address() as { port: number }).port}/token`;
    };
    const middlewareRefusing = (refused: string) =>
      standardNetwork().on('POST', `${MW}/orchestrator/search`, (c) =>
        c.headers.get('authorization') === `Bearer ${refused}`
          ? json({ error: 'invalid_token' }, 401)
          : json({ candidates: [], searchId: 's' }),
      );

    it('after a 401 the broker client names the refused token by its hash, never the token, and the reference broker replaces it', async () => {
      const idp = fakeIdp();
      const url = await serve(
        toNodeHandler(
          createTokenBroker({
            issuerUrl: IDP,
            realm: 'acme',
            ...CLIENT,
            authorize: () => true,
            fetchImpl: idp.fetchImpl,
            logger: () => {},
          }),
        ),
      );
      const net = middlewareRefusing('tok-1');
      const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: brokerTokenSource(url) });
      await reader.search();
      assert.deepStrictEqual(
        net.callsTo(`${MW}/orchestrator/search`).map((c) => c.headers.get('authorization')),
        ['Bearer tok-1', 'Bearer tok-2'],
      );
      assert.deepStrictEqual(
        seen.map((r) => r.headers['x-refused-token']),
        [undefined, hashOf('tok-1')],
      );
      for (const r of seen) assert.notInclude(JSON.stringify(r.headers), 'tok-1');
    });

    it('a broker that ignores X-Refused-Token keeps working', async () => {
      let issued = 0;
      const url = await serve((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ access_token: `tok-${++issued}`, expires_in: 300 }));
      });
      const net = middlewareRefusing('tok-1');
      const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: brokerTokenSource(url) });
      await reader.search();
      assert.strictEqual(issued, 2);
    });

    it('a broker on another origin whose CORS refuses X-Refused-Token is asked again without it', async () => {
      const realFetch = globalThis.fetch;
      const asked: (string | null)[] = [];
      let issued = 0;
      globalThis.fetch = async (_url, init) => {
        const hash = new Headers(init?.headers).get('x-refused-token');
        asked.push(hash);
        if (hash) throw new TypeError('Failed to fetch'); // what a refused preflight looks like to a page
        return json({ access_token: `tok-${++issued}`, expires_in: 300 });
      };
      try {
        const net = middlewareRefusing('tok-1');
        const reader = createFingerprintReader({
          ...PIN,
          middlewareUrl: MW,
          fetchImpl: net.fetch,
          getToken: brokerTokenSource('https://broker.example.net/token'),
        });
        await reader.search();
        assert.deepStrictEqual(asked, [null, hashOf('tok-1'), null]);
      } finally {
        globalThis.fetch = realFetch;
      }
    });
  });
});
