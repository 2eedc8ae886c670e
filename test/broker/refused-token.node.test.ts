/**
 * A token the middleware refuses early can be replaced (docs/broker-contract.md, rule 13): after a 401
 * the broker client names the refused token by its hash in X-Refused-Token, and the reference broker
 * drops that token and exchanges again, at most once per token. Brokers that ignore the header keep working.
 * The header is untrusted input (src/broker/refused-token.ts): a token is replaced only once it was issued
 * refusedTokenMinAgeMs ago, and at most once per refusedTokenIntervalMs per cache key, across the
 * instances that share a store; a client that loops on it is counted, never served an exchange per request.
 * Time is the subject: Date is faked (installFakeDate), and each test moves it.
 */
import { assert } from 'chai';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import {
  DEFAULT_REFUSED_TOKEN_INTERVAL_MS,
  DEFAULT_REFUSED_TOKEN_MIN_AGE_MS,
  createTokenBroker,
  memoryTokenStore,
  toNodeHandler,
  type BrokerEvent,
  type TokenBrokerOptions,
  type TokenStore,
} from '../../src/broker/index.js';
import { brokerTokenSource, clearBrokerTokens, createFingerprintReader } from '../../src/index.js';
import { installFakeDate, type FakeClock } from '../support/fake-clock.js';
import { json } from '../support/fake-network.js';
import { MW, standardNetwork } from '../support/sdk-fixtures.js';
import { CLIENT, brokerRequest, readJson } from './support.js';

const IDP = 'https://idp.example.com';
const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');
/** Past the minimum age of a token that X-Refused-Token may replace, and past the interval between two. */
const AGED = DEFAULT_REFUSED_TOKEN_MIN_AGE_MS;
const INTERVAL = DEFAULT_REFUSED_TOKEN_INTERVAL_MS;

/** An identity provider that issues opaque tokens tok-1, tok-2, … and counts its exchanges. */
function fakeIdp() {
  const idp = {
    exchanges: 0,
    fetchImpl: async () => json({ access_token: `tok-${++idp.exchanges}`, expires_in: 300 }),
  };
  return idp;
}

/** A broker against `idp` that lets everyone in; its hint events are kept in `hints`. */
function brokerFor(idp: ReturnType<typeof fakeIdp>, overrides: Partial<TokenBrokerOptions> = {}) {
  const hints: string[] = [];
  const broker = createTokenBroker({
    issuerUrl: IDP,
    realm: 'acme',
    ...CLIENT,
    authorize: () => true,
    fetchImpl: idp.fetchImpl,
    logger: () => {},
    onEvent: (event: BrokerEvent) => void (event.type === 'refused-token' && hints.push(event.result)),
    ...overrides,
  });
  return { broker, hints };
}

const tokenOf = async (response: Response) => (await readJson(response)).access_token as string;
const refusing = (hash?: string) => brokerRequest(hash === undefined ? {} : { headers: { 'X-Refused-Token': hash } });
const counts = (results: string[]) => results.reduce<Record<string, number>>((all, r) => ({ ...all, [r]: (all[r] ?? 0) + 1 }), {});

let clock: FakeClock;
beforeEach(() => {
  // Date stands still until clock.tick; timers and sockets stay real.
  clock = installFakeDate();
});
afterEach(() => clock.restore());

