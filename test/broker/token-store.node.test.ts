/**
 * The shared token store (docs/broker.md, "Several instances") against a real redis-server on a unix
 * socket and the simulator's real identity provider: brokers sharing a store make one exchange per token
 * life, Redis holds nothing readable, a store that goes away costs no request, keys rotate.
 */
import { assert } from 'chai';
import { hashToken } from '../../src/core/token-cache.js';
import { randomBytes } from 'node:crypto';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import {
  DEFAULT_REFUSED_TOKEN_INTERVAL_MS,
  brokerOptionsFromEnv,
  memoryTokenStore,
  redisTokenStore,
  toNodeHandler,
  tokenStoreFromEnv,
  type BrokerEvent,
  type TokenBrokerOptions,
  type TokenStore,
} from '../../src/broker/index.js';
import { serve } from '../../broker/src/serve.js';
import { connectTokenStore } from '../../broker/src/serve-store.js';
import { startSessionCheck } from './bin-support.js';
import { startRedis, type RedisClient, type RunningRedis } from './redis-server.js';
import { checkBroker } from '../../broker/src/contract-check.js';
import { installFakeDate } from '../support/fake-clock.js';
import { json } from '../support/fake-network.js';
import { APP_ORIGIN, CLIENT, brokerAgainst, brokerRequest, readJson, startServer, verifyMiddlewareToken } from './support.js';

const KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');

let idp: RunningIdp;
let redis: RunningRedis;
let admin: RedisClient;