describe('a refused token is replaced through the broker (X-Refused-Token)', () => {
  it('the reference broker drops its cached token and exchanges again only when X-Refused-Token is the hash of that token, once per token', async () => {
    const idp = fakeIdp();
    const { broker } = brokerFor(idp);
    assert.strictEqual(await tokenOf(await broker(refusing())), 'tok-1');
    clock.tick(AGED);
    assert.strictEqual(await tokenOf(await broker(refusing('not-the-hash'))), 'tok-1');
    assert.strictEqual(await tokenOf(await broker(refusing('tok-1'))), 'tok-1', 'the token itself is not a hash');
    assert.strictEqual(idp.exchanges, 1);
    assert.strictEqual(await tokenOf(await broker(refusing(hashOf('tok-1')))), 'tok-2');
    assert.strictEqual(await tokenOf(await broker(refusing(hashOf('tok-1')))), 'tok-2', 'once per token');
    assert.strictEqual(await tokenOf(await broker(refusing())), 'tok-2');
    assert.strictEqual(idp.exchanges, 2);
    clock.tick(INTERVAL);
    const burst = await Promise.all(Array.from({ length: 5 }, () => broker(refusing(hashOf('tok-2')))));
    assert.deepStrictEqual(await Promise.all(burst.map(tokenOf)), Array(5).fill('tok-3'));
    assert.strictEqual(idp.exchanges, 3, 'concurrent refusals of one token share one exchange');
  });

  it('in token-exchange mode a refused token is replaced for its user only', async () => {
    const idp = fakeIdp();
    const { broker } = brokerFor(idp, { tokenExchange: { subjectToken: (request) => request.headers.get('authorization')?.slice(7) } });
    const as = (user: string, hash?: string) =>
      brokerRequest({ headers: { Authorization: `Bearer ${user}`, ...(hash ? { 'X-Refused-Token': hash } : {}) } });
    assert.strictEqual(await tokenOf(await broker(as('alice-subject-token'))), 'tok-1');
    assert.strictEqual(await tokenOf(await broker(as('bob-subject-token'))), 'tok-2');
    clock.tick(AGED);
    assert.strictEqual(
      await tokenOf(await broker(as('bob-subject-token', hashOf('tok-1')))),
      'tok-2',
      "alice's token is not bob's to refuse",
    );
    assert.strictEqual(await tokenOf(await broker(as('alice-subject-token', hashOf('tok-1')))), 'tok-3');
    assert.strictEqual(await tokenOf(await broker(as('alice-subject-token', hashOf('tok-1')))), 'tok-3');
    // The interval is alice's: bob's token is replaced at once.
    assert.strictEqual(await tokenOf(await broker(as('bob-subject-token', hashOf('tok-2')))), 'tok-4');
    assert.strictEqual(idp.exchanges, 4);
  });

  describe('a client that loops on it ("ask, hash the answer, ask again with the hash")', () => {
    const STEP_MS = 100;
    const ROUNDS = 200;
    const DURATION_MS = STEP_MS * ROUNDS;
    type Handler = ReturnType<typeof brokerFor>['broker'];
    /**
     * The token `broker` answers `request` with, once the store writes that follow the answer landed: with
     * Date standing still between ticks, a wait on a lock would otherwise only end with the lock's life.
     */
    async function answer(broker: Handler, request: Request): Promise<string> {
      const writes: Promise<unknown>[] = [];
      const response = await broker(request, { waitUntil: (promise) => void writes.push(promise) });
      await Promise.all(writes);
      return tokenOf(response);
    }
    /**
     * ROUNDS requests STEP_MS apart (fake time), each naming the token the one before was answered; the
     * k-th goes to brokers[k % brokers.length]. Returns the exchanges they made.
     */
    async function loop(idp: ReturnType<typeof fakeIdp>, brokers: Handler[], ask = refusing) {
      let token = await answer(brokers[0]!, ask());
      const before = idp.exchanges;
      for (let k = 0; k < ROUNDS; k++) {
        clock.tick(STEP_MS);
        token = await answer(brokers[k % brokers.length]!, ask(hashOf(token)));
      }
      return idp.exchanges - before;
    }

    it(`client_credentials: ${ROUNDS} requests over 20 s make at most 1 + 20 s / refusedTokenIntervalMs exchanges (2, where the organisation's token was replaced ${ROUNDS} times), and each hint is counted`, async () => {
      const idp = fakeIdp();
      const { broker, hints } = brokerFor(idp);
      const exchanges = await loop(idp, [broker]);
      assert.isAtMost(exchanges, 1 + DURATION_MS / INTERVAL);
      // Honoured once tok-1 is a second old (at 1 s), then once the interval is over (at 11 s).
      assert.strictEqual(exchanges, 2);
      assert.deepStrictEqual(counts(hints), { 'too-young': 9, honoured: 2, 'too-soon': 189 });
    });

    it(`RFC 8693: one user's ${ROUNDS} requests make at most 1 + 20 s / refusedTokenIntervalMs exchanges, and other users' tokens are still replaced`, async () => {
      const idp = fakeIdp();
      const { broker, hints } = brokerFor(idp, {
        tokenExchange: { subjectToken: (request) => request.headers.get('authorization')?.slice(7) },
      });
      const as =
        (user: string) =>
        (hash?: string): Request =>
          brokerRequest({ headers: { Authorization: `Bearer ${user}`, ...(hash ? { 'X-Refused-Token': hash } : {}) } });
      const bob = await tokenOf(await broker(as('bob-subject-token')()));
      const exchanges = await loop(idp, [broker], as('mallory-subject-token'));
      assert.strictEqual(exchanges, 2);
      assert.deepStrictEqual(counts(hints), { 'too-young': 9, honoured: 2, 'too-soon': 189 });
      assert.notStrictEqual(await tokenOf(await broker(as('bob-subject-token')(hashOf(bob)))), bob, "bob's refused token is replaced");
    });

    it(`two instances sharing a store: the loop spread over both makes at most 1 + 20 s / refusedTokenIntervalMs exchanges together`, async () => {
      const idp = fakeIdp();
      const store = memoryTokenStore();
      const a = brokerFor(idp, { store });
      const b = brokerFor(idp, { store });
      // Each request names the token its own instance answered last: each instance is asked to replace.
      const tokens = [await answer(a.broker, refusing()), await answer(b.broker, refusing())];
      const before = idp.exchanges;
      for (let k = 0; k < ROUNDS; k++) {
        clock.tick(STEP_MS);
        const i = k % 2;
        tokens[i] = await answer([a, b][i]!.broker, refusing(hashOf(tokens[i]!)));
      }
      const exchanges = idp.exchanges - before;
      assert.isAtMost(exchanges, 1 + DURATION_MS / INTERVAL);
      assert.strictEqual(counts([...a.hints, ...b.hints]).honoured ?? 0, exchanges, 'each exchange was an honoured hint');
      assert.strictEqual(a.hints.length + b.hints.length, ROUNDS, 'every hint counted');
      // And each request naming the token the one before was answered, whichever instance answered it.
      assert.isAtMost(await loop(idp, [a.broker, b.broker]), 1 + DURATION_MS / INTERVAL);
    });

    it('a store that does not answer leaves each instance its own interval: at most 1 + duration / interval exchanges per instance', async () => {
      const idp = fakeIdp();
      const down = () => Promise.reject(new Error('down'));
      const store: TokenStore = { get: down, set: down, delete: down, setIfAbsent: down, compareAndDelete: down };
      const a = brokerFor(idp, { store });
      const b = brokerFor(idp, { store });
      const exchanges = await loop(idp, [a.broker, b.broker]);
      assert.isAtMost(exchanges, 2 * (1 + DURATION_MS / INTERVAL));
    });

    it('refusedTokenMinAgeMs and refusedTokenIntervalMs set the bounds', async () => {
      const idp = fakeIdp();
      const { broker, hints } = brokerFor(idp, { refusedTokenMinAgeMs: 50, refusedTokenIntervalMs: 2_000 });
      const exchanges = await loop(idp, [broker]);
      // At 100 ms (tok-1 is 100 ms old), then every 2 s: 100 ms, 2.1 s, …, 18.1 s.
      assert.strictEqual(exchanges, 10);
      assert.isAtMost(exchanges, 1 + DURATION_MS / 2_000);
      assert.deepStrictEqual(counts(hints), { honoured: 10, 'too-soon': 190 });
    });
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
      const url = await serve(toNodeHandler(brokerFor(idp).broker));
      const net = middlewareRefusing('tok-1');
      const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: brokerTokenSource(url) });
      // The page got its token a while before the middleware refuses it.
      await brokerTokenSource(url).get();
      clock.tick(AGED);
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

    it('a real refusal is still replaced at once: the middleware refuses a token served for longer than refusedTokenMinAgeMs, and the SDK retries with a new one, even right after a client looped on the header', async () => {
      const idp = fakeIdp();
      const { broker, hints } = brokerFor(idp);
      const url = await serve(toNodeHandler(broker));
      // Someone loops on the header: ignored while tok-1 is young.
      for (let i = 0; i < 20; i++) assert.strictEqual(await tokenOf(await broker(refusing(hashOf('tok-1')))), 'tok-1');
      assert.strictEqual(idp.exchanges, 1);
      clock.tick(AGED);
      const net = middlewareRefusing('tok-1');
      const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: brokerTokenSource(url) });
      await reader.search();
      assert.deepStrictEqual(
        net.callsTo(`${MW}/orchestrator/search`).map((c) => c.headers.get('authorization')),
        ['Bearer tok-1', 'Bearer tok-2'],
        'the first retry carries the replacement',
      );
      assert.strictEqual(idp.exchanges, 2);
      assert.deepStrictEqual(counts(hints), { 'too-young': 20, honoured: 1 });
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