before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
  redis = await startRedis();
  admin = await redis.client();
});
beforeEach(async () => {
  const deadline = Date.now() + 5000;
  // After the outage test, this connection too may still be coming back (it fails at once while offline).
  while (!admin.isReady && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  // The last test's answers may still have writes on their way (a save, then a lock's release): once no
  // lock is left they landed, and cannot turn up in this test's Redis.
  while ((await scan()).some(({ value }) => LOCK_VALUE.test(value)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await admin.flushAll();
});
after(async () => {
  await redis.close();
  await idp.close();
});

const fromHeader = (request: Request) => request.headers.get('X-User-Token');
const asUser = (token: string) => brokerRequest({ headers: { 'X-User-Token': token } });

/** One broker instance with its own Redis connection, as a separate process would have. */
async function instance(overrides: Partial<TokenBrokerOptions> = {}, encryptionKey: string | string[] = KEY) {
  const client = await redis.client();
  const events: BrokerEvent[] = [];
  const store = redisTokenStore({ client, encryptionKey });
  // The counting tests must not fail open, nor give up waiting for another instance's exchange, because a
  // shared 2-core test machine stalled for a moment; the outage test uses the default bound.
  // The store's own events; request and exchange events are tested in test/broker/events.node.test.ts.
  const { broker, log } = brokerAgainst(idp, {
    store,
    storeTimeoutMs: 5000,
    storeLockWaitMs: 10_000,
    onEvent: (event) => void (event.type === 'store-error' && events.push(event)),
    ...overrides,
  });
  return { broker, log, client, events, store };
}
const exchangeInstance = (overrides: Partial<TokenBrokerOptions> = {}) =>
  instance({ tokenExchange: { subjectToken: fromHeader }, ...overrides });

async function tokenOf(response: Response): Promise<string> {
  assert.strictEqual(response.status, 200);
  return (await readJson(response)).access_token as string;
}

/** Every key name and raw value Redis holds. */
async function scan(): Promise<{ key: string; value: string }[]> {
  const keys = await admin.keys('*');
  return Promise.all(keys.map(async (key) => ({ key, value: (await admin.get(key)) ?? '' })));
}

/** A lock's value is a hex HMAC; a token's is a ciphertext in base64. */
const LOCK_VALUE = /^[0-9a-f]{64}$/;

/**
 * What Redis holds once the writes that follow an answer (the token's save, the lock's release, a delete)
 * landed: waits until it holds `count` tokens and no lock.
 */
async function settledStore(count: number, why: string): Promise<{ key: string; value: string }[]> {
  // A bound on a state that never comes, not a pace (the store settles in milliseconds when idle).
  const deadline = Date.now() + 8000;
  for (;;) {
    const entries = await scan();
    if (entries.length === count && !entries.some(({ value }) => LOCK_VALUE.test(value))) return entries;
    if (Date.now() > deadline) assert.fail(`${why}: Redis holds ${entries.length} entries`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A fetch that answers for the IdP that it refuses the subject tokens in `revoked` (a signed-out user). */
function refusingFetch(revoked: Set<string>) {
  return async (input: string, init?: RequestInit) => {
    const subject = new URLSearchParams(typeof init?.body === 'string' ? init.body : '').get('subject_token');
    if (subject && revoked.has(subject)) {
      return new Response(JSON.stringify({ error: 'invalid_grant' }), { status: 400, headers: { 'Content-Type': 'application/json' } });
    }
    return fetch(input, init);
  };
}

describe('shared token store: brokers on several instances share one Redis', () => {
  it('two brokers sharing a store make one client_credentials exchange for 50 cold requests', async () => {
    const a = await instance();
    const b = await instance();
    const before = idp.tokenRequests;
    const tokens = await Promise.all(Array.from({ length: 50 }, async (_, i) => tokenOf(await (i % 2 ? a : b).broker(brokerRequest()))));
    assert.strictEqual(idp.tokenRequests - before, 1, 'one exchange for both instances');
    assert.strictEqual(new Set(tokens).size, 1, 'both instances serve the one token');
    await verifyMiddlewareToken(idp, tokens[0]!);
    assert.deepStrictEqual([...a.events, ...b.events], [], 'no store error');
  });

  it('RFC 8693: twenty users, each served by both instances at once, cost twenty exchanges', async () => {
    const a = await exchangeInstance();
    const b = await exchangeInstance();
    const users = Array.from({ length: 20 }, (_, i) => `shared-user-${i}`);
    const subjects = await Promise.all(users.map((user) => idp.userToken(user)));
    const before = idp.tokenRequests;
    const pairs = await Promise.all(
      subjects.map(async (subject) => Promise.all([tokenOf(await a.broker(asUser(subject))), tokenOf(await b.broker(asUser(subject)))])),
    );
    assert.deepStrictEqual([...a.events, ...b.events], [], 'no store error');
    assert.strictEqual(idp.tokenRequests - before, users.length, 'one exchange per user across both instances');
    for (const [i, [fromA, fromB]] of pairs.entries()) {
      assert.strictEqual(fromA, fromB, `${users[i]} gets the same token from both instances`);
      assert.strictEqual((await verifyMiddlewareToken(idp, fromA!)).sub, users[i], "never another user's token");
    }
  });

  it('Redis holds no token, subject token, user id, client id or secret in clear: key names are HMACs, values ciphertexts', async () => {
    const machine = await instance();
    const machineToken = await tokenOf(await machine.broker(brokerRequest()));
    const a = await exchangeInstance();
    const users = ['scan-user-alice', 'scan-user-bob'];
    const subjects = await Promise.all(users.map((user) => idp.userToken(user)));
    const served = await Promise.all(subjects.map(async (subject) => tokenOf(await a.broker(asUser(subject)))));
    const entries = await settledStore(3, 'one entry per token (locks released)');
    const secrets = [machineToken, ...served, ...subjects, ...users, CLIENT.clientId, CLIENT.clientSecret, idp.baseUrl, KEY];
    // Pieces too: a JWT's payload alone names the user.
    const pieces = [machineToken, ...served, ...subjects].flatMap((jwt) => jwt.split('.'));
    for (const { key, value } of entries) {
      assert.match(key, /^bioid:broker:[0-9a-f]{64}$/);
      const decoded = Buffer.from(value, 'base64').toString('latin1');
      for (const secret of [...secrets, ...pieces]) {
        for (const text of [key, value, decoded]) assert.notInclude(text, secret, `Redis holds ${secret.slice(0, 16)}…`);
      }
    }
  });

  it('with Redis stopped mid-run every request still answers 200, without waiting for the store; once Redis is back the instances share again', async function () {
    this.timeout(30_000);
    const a = await exchangeInstance({ storeTimeoutMs: undefined });
    const b = await exchangeInstance({ storeTimeoutMs: undefined });
    const warm = await idp.userToken('outage-warm');
    await tokenOf(await a.broker(asUser(warm)));

    await redis.stop();
    try {
      const subjects = await Promise.all(Array.from({ length: 10 }, (_, i) => idp.userToken(`outage-user-${i}`)));
      const timed = async (broker: typeof a.broker, subject: string) => {
        const started = performance.now();
        const response = await broker(asUser(subject));
        return { status: response.status, ms: performance.now() - started };
      };
      const answers = await Promise.all([warm, ...subjects].flatMap((subject) => [timed(a.broker, subject), timed(b.broker, subject)]));
      for (const { status, ms } of answers) {
        assert.strictEqual(status, 200);
        // The time is the behaviour: a request that waited on the store would wait until Redis is back,
        // which is only after these answers. 22 requests with their IdP exchanges at once took over a
        // second on the loaded 2-core CI machine; 5 s is 50 times the store's default timeout (100 ms).
        assert.isBelow(ms, 5000, 'the store costs at most its timeout, never the request');
      }
      const events = [...a.events, ...b.events];
      assert.isNotEmpty(events, 'the outage is reported');
      for (const event of events) {
        assert.deepStrictEqual(Object.keys(event).sort(), ['kind', 'operation', 'type'], 'an event carries no token');
        assert.strictEqual(event.type, 'store-error');
      }
    } finally {
      // Restarted whatever happened: the next tests use this Redis.
      await redis.start();
    }
    const deadline = Date.now() + 10_000;
    while (!(a.client.isReady && b.client.isReady)) {
      if (Date.now() > deadline) throw new Error('the clients did not reconnect within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Sharing again, over the same two reconnected connections, with the counting tests' bounds: a stall of
    // the shared test machine past the default 100 ms (or 1 s of lock wait) would mean a second exchange.
    const over = (client: typeof a.client) =>
      brokerAgainst(idp, {
        store: redisTokenStore({ client, encryptionKey: KEY }),
        storeTimeoutMs: 5000,
        storeLockWaitMs: 10_000,
        tokenExchange: { subjectToken: fromHeader },
      }).broker;
    const back = await idp.userToken('after-outage');
    const before = idp.tokenRequests;
    const [fromA, fromB] = await Promise.all([over(a.client)(asUser(back)).then(tokenOf), over(b.client)(asUser(back)).then(tokenOf)]);
    assert.strictEqual(fromA, fromB);
    assert.strictEqual(idp.tokenRequests - before, 1, 'sharing resumed');
  });

  it('a lock request that answers after storeTimeoutMs still lands, and is released: the next instance reads the token instead of waiting on a lock nobody holds', async () => {
    const a = await instance({ storeTimeoutMs: 100 });
    // A lock left held would make B wait its whole timeoutMs (10 s) before exchanging itself.
    const b = await instance({ timeoutMs: 10_000 });
    // Redis holds back writes (reads still answer) until A has answered, not for a time: A's lock (SET NX)
    // lands only after A gave up on it, served its user and wrote the token, however slow the machine.
    await admin.sendCommand(['CLIENT', 'PAUSE', '60000', 'WRITE']);
    const before = idp.tokenRequests;
    let fromA: string;
    try {
      fromA = await tokenOf(await a.broker(brokerRequest()));
      assert.deepInclude(a.events, { type: 'store-error', operation: 'lock', kind: 'timeout' });
    } finally {
      await admin.sendCommand(['CLIENT', 'UNPAUSE']);
    }
    await settledStore(1, 'a lock stayed in Redis beside the token');
    const started = performance.now();
    assert.strictEqual(await tokenOf(await b.broker(brokerRequest())), fromA, 'B reads what A stored');
    assert.isBelow(performance.now() - started, 5_000, 'B did not wait on a lock');
    assert.strictEqual(idp.tokenRequests - before, 1);
  });

  it("a blocked event loop is this process's lag, not the store's: with the loop blocked for 1.5 bounds right after A's first store call began, while Redis answers at once, no timeout is reported and the token is shared", async () => {
    // A's first store call blocks the loop right after it began (as other work of a busy instance would):
    // the bound runs out before its command is even written. Redis answers as soon as it runs. The time is
    // the behaviour: the bound is 1 s rather than the default 100 ms because Redis is another process of
    // this busy 2-core machine, which may wait more than 100 ms for a core once the loop is free; the block
    // stays longer than the bound, which is what the test is about.
    const BOUND_MS = 1000;
    const blocked = (store: TokenStore): TokenStore => {
      let blocks = 1;
      const block = <T>(pending: Promise<T>) => {
        if (blocks-- <= 0) return pending;
        const until = performance.now() + 1.5 * BOUND_MS;
        while (performance.now() < until);
        return pending;
      };
      return {
        get: (key) => block(store.get(key)),
        set: (key, value, ttlMs) => block(store.set(key, value, ttlMs)),
        delete: (key) => block(store.delete(key)),
        setIfAbsent: (key, value, ttlMs) => block(store.setIfAbsent(key, value, ttlMs)),
        compareAndDelete: (key, value) => block(store.compareAndDelete(key, value)),
      };
    };
    const client = await redis.client();
    const aEvents: BrokerEvent[] = [];
    const a = brokerAgainst(idp, {
      store: blocked(redisTokenStore({ client, encryptionKey: KEY })),
      storeTimeoutMs: BOUND_MS,
      onEvent: (event) => void (event.type === 'store-error' && aEvents.push(event)),
      tokenExchange: { subjectToken: fromHeader },
    }).broker;
    const b = await exchangeInstance();
    const subject = await idp.userToken('blocked-loop-user');
    const before = idp.tokenRequests;
    const fromA = await tokenOf(await a(asUser(subject)));
    await settledStore(1, 'the token was saved and the lock released');
    assert.deepStrictEqual(aEvents, [], 'no store-error: the store answered in time, the process did not');
    assert.strictEqual(await tokenOf(await b.broker(asUser(subject))), fromA, 'B reads what A stored');
    assert.strictEqual(idp.tokenRequests - before, 1);
  });

  it('a stalled Redis (SIGSTOP) on an idle instance still fails open at about the default bound', async () => {
    const a = await exchangeInstance({ storeTimeoutMs: undefined });
    const subject = await idp.userToken('stalled-redis-user');
    redis.freeze();
    try {
      const started = performance.now();
      assert.strictEqual((await a.broker(asUser(subject))).status, 200);
      // About one bound (100 ms) and the exchange. The time is the behaviour: without the bound the answer
      // would wait for the thaw; 5 s is a margin a loaded 2-core machine meets.
      assert.isBelow(performance.now() - started, 5_000, 'the read timed out after about 100 ms, then the exchange');
      assert.deepInclude(a.events, { type: 'store-error', operation: 'get', kind: 'timeout' });
    } finally {
      redis.thaw();
    }
  });

  it('a subject token the IdP refuses is deleted from the store, so another instance refuses it right after instead of serving what was cached', async () => {
    const revoked = new Set<string>();
    const fetchImpl = refusingFetch(revoked);
    const alice = await idp.userToken('revoked-alice');
    // An instance that served alice earlier left her token in the store.
    const earlier = await exchangeInstance({ fetchImpl });
    await tokenOf(await earlier.broker(asUser(alice)));
    await settledStore(1, 'her token is stored');

    revoked.add(alice); // signed out at the identity provider
    // Instance A cannot read the store this time (a dropped connection), so it asks the IdP: refused.
    const aClient = await redis.client();
    const aStore = redisTokenStore({ client: aClient, encryptionKey: KEY });
    const unreadable: TokenStore = { ...aStore, get: () => Promise.reject(new Error('connection reset')) };
    const aEvents: BrokerEvent[] = [];
    const a = brokerAgainst(idp, {
      store: unreadable,
      fetchImpl,
      tokenExchange: { subjectToken: fromHeader },
      onEvent: (e) => void (e.type === 'store-error' && aEvents.push(e)),
    });
    assert.strictEqual((await a.broker(asUser(alice))).status, 502);
    assert.deepStrictEqual(aEvents, [{ type: 'store-error', operation: 'get', kind: 'error' }]);
    await settledStore(0, 'her entry is still in the store');

    // Instance B has nothing of alice locally: without the deletion it would serve the stored token.
    const b = await exchangeInstance({ fetchImpl });
    assert.strictEqual((await b.broker(asUser(alice))).status, 502);
  });

  it('a token the middleware refused (X-Refused-Token) is dropped from the store too: no instance serves it again', async () => {
    const a = await instance({ refusedTokenMinAgeMs: 1 });
    const b = await instance({ refusedTokenMinAgeMs: 1 });
    const first = await tokenOf(await a.broker(brokerRequest()));
    assert.strictEqual(await tokenOf(await b.broker(brokerRequest())), first, 'shared through the store');
    // Older than refusedTokenMinAgeMs (a timer never fires early).
    await new Promise((resolve) => setTimeout(resolve, 5));
    const refused = await hashToken(first);
    const replaced = await tokenOf(await b.broker(brokerRequest({ headers: { 'X-Refused-Token': refused } })));
    assert.notStrictEqual(replaced, first);
    const c = await instance();
    assert.strictEqual(
      await tokenOf(await c.broker(brokerRequest())),
      replaced,
      'a new instance reads the replacement, not the refused token',
    );
  });

  it("a deleted entry written back (a captured ciphertext, without an expiry) is served again only until the expiry sealed inside it, however long Redis keeps it: the bound of docs/security.md's claim 27", async () => {
    const clock = installFakeDate();
    try {
      let issued = 0;
      const fetchImpl = async () => json({ access_token: `replay-tok-${++issued}`, expires_in: 300 });
      const ask = async (broker: Awaited<ReturnType<typeof instance>>['broker'], headers: Record<string, string> = {}) => {
        const writes: Promise<unknown>[] = [];
        const response = await broker(brokerRequest({ headers }), { waitUntil: (promise) => void writes.push(promise) });
        await Promise.all(writes);
        return tokenOf(response);
      };
      const a = await instance({ fetchImpl, refusedTokenMinAgeMs: 1 });
      const first = await ask(a.broker);
      const [captured] = await settledStore(1, 'the token is stored');
      // The middleware refuses it: the broker deletes it from the store and stores its replacement.
      clock.tick(5);
      const replaced = await ask(a.broker, { 'X-Refused-Token': await hashToken(first) });
      assert.notStrictEqual(replaced, first);

      // Someone who can write to Redis (and read it before) writes the captured value back, for ever.
      await admin.set(captured!.key, captured!.value);
      assert.strictEqual(await admin.pTTL(captured!.key), -1, 'no expiry in Redis');
      // It decrypts under its own name, so an instance without a local copy serves it while its sealed
      // expiry (issued + expires_in, less the 2 s a token must have left) allows: the replay claim 27 admits.
      clock.tick(298_000 - 5 - 1);
      assert.strictEqual(await ask((await instance({ fetchImpl })).broker), first, 'within its sealed expiry');
      // Past it, no instance serves it, though Redis still holds it: the next one exchanges.
      clock.tick(2);
      assert.strictEqual(await admin.get(captured!.key), captured!.value, 'still in Redis');
      const after = await ask((await instance({ fetchImpl })).broker);
      assert.notInclude([first, replaced], after);
      assert.strictEqual(issued, 3, 'the written-back token stopped being served at its sealed expiry');
    } finally {
      clock.uninstall();
    }
  });

  /**
   * The client_credentials lock as someone with write access to Redis would plant it: under the name a
   * broker's store writes (learned from one cold request of a broker for CLIENT at `idp`), without an
   * expiry. Redis then holds that lock alone. Returns its name in Redis, its key and the store that wrote it.
   */
  async function plantLock() {
    const locks: string[] = [];
    const store = redisTokenStore({ client: await redis.client(), encryptionKey: KEY });
    const learning = brokerAgainst(idp, {
      store: { ...store, setIfAbsent: (key, value, ttlMs) => (locks.push(key), store.setIfAbsent(key, value, ttlMs)) },
    });
    await tokenOf(await learning.broker(brokerRequest()));
    await settledStore(1, 'the token was stored and the lock released');
    await admin.flushAll();
    assert.isTrue(await store.setIfAbsent(locks[0]!, 'planted', 60_000));
    const [name] = await admin.keys('*');
    await admin.persist(name!);
    assert.strictEqual(await admin.pTTL(name!), -1, 'no expiry');
    return { name: name!, key: locks[0]!, store };
  }

  it("a lock someone planted without an expiry (the lock's name never changes) costs a cold instance no wait: it reads once, exchanges, stores its token for the others and reports store-error lock held; the lock's life is read with PTTL", async () => {
    const { name, key, store: planter } = await plantLock();
    try {
      await pastPlantedLock(name, key, planter);
    } finally {
      // The next test's start waits for locks to go: this one never would.
      await admin.del(name);
    }
  });

  async function pastPlantedLock(name: string, key: string, planter: TokenStore) {
    assert.strictEqual(await planter.remainingMs!(key), Infinity);
    assert.strictEqual(await planter.remainingMs!('no such key'), undefined);

    // An instance with its own connection, whose reads are counted, and whose IdP timeout (how long a
    // lock was waited on before) is far beyond this test's.
    const store = redisTokenStore({ client: await redis.client(), encryptionKey: KEY });
    let reads = 0;
    const events: BrokerEvent[] = [];
    const { broker } = brokerAgainst(idp, {
      store: { ...store, get: (key) => ((reads += 1), store.get(key)) },
      storeTimeoutMs: 5000,
      timeoutMs: 120_000,
      onEvent: (event) => void (event.type === 'store-error' && events.push(event)),
    });
    const before = idp.tokenRequests;
    const token = await tokenOf(await broker(brokerRequest()));
    assert.strictEqual(reads, 1, 'one read, no polling for a lock no broker sets');
    assert.deepStrictEqual(events, [{ type: 'store-error', operation: 'lock', kind: 'held' }]);
    assert.strictEqual(idp.tokenRequests - before, 1);
    // The next instance reads that token: the planted lock costs one exchange, not one per instance.
    for (const deadline = Date.now() + 2000; (await admin.keys('*')).length < 2;) {
      if (Date.now() > deadline) assert.fail('the token was not stored beside the planted lock');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const b = await instance({ timeoutMs: 120_000 });
    assert.strictEqual(await tokenOf(await b.broker(brokerRequest())), token);
    assert.strictEqual(idp.tokenRequests - before, 1);
    assert.strictEqual(await admin.pTTL(name), -1, 'the planted lock is left as it is');
  }

  it('bioid-broker serve past a planted lock: no wait (its store keeps PTTL through its tracing), the store-error line says "lock held" and bioid_broker_store_errors_total{operation="lock"} counts it', async () => {
    const { name } = await plantLock();
    const sessions = await startSessionCheck(['alice']);
    const lines: Record<string, unknown>[] = [];
    const sidecar = await serve({
      env: {
        BIOID_CLIENT_ID: CLIENT.clientId,
        BIOID_CLIENT_SECRET: CLIENT.clientSecret,
        BIOID_AUTH_URL: idp.baseUrl,
        BIOID_REALM: idp.realm,
        BIOID_SESSION_CHECK_URL: `${sessions.url}/session`,
        BIOID_PORT: '0',
        BIOID_METRICS_PORT: '0',
        BIOID_TOKEN_STORE_URL: `unix://${redis.socket}`,
        BIOID_TOKEN_STORE_KEY: KEY,
        BIOID_TOKEN_STORE_TIMEOUT_MS: '5000',
        // Far beyond this test: a wait on the lock (as before) would fail it.
        BIOID_TIMEOUT_MS: '120000',
        BIOID_TOKEN_STORE_LOCK_WAIT_MS: '120000',
      },
      write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>),
      storeReadyWaitMs: 60_000,
    });
    try {
      for (const deadline = Date.now() + 10_000; (await fetch(`${sidecar.url}/readyz`)).status !== 200;) {
        if (Date.now() > deadline) assert.fail('the store did not answer within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const before = idp.tokenRequests;
      await tokenOf(await fetch(`${sidecar.url}/`, { headers: { 'X-CSRF': '1', Cookie: 'sid=alice' } }));
      assert.strictEqual(idp.tokenRequests - before, 1);
      const metrics = await (await fetch(sidecar.metricsUrl!)).text();
      assert.match(metrics, /^bioid_broker_store_errors_total\{operation="lock"\} 1$/m);
      const line = lines.find((l) => l.event === 'store-error');
      assert.deepInclude(line, { level: 'warn', failure: 'lock held' });
    } finally {
      await sidecar.close();
      await sessions.close();
      await admin.del(name);
    }
  });

  it('X-Refused-Token looped over two instances sharing Redis: 200 requests over 20 s make at most 1 + 20 s / refusedTokenIntervalMs exchanges together', async () => {
    const clock = installFakeDate();
    try {
      let issued = 0;
      const fetchImpl = async () => json({ access_token: `loop-tok-${++issued}`, expires_in: 300 });
      const a = await instance({ fetchImpl });
      const b = await instance({ fetchImpl });
      // Each request's store writes (a save, a lock's release) land before the next request: with Date
      // standing still between ticks, a wait on a lock would otherwise only end with the lock's life.
      const ask = async (broker: typeof a.broker, headers: Record<string, string> = {}) => {
        const writes: Promise<unknown>[] = [];
        const response = await broker(brokerRequest({ headers }), { waitUntil: (promise) => void writes.push(promise) });
        await Promise.all(writes);
        return tokenOf(response);
      };
      // Each request names the token its own instance answered last: each instance is asked to replace.
      const tokens = [await ask(a.broker), await ask(b.broker)];
      const before = issued;
      for (let k = 0; k < 200; k++) {
        clock.tick(100);
        const i = k % 2;
        tokens[i] = await ask([a, b][i]!.broker, { 'X-Refused-Token': await hashToken(tokens[i]!) });
      }
      assert.isAtMost(issued - before, 1 + 20_000 / DEFAULT_REFUSED_TOKEN_INTERVAL_MS);
      assert.isAtLeast(issued - before, 1, 'a refusal was honoured');
      assert.deepStrictEqual([...a.events, ...b.events], [], 'no store error');
    } finally {
      clock.restore();
    }
  });

  it("when a user's subject token changes, the entry of the earlier one is dropped from the store too", async () => {
    const a = await exchangeInstance();
    const first = await idp.userToken('changing-alice');
    await tokenOf(await a.broker(asUser(first)));
    // Signed in again: a new subject token for the same user, exchanged on instance A.
    const second = await idp.userToken('changing-alice');
    assert.notStrictEqual(second, first);
    await tokenOf(await a.broker(asUser(second)));
    await settledStore(1, "the earlier subject token's entry is still in the store");
    // Instance B, shown the earlier subject token, asks the IdP again instead of serving the stored token.
    const b = await exchangeInstance();
    const before = idp.tokenRequests;
    await tokenOf(await b.broker(asUser(first)));
    assert.strictEqual(idp.tokenRequests - before, 1);
  });

  it('bioid-broker check passes a broker that shares its tokens through the store', async () => {
    const signedIn = (request: Request) => /(^|;\s*)sid=alice(;|$)/.test(request.headers.get('cookie') ?? '');
    const { broker } = await instance({ allowedOrigins: [APP_ORIGIN], authorize: signedIn });
    const server = await startServer(toNodeHandler(broker));
    try {
      const results = await checkBroker(`${server.url}/token`, { cookie: 'sid=alice', origin: APP_ORIGIN });
      assert.deepStrictEqual(
        results.filter((r) => r.status === 'fail').map((r) => `${r.rule}: ${r.notes.join('; ')}`),
        [],
      );
      assert.isAbove((await scan()).length, 0, 'the token went through the store');
    } finally {
      await server.close();
    }
  });

  it("a value copied under another key does not decrypt: one user's stored token never serves another", async () => {
    const a = await exchangeInstance();
    const alice = await idp.userToken('copy-alice');
    const bob = await idp.userToken('copy-bob');
    await tokenOf(await a.broker(asUser(alice)));
    const aliceKey = (await settledStore(1, "alice's token is stored"))[0]!.key;
    await tokenOf(await a.broker(asUser(bob)));
    const bobKey = (await settledStore(2, "bob's token is stored")).find(({ key }) => key !== aliceKey)!.key;
    // Someone with write access to Redis puts alice's value under bob's key.
    await admin.set(bobKey, (await admin.get(aliceKey))!);

    const b = await exchangeInstance();
    const before = idp.tokenRequests;
    const token = await tokenOf(await b.broker(asUser(bob)));
    assert.strictEqual((await verifyMiddlewareToken(idp, token)).sub, 'copy-bob');
    assert.strictEqual(idp.tokenRequests - before, 1, 'the copied value read as absent, so bob was exchanged');
    await settledStore(2, "bob's new token is stored and B's lock released");

    // And at the store itself: a copied or altered value is absent.
    const store = redisTokenStore({ client: admin, encryptionKey: KEY });
    await store.set('first', 'value one', 60_000);
    const firstName = (await admin.keys('*')).find((key) => key !== aliceKey && key !== bobKey)!;
    await store.set('second', 'value two', 60_000);
    const secondName = (await admin.keys('*')).find((key) => ![aliceKey, bobKey, firstName].includes(key))!;
    const sealed = (await admin.get(firstName))!;
    await admin.set(secondName, sealed);
    assert.strictEqual(await store.get('second'), undefined);
    assert.strictEqual(await store.get('first'), 'value one');
    await admin.set(firstName, `${sealed.slice(0, 20)}${sealed[20] === 'A' ? 'B' : 'A'}${sealed.slice(21)}`);
    assert.strictEqual(await store.get('first'), undefined, 'an altered value is absent');
  });

  it('rotation: with [new, old] the old key still decrypts and the new one encrypts', async () => {
    const old = redisTokenStore({ client: admin, encryptionKey: KEY });
    await old.set('before rotation', 'v1', 60_000);
    const rotated = redisTokenStore({ client: admin, encryptionKey: [NEW_KEY, KEY] });
    assert.strictEqual(await rotated.get('before rotation'), 'v1');
    await rotated.set('after rotation', 'v2', 60_000);
    assert.strictEqual(await old.get('after rotation'), undefined, 'the old key alone does not read what the new one wrote');
    assert.strictEqual(await redisTokenStore({ client: admin, encryptionKey: NEW_KEY }).get('after rotation'), 'v2');
    assert.strictEqual(
      await redisTokenStore({ client: admin, encryptionKey: `${NEW_KEY},${KEY}` }).get('before rotation'),
      'v1',
      'a comma-separated list too',
    );
    const other = randomBytes(32).toString('base64');
    assert.strictEqual(
      await redisTokenStore({ client: admin, encryptionKey: other }).get('before rotation'),
      undefined,
      'another key reads nothing',
    );

    // Brokers: an instance already rotated serves what an instance on the old key stored.
    await admin.flushAll();
    const before = idp.tokenRequests;
    const first = await tokenOf(await (await instance({}, KEY)).broker(brokerRequest()));
    const second = await tokenOf(await (await instance({}, [NEW_KEY, KEY])).broker(brokerRequest()));
    assert.strictEqual(second, first);
    assert.strictEqual(idp.tokenRequests - before, 1);
  });

  it('bioid-broker serve shares tokens through BIOID_TOKEN_STORE_URL and BIOID_TOKEN_STORE_KEY: two sidecars, one exchange', async () => {
    const sessions = await startSessionCheck(['alice']);
    const env = {
      BIOID_CLIENT_ID: CLIENT.clientId,
      BIOID_CLIENT_SECRET: CLIENT.clientSecret,
      BIOID_AUTH_URL: idp.baseUrl,
      BIOID_REALM: idp.realm,
      BIOID_ALLOWED_ORIGINS: APP_ORIGIN,
      BIOID_SESSION_CHECK_URL: `${sessions.url}/session`,
      BIOID_PORT: '0',
      BIOID_TOKEN_STORE_URL: `unix://${redis.socket}`,
      BIOID_TOKEN_STORE_KEY: KEY,
      BIOID_TOKEN_STORE_TIMEOUT_MS: '5000',
      // Counted: the second sidecar must wait for the first one's exchange however busy the machine.
      BIOID_TOKEN_STORE_LOCK_WAIT_MS: '10000',
    };
    const lines: string[] = [];
    const connections = async () =>
      String(await admin.sendCommand(['CLIENT', 'LIST']))
        .split('\n')
        .filter(Boolean).length;
    const already = await connections();
    const one = await serve({ env, write: (line) => void lines.push(line) });
    const two = await serve({ env, write: (line) => void lines.push(line) });
    try {
      // The sidecars connect in the background: ask once both connections are in.
      const deadline = Date.now() + 10_000;
      while ((await connections()) < already + 2) {
        if (Date.now() > deadline) throw new Error('the sidecars did not connect to Redis within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const before = idp.tokenRequests;
      const ask = (url: string) => fetch(`${url}/`, { headers: { 'X-CSRF': '1', Cookie: 'sid=alice' } });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i % 2 ? one.url : two.url)));
      const tokens = await Promise.all(answers.map(tokenOf));
      assert.strictEqual(new Set(tokens).size, 1);
      assert.strictEqual(idp.tokenRequests - before, 1);
      const listening = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.event === 'listening')!;
      assert.strictEqual(listening.store, `unix://${redis.socket}`);
      assert.notInclude(lines.join('\n'), KEY);
    } finally {
      await one.close();
      await two.close();
      await sessions.close();
    }
  });

  it('bioid-broker serve starts and serves while its Redis is unreachable, logging the connection error once a minute at most', async () => {
    const sessions = await startSessionCheck(['alice']);
    const env = {
      BIOID_CLIENT_ID: CLIENT.clientId,
      BIOID_CLIENT_SECRET: CLIENT.clientSecret,
      BIOID_AUTH_URL: idp.baseUrl,
      BIOID_REALM: idp.realm,
      BIOID_SESSION_CHECK_URL: `${sessions.url}/session`,
      BIOID_PORT: '0',
      BIOID_TOKEN_STORE_URL: `unix://${redis.socket}.absent`,
      BIOID_TOKEN_STORE_KEY: KEY,
    };
    const lines: Record<string, unknown>[] = [];
    const sidecar = await serve({ env, write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    try {
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${sidecar.url}/`, { headers: { 'X-CSRF': '1', Cookie: 'sid=alice' } });
        assert.strictEqual(response.status, 200);
        await response.arrayBuffer();
      }
      // Long enough for the client to retry its connection several times.
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.strictEqual(lines.filter((line) => line.event === 'store-connection-error').length, 1, JSON.stringify(lines));
      assert.strictEqual(lines.filter((line) => line.event === 'store-error').length, 1, 'store failures: one line, the rest counted');
    } finally {
      await sidecar.close();
      await sessions.close();
    }
  });
});

describe('bioid-broker serve: a store that stops answering with its connection still open', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Until `done()`, at most `ms`. */
  async function until(done: () => boolean | Promise<boolean>, ms: number, why: string): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await done())) {
      if (Date.now() > deadline) assert.fail(why);
      await sleep(20);
    }
  }

  it('frozen (SIGSTOP), it holds at most maxQueued commands, and fails them all once nothing came for socketTimeoutMs; a healthy idle connection is kept, and the store is used again once it thaws', async function () {
    this.timeout(20_000);
    // The sidecar's limits scaled down (STORE_CONNECTION: a PING a second, 5 s, 5000), so the test takes seconds.
    const limits = { pingIntervalMs: 250, socketTimeoutMs: 1_000, maxQueued: 200 };
    const frozen = await startRedis();
    const lines: Record<string, unknown>[] = [];
    const settings = tokenStoreFromEnv({ BIOID_TOKEN_STORE_URL: `unix://${frozen.socket}`, BIOID_TOKEN_STORE_KEY: KEY })!;
    // The client's GETs, counted where they reach node-redis: the store first computes each key's name
    // (an HMAC on the thread pool), so a count of the store's calls would include ones not yet queued.
    let sent = 0;
    let waiting = 0;
    const counted = async () => {
      const redisModule = await import('redis');
      return {
        createClient(options: Parameters<typeof redisModule.createClient>[0]) {
          const client = redisModule.createClient(options);
          const get = client.get.bind(client);
          return Object.assign(client, {
            get: (key: string) => {
              sent += 1;
              waiting += 1;
              return get(key).finally(() => void (waiting -= 1));
            },
          });
        },
      };
    };
    const connected = await connectTokenStore(settings, (fields) => void lines.push(fields), counted, limits);
    try {
      await until(() => connected.answered(), 5_000, 'the store did not answer within 5 s');
      await sleep(2 * limits.socketTimeoutMs);
      assert.deepStrictEqual(lines, [], 'idle and healthy: the PINGs keep the connection');
      await connected.store.set('kept', 'yes', 60_000);

      frozen.freeze();
      let settled = 0;
      let answered = 0;
      let most = 0;
      const asked = 1_000;
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 100; i++) {
          connected.store.get(`stalled-${round}-${i}`).then(
            () => void ((settled += 1), (answered += 1)),
            () => void (settled += 1),
          );
        }
        // Every GET of the round reached the client (queued, or refused at once): now count what waits.
        // Until the socket timeout fails them all, nothing leaves the queue but refusals.
        await until(() => sent === (round + 1) * 100, 10_000, `round ${round}: the GETs never reached the client`);
        await new Promise((resolve) => setImmediate(resolve));
        most = Math.max(most, waiting);
      }
      assert.isAtMost(most, limits.maxQueued, 'commands waiting on the frozen store');
      // The bound is the behaviour under test (socketTimeoutMs), with seconds to spare on a loaded machine.
      await until(() => settled === asked, limits.socketTimeoutMs + 5_000, `${asked - settled} commands still wait on the frozen store`);
      assert.strictEqual(answered, 0, 'every one failed');
      assert.include(lines.map((line) => line.event).join(), 'store-connection-error');

      frozen.thaw();
      await until(
        () =>
          connected.store.get('kept').then(
            (value) => value === 'yes',
            () => false,
          ),
        10_000,
        'the store was not used again within 10 s of thawing',
      );
    } finally {
      connected.close();
      await frozen.close();
    }
  });
});

describe('bioid-broker serve: a store that wants credentials (BIOID_TOKEN_STORE_USERNAME, BIOID_TOKEN_STORE_PASSWORD)', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const sidecarEnv = (sessionCheckUrl: string, store: Record<string, string>) => ({
    BIOID_CLIENT_ID: CLIENT.clientId,
    BIOID_CLIENT_SECRET: CLIENT.clientSecret,
    BIOID_AUTH_URL: idp.baseUrl,
    BIOID_REALM: idp.realm,
    BIOID_SESSION_CHECK_URL: sessionCheckUrl,
    BIOID_PORT: '0',
    BIOID_TOKEN_STORE_KEY: KEY,
    BIOID_TOKEN_STORE_TIMEOUT_MS: '5000',
    // Counted (one exchange for two sidecars): no giving up on the other's lock on a busy machine.
    BIOID_TOKEN_STORE_LOCK_WAIT_MS: '10000',
    ...store,
  });
  /**
   * A redis-server on a free TCP port of 127.0.0.1 (it cannot be asked for port 0 and tell which it took):
   * a port found free, tried again with another if a process of the other test files took it first.
   */
  const redisOnFreePort = async (args: readonly string[]): Promise<{ redis: RunningRedis; port: number }> => {
    for (let attempt = 1; ; attempt += 1) {
      const probe = await startServer((_req, res) => res.end());
      const port = Number(new URL(probe.url).port);
      await probe.close();
      try {
        return { redis: await startRedis(['--port', String(port), '--bind', '127.0.0.1', ...args]), port };
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  };

  /**
   * Two sidecars on `store`: both turn ready (the store answered their PING, so it took their
   * credentials), and ten requests to them make one exchange. Returns every line they wrote.
   */
  async function twoShare(store: Record<string, string>): Promise<string[]> {
    const sessions = await startSessionCheck(['alice']);
    const env = sidecarEnv(`${sessions.url}/session`, store);
    const lines: string[] = [];
    // storeReadyWaitMs far beyond the test: /readyz turns 200 only once the store answered.
    const one = await serve({ env, write: (line) => void lines.push(line), storeReadyWaitMs: 60_000 });
    const two = await serve({ env, write: (line) => void lines.push(line), storeReadyWaitMs: 60_000 });
    try {
      for (const sidecar of [one, two]) {
        const deadline = Date.now() + 10_000;
        while ((await fetch(`${sidecar.url}/readyz`)).status !== 200) {
          if (Date.now() > deadline) assert.fail(`/readyz did not turn 200 within 10 s:\n${lines.join('\n')}`);
          await sleep(50);
        }
      }
      const before = idp.tokenRequests;
      const ask = (url: string) => fetch(`${url}/`, { headers: { 'X-CSRF': '1', Cookie: 'sid=alice' } });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i % 2 ? one.url : two.url)));
      const tokens = await Promise.all(answers.map(tokenOf));
      assert.strictEqual(new Set(tokens).size, 1);
      assert.strictEqual(idp.tokenRequests - before, 1, 'one exchange: the second sidecar read the first one’s token from the store');
    } finally {
      await one.close();
      await two.close();
      await sessions.close();
    }
    return lines;
  }

  /** One sidecar on `store`, past the readiness wait: /readyz's status and the store-connection-error line. */
  async function refused(store: Record<string, string>) {
    const sessions = await startSessionCheck(['alice']);
    const lines: string[] = [];
    const sidecar = await serve({
      env: sidecarEnv(`${sessions.url}/session`, store),
      write: (line) => void lines.push(line),
      storeReadyWaitMs: 300,
    });
    try {
      // Connected, refused, and past a PING of the client's interval (a second) and the wait too.
      await sleep(1_500);
      const ready = await fetch(`${sidecar.url}/readyz`);
      const body = await ready.text();
      const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.event === 'store-connection-error');
      assert.ok(line, `a store-connection-error line among ${lines.join('\n')}`);
      return { status: ready.status, body, line, lines };
    } finally {
      await sidecar.close();
      await sessions.close();
    }
  }

  it('a unix socket with requirepass: with BIOID_TOKEN_STORE_PASSWORD the sidecars turn ready and share tokens; without it, or with a wrong one, /readyz stays 503 and the hint names the variable; no line holds a password', async function () {
    this.timeout(30_000);
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const wrong = `wrong-${randomBytes(12).toString('hex')}`;
    const locked = await startRedis(['--requirepass', password]);
    try {
      const url = `unix://${locked.socket}`;
      const lines = await twoShare({ BIOID_TOKEN_STORE_URL: url, BIOID_TOKEN_STORE_PASSWORD: password });
      const listening = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.event === 'listening')!;
      assert.strictEqual(listening.store, url);

      const without = await refused({ BIOID_TOKEN_STORE_URL: url });
      assert.strictEqual(without.status, 503);
      assert.deepStrictEqual(JSON.parse(without.body), { status: 'unready', reason: 'store-not-answered' });
      assert.strictEqual(without.line.error, 'authentication failed (NOAUTH)');
      assert.match(String(without.line.fix), /^set BIOID_TOKEN_STORE_PASSWORD to the password the store accepts/);
      assert.notMatch(String(without.line.fix), /does not carry/, 'a unix:// store can be given a password now');

      const mistaken = await refused({ BIOID_TOKEN_STORE_URL: url, BIOID_TOKEN_STORE_PASSWORD: wrong });
      assert.strictEqual(mistaken.status, 503);
      assert.strictEqual(mistaken.line.error, 'authentication failed (WRONGPASS)');
      assert.match(String(mistaken.line.fix), /BIOID_TOKEN_STORE_PASSWORD/);

      for (const text of [...lines, ...without.lines, without.body, ...mistaken.lines, mistaken.body]) {
        assert.notInclude(text, password);
        assert.notInclude(text, wrong);
      }
    } finally {
      await locked.close();
    }
  });

  it('an ACL user over redis:// on 127.0.0.1: with BIOID_TOKEN_STORE_USERNAME and BIOID_TOKEN_STORE_PASSWORD the sidecars turn ready and share tokens; the password alone is refused; no line holds either value', async function () {
    this.timeout(30_000);
    const user = `bioid-${randomBytes(4).toString('hex')}`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    // The default user is off: only the ACL user gets in, with the keys and commands docs/operations.md
    // says the broker needs ("The store's credentials"), and no others.
    const { redis: acl, port } = await redisOnFreePort([
      ...['--user', 'default', 'off'],
      ...['--user', user, 'on', `>${password}`, '~bioid:broker:*', '+get', '+set', '+del', '+eval', '+pttl', '+ping'],
    ]);
    try {
      const url = `redis://127.0.0.1:${port}`;
      const lines = await twoShare({ BIOID_TOKEN_STORE_URL: url, BIOID_TOKEN_STORE_USERNAME: user, BIOID_TOKEN_STORE_PASSWORD: password });
      const listening = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.event === 'listening')!;
      assert.strictEqual(listening.store, url);

      const noUser = await refused({ BIOID_TOKEN_STORE_URL: url, BIOID_TOKEN_STORE_PASSWORD: password });
      assert.strictEqual(noUser.status, 503);
      assert.strictEqual(noUser.line.error, 'authentication failed (WRONGPASS)');
      assert.match(String(noUser.line.fix), /BIOID_TOKEN_STORE_PASSWORD .*BIOID_TOKEN_STORE_USERNAME/);

      for (const text of [...lines, ...noUser.lines, noUser.body]) {
        assert.notInclude(text, password);
        assert.notInclude(text, user);
      }
    } finally {
      await acl.close();
    }
  });
});

describe('shared token store: configuration errors name what to fix', () => {
  const base = { BIOID_CLIENT_ID: 'c', BIOID_CLIENT_SECRET: 's', BIOID_AUTH_URL: 'https://idp.example.com/realms/r' };
  const authorize = () => true;
  const errorOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected a configuration error');
  };

  it('a store URL without a key, or a key without a URL, names both variables and how to make a key', () => {
    const noKey = errorOf(() => brokerOptionsFromEnv({ ...base, BIOID_TOKEN_STORE_URL: 'redis://cache:6379' }, { authorize }));
    assert.match(noKey, /BIOID_TOKEN_STORE_URL is set but BIOID_TOKEN_STORE_KEY is not/);
    assert.include(noKey, 'openssl rand -base64 32');
    const noUrl = errorOf(() => brokerOptionsFromEnv({ ...base, BIOID_TOKEN_STORE_KEY: KEY }, { authorize }));
    assert.match(noUrl, /BIOID_TOKEN_STORE_KEY is set but BIOID_TOKEN_STORE_URL is not/);
    assert.notInclude(noUrl, KEY);
  });

  it('a key that is not 32 bytes of base64 names BIOID_TOKEN_STORE_KEY and never echoes it', () => {
    for (const bad of [randomBytes(16).toString('base64'), 'not base64 at all!', `${KEY},${randomBytes(31).toString('base64')}`]) {
      const message = errorOf(() => tokenStoreFromEnv({ BIOID_TOKEN_STORE_URL: 'redis://cache:6379', BIOID_TOKEN_STORE_KEY: bad }));
      assert.match(message, /environment variable BIOID_TOKEN_STORE_KEY must be 32 random bytes in base64/);
      assert.include(message, 'openssl rand -base64 32');
      for (const part of bad.split(',')) assert.notInclude(message, part);
    }
  });

  it('BIOID_TOKEN_STORE_USERNAME and BIOID_TOKEN_STORE_PASSWORD are the store’s credentials for every scheme; set without BIOID_TOKEN_STORE_URL, each names itself and the fix, never its value', () => {
    const user = `user-${randomBytes(6).toString('hex')}`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    for (const url of ['unix:///run/redis/redis.sock', 'redis://cache:6379', 'rediss://cache:6380']) {
      const settings = tokenStoreFromEnv({
        BIOID_TOKEN_STORE_URL: url,
        BIOID_TOKEN_STORE_KEY: KEY,
        BIOID_TOKEN_STORE_USERNAME: ` ${user} `,
        BIOID_TOKEN_STORE_PASSWORD: password,
      });
      assert.deepInclude(settings, { url, username: user, password });
    }
    const passwordOnly = tokenStoreFromEnv({
      BIOID_TOKEN_STORE_URL: 'unix:///run/redis/redis.sock',
      BIOID_TOKEN_STORE_KEY: KEY,
      BIOID_TOKEN_STORE_PASSWORD: password,
    });
    assert.deepStrictEqual(passwordOnly, {
      topology: 'server',
      url: 'unix:///run/redis/redis.sock',
      socketPath: '/run/redis/redis.sock',
      encryptionKey: [KEY],
      password,
    });
    // A blank value is unset, as for every variable (envValue).
    assert.notProperty(
      tokenStoreFromEnv({
        BIOID_TOKEN_STORE_URL: 'redis://cache:6379',
        BIOID_TOKEN_STORE_KEY: KEY,
        BIOID_TOKEN_STORE_USERNAME: ' ',
        BIOID_TOKEN_STORE_PASSWORD: '',
      }),
      'password',
    );

    for (const [name, value] of [
      ['BIOID_TOKEN_STORE_PASSWORD', password],
      ['BIOID_TOKEN_STORE_USERNAME', user],
    ] as const) {
      for (const env of [{ [name]: value }, { [name]: value, BIOID_TOKEN_STORE_KEY: KEY }]) {
        const message = errorOf(() => brokerOptionsFromEnv({ ...base, ...env }, { authorize }));
        assert.match(message, new RegExp(`^brokerOptionsFromEnv: ${name} is set but BIOID_TOKEN_STORE_URL is not: `));
        assert.include(message, `set BIOID_TOKEN_STORE_URL to your Redis or Valkey`);
        assert.include(message, `or unset ${name}.`);
        assert.notInclude(message, value);
      }
    }
  });

  it('credentials in BIOID_TOKEN_STORE_URL and in BIOID_TOKEN_STORE_USERNAME or BIOID_TOKEN_STORE_PASSWORD too: an error naming the variables, never a value', () => {
    const inUrl = `url-pw-${randomBytes(8).toString('hex')}`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const user = `user-${randomBytes(6).toString('hex')}`;
    const cases: [Record<string, string>, RegExp][] = [
      [
        { BIOID_TOKEN_STORE_URL: `redis://:${inUrl}@cache:6379`, BIOID_TOKEN_STORE_PASSWORD: password },
        /BIOID_TOKEN_STORE_PASSWORD is set, and/,
      ],
      [
        { BIOID_TOKEN_STORE_URL: `rediss://urluser:${inUrl}@cache:6380`, BIOID_TOKEN_STORE_USERNAME: user },
        /BIOID_TOKEN_STORE_USERNAME is set, and/,
      ],
      // A user in the URL and the password apart: still two places, and node-redis would drop the variable's.
      [
        { BIOID_TOKEN_STORE_URL: `redis://urluser@cache:6379`, BIOID_TOKEN_STORE_PASSWORD: password },
        /BIOID_TOKEN_STORE_PASSWORD is set, and/,
      ],
      [
        {
          BIOID_TOKEN_STORE_URL: `redis://urluser:${inUrl}@cache:6379`,
          BIOID_TOKEN_STORE_USERNAME: user,
          BIOID_TOKEN_STORE_PASSWORD: password,
        },
        /BIOID_TOKEN_STORE_USERNAME and BIOID_TOKEN_STORE_PASSWORD are set, and/,
      ],
    ];
    for (const [env, pattern] of cases) {
      const message = errorOf(() => brokerOptionsFromEnv({ ...base, BIOID_TOKEN_STORE_KEY: KEY, ...env }, { authorize }));
      assert.match(message, pattern);
      assert.include(message, 'BIOID_TOKEN_STORE_URL carries credentials too');
      assert.include(message, 'either in the URL or in BIOID_TOKEN_STORE_USERNAME and BIOID_TOKEN_STORE_PASSWORD');
      for (const value of [inUrl, password, user, 'urluser', 'cache']) assert.notInclude(message, value);
    }
    // The URL's own credentials alone are taken as before.
    assert.deepStrictEqual(
      tokenStoreFromEnv({ BIOID_TOKEN_STORE_URL: `redis://urluser:${inUrl}@cache:6379`, BIOID_TOKEN_STORE_KEY: KEY }),
      {
        topology: 'server',
        url: `redis://urluser:${inUrl}@cache:6379`,
        encryptionKey: [KEY],
      },
    );
  });

  it('the URL must be redis://, rediss:// or unix://', () => {
    const message = errorOf(() => tokenStoreFromEnv({ BIOID_TOKEN_STORE_URL: 'http://cache:6379', BIOID_TOKEN_STORE_KEY: KEY }));
    assert.match(message, /BIOID_TOKEN_STORE_URL must start with redis:\/\/, rediss:\/\/ or unix:\/\//);
    assert.deepStrictEqual(
      tokenStoreFromEnv({ BIOID_TOKEN_STORE_URL: 'unix:///run/redis/redis.sock', BIOID_TOKEN_STORE_KEY: ` ${KEY} , ${NEW_KEY}` }),
      {
        topology: 'server',
        url: 'unix:///run/redis/redis.sock',
        socketPath: '/run/redis/redis.sock',
        encryptionKey: [KEY, NEW_KEY],
      },
    );
    assert.strictEqual(tokenStoreFromEnv({}), undefined);
  });

  it('BIOID_TOKEN_STORE_TIMEOUT_MS bounds each store call (storeTimeoutMs); a value that is not a positive whole number, or one without a store, names the variable', () => {
    const env = { ...base, BIOID_TOKEN_STORE_URL: 'redis://cache:6379', BIOID_TOKEN_STORE_KEY: KEY };
    assert.strictEqual(tokenStoreFromEnv({ ...env, BIOID_TOKEN_STORE_TIMEOUT_MS: '250' })?.timeoutMs, 250);
    const store = memoryTokenStore();
    assert.strictEqual(brokerOptionsFromEnv({ ...env, BIOID_TOKEN_STORE_TIMEOUT_MS: '250' }, { authorize, store }).storeTimeoutMs, 250);
    assert.strictEqual(brokerOptionsFromEnv(env, { authorize, store }).storeTimeoutMs, undefined, "the broker's default (100 ms) applies");
    for (const bad of ['0', '-5', '1.5', 'soon']) {
      assert.match(
        errorOf(() => tokenStoreFromEnv({ ...env, BIOID_TOKEN_STORE_TIMEOUT_MS: bad })),
        /BIOID_TOKEN_STORE_TIMEOUT_MS must be a positive whole number of milliseconds/,
      );
    }
    assert.match(
      errorOf(() => tokenStoreFromEnv({ BIOID_TOKEN_STORE_TIMEOUT_MS: '250' })),
      /BIOID_TOKEN_STORE_TIMEOUT_MS is set but BIOID_TOKEN_STORE_URL is not/,
    );
  });

  it('brokerOptionsFromEnv cannot connect by itself: with the variables set it asks for overrides.store, and takes it', () => {
    const env = { ...base, BIOID_TOKEN_STORE_URL: 'redis://cache:6379', BIOID_TOKEN_STORE_KEY: KEY };
    assert.match(
      errorOf(() => brokerOptionsFromEnv(env, { authorize })),
      /pass overrides\.store = redisTokenStore/,
    );
    const store = redisTokenStore({ client: admin, encryptionKey: KEY });
    assert.strictEqual(brokerOptionsFromEnv(env, { authorize, store }).store, store);
  });

  it('redisTokenStore names encryptionKey when it is missing or not 32 bytes, never echoing it', () => {
    const short = randomBytes(24).toString('base64');
    for (const encryptionKey of [undefined, short, [KEY, short], []]) {
      const message = errorOf(() => redisTokenStore({ client: admin, encryptionKey: encryptionKey as unknown as string }));
      assert.match(message, /^redisTokenStore: encryptionKey /);
      assert.include(message, 'openssl rand -base64 32');
      assert.notInclude(message, short);
    }
  });

  it('serve with a store URL but its redis dependency missing stops at start, saying to reinstall bioid-broker', async () => {
    const sessions = await startSessionCheck([]);
    try {
      const env = {
        ...base,
        BIOID_SESSION_CHECK_URL: `${sessions.url}/session`,
        BIOID_PORT: '0',
        BIOID_TOKEN_STORE_URL: 'redis://127.0.0.1:1',
        BIOID_TOKEN_STORE_KEY: KEY,
      };
      const missing = () => Promise.reject(Object.assign(new Error("Cannot find package 'redis'"), { code: 'ERR_MODULE_NOT_FOUND' }));
      let message = '';
      await serve({ env, write: () => {}, loadRedis: missing }).catch((error: Error) => (message = error.message));
      assert.match(
        message,
        /BIOID_TOKEN_STORE_URL is set, but the redis package cannot be loaded: reinstall bioid-broker \(it depends on redis\)/,
      );
    } finally {
      await sessions.close();
    }
  });
});
