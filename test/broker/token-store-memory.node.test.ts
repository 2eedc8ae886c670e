/**
 * The shared token store's logic without Redis: `memoryTokenStore`, the lock between instances, and
 * fail-open for a store that hangs, throws or holds a lock forever; events reach a listener that may
 * itself throw. Against the simulator's real identity provider.
 */
import { assert } from 'chai';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import {
  DEFAULT_STORE_LOCK_WAIT_MS,
  createTokenBroker,
  memoryTokenStore,
  type BrokerEvent,
  type TokenBrokerOptions,
  type TokenStore,
} from '../../src/broker/index.js';
import { installFakeClock, type FakeClock } from '../support/fake-clock.js';
import { json } from '../support/fake-network.js';
import { CLIENT, brokerAgainst, brokerRequest, readJson, turnsUntil } from './support.js';

let idp: RunningIdp;
before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

const never = () => new Promise<never>(() => {});

function withEvents(overrides: Partial<TokenBrokerOptions>) {
  const events: BrokerEvent[] = [];
  // The store's own events; request and exchange events are tested in test/broker/events.node.test.ts.
  const { broker, log } = brokerAgainst(idp, {
    onEvent: (event) => void (event.type === 'store-error' && events.push(event)),
    ...overrides,
  });
  return { broker, log, events };
}

/** An identity provider that answers at once, counting its exchanges. */
function fakeIdp() {
  const idp = { exchanges: 0, fetchImpl: async () => json({ access_token: `tok-${++idp.exchanges}`, expires_in: 300 }) };
  return idp;
}

/**
 * Moves the fake clock to the broker's next timer (a poll's pause, a store call's bound) until `done`, and
 * only once the work that needs no timer is done: a real turn of the event loop before each timer, since
 * the work a timer starts may set the next. So the fake time that passes is what the broker chose to wait,
 * on any machine. One timer at a time, not all: a timer that sets itself again (a Redis client's ping, left
 * by another file in this worker) never ends. Within ten minutes of fake time: far beyond any wait here (a
 * store call's is at most ten times storeTimeoutMs, while the process is held up, which a busy event loop
 * says even on a fake clock).
 */
async function timersUntil(clock: FakeClock, done: () => boolean): Promise<void> {
  const end = clock.now + 10 * 60_000;
  while (!done() && clock.now < end) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!done() && clock.countTimers() > 0) await clock.nextAsync();
  }
}

/** The answer to one request and the fake time it took (timersUntil). */
async function answered(clock: FakeClock, pending: Promise<Response>): Promise<{ status: number; waitedMs: number }> {
  let response: Response | undefined;
  void pending.then((r) => (response = r));
  const started = Date.now();
  await timersUntil(clock, () => response !== undefined);
  assert.ok(response, 'an answer within ten minutes of fake time');
  return { status: response.status, waitedMs: Date.now() - started };
}

/** A broker on `store` against the fake `idp`; its store-error events in `events`. */
function instance(idp: { fetchImpl: () => Promise<Response> }, store: TokenStore, overrides: Partial<TokenBrokerOptions> = {}) {
  const events: BrokerEvent[] = [];
  const broker = createTokenBroker({
    issuerUrl: 'https://idp.example.com',
    realm: 'acme',
    ...CLIENT,
    authorize: () => true,
    logger: () => {},
    store,
    fetchImpl: idp.fetchImpl,
    onEvent: (event) => void (event.type === 'store-error' && events.push(event)),
    ...overrides,
  });
  return { broker, events };
}

describe('memoryTokenStore', () => {
  it('keeps a value for its time to live, sets if absent atomically, and releases a lock for its holder only', async () => {
    let now = 1_000;
    const store = memoryTokenStore({ now: () => now });
    await store.set('k', 'v', 500);
    assert.strictEqual(await store.get('k'), 'v');
    now += 500;
    assert.strictEqual(await store.get('k'), undefined, 'gone at its time to live');
    assert.isTrue(await store.setIfAbsent('lock', 'me', 1000));
    assert.isFalse(await store.setIfAbsent('lock', 'you', 1000));
    assert.isFalse(await store.compareAndDelete('lock', 'you'), 'only the holder releases');
    assert.isTrue(await store.compareAndDelete('lock', 'me'));
    assert.isTrue(await store.setIfAbsent('lock', 'you', 1000));
    now += 1000;
    assert.isTrue(await store.setIfAbsent('lock', 'me', 1000), 'a lock whose holder died lapses');
    await store.delete('lock');
    assert.strictEqual(await store.get('lock'), undefined);
  });

  it('two brokers sharing a memory store make one exchange for 20 cold requests', async () => {
    const store = memoryTokenStore();
    // Counted: B waits for A's exchange however long a busy machine makes it.
    const a = brokerAgainst(idp, { store, storeLockWaitMs: 10_000 });
    const b = brokerAgainst(idp, { store, storeLockWaitMs: 10_000 });
    const before = idp.tokenRequests;
    const bodies = await Promise.all(Array.from({ length: 20 }, async (_, i) => readJson(await (i % 2 ? a : b).broker(brokerRequest()))));
    assert.strictEqual(idp.tokenRequests - before, 1);
    assert.strictEqual(new Set(bodies.map((body) => body.access_token)).size, 1);
  });
});

describe('shared token store: fail-open', () => {
  it('a store that never answers costs at most storeTimeoutMs per call: 200, and timeouts are reported', async () => {
    const hanging: TokenStore = { get: never, set: never, delete: never, setIfAbsent: never, compareAndDelete: never };
    const { broker, events } = withEvents({ store: hanging, storeTimeoutMs: 50 });
    const started = performance.now();
    const response = await broker(brokerRequest());
    assert.strictEqual(response.status, 200);
    // The time is the behaviour: without the bound the answer would never come. 5 s is a margin a loaded
    // 2-core machine meets for one exchange.
    assert.isBelow(performance.now() - started, 5000);
    assert.deepStrictEqual(events, [{ type: 'store-error', operation: 'get', kind: 'timeout' }]);
  });

  it('a store that throws (synchronously or not) is a miss, reported as an error', async () => {
    const boom = () => {
      throw new Error('ECONNREFUSED');
    };
    const store: TokenStore = { ...memoryTokenStore(), get: boom, setIfAbsent: () => Promise.reject(new Error('down')) };
    const { broker, events } = withEvents({ store, tokenExchange: { subjectToken: async () => idp.userToken('thrown-store') } });
    assert.strictEqual((await broker(brokerRequest())).status, 200);
    assert.deepStrictEqual(events, [{ type: 'store-error', operation: 'get', kind: 'error' }]);
  });

  it('a lock that is never released (its holder died) delays an instance at most storeLockWaitMs, then it exchanges itself', async () => {
    const store: TokenStore = { ...memoryTokenStore(), setIfAbsent: async () => false };
    const { broker } = brokerAgainst(idp, { store, storeLockWaitMs: 300 });
    const before = idp.tokenRequests;
    const started = performance.now();
    assert.strictEqual((await broker(brokerRequest())).status, 200);
    const ms = performance.now() - started;
    assert.isAtLeast(ms, 150, 'it waited for the holder');
    // Without the bound it would wait for the holder forever; 5 s is a margin a loaded machine meets.
    assert.isBelow(ms, 5000);
    assert.strictEqual(idp.tokenRequests - before, 1);
  });

  it('a lock holder whose exchange fails releases the lock, so the next request does not wait', async () => {
    const store = memoryTokenStore();
    const refusing = brokerAgainst(idp, { store, clientSecret: 'wrong-secret' });
    assert.strictEqual((await refusing.broker(brokerRequest())).status, 502);
    // A lock left held would make the next request wait its whole timeoutMs (15 s) before exchanging
    // itself: half of it is a margin a loaded machine meets for one exchange.
    const { broker } = brokerAgainst(idp, { store, timeoutMs: 15_000 });
    const started = performance.now();
    assert.strictEqual((await broker(brokerRequest())).status, 200);
    assert.isBelow(performance.now() - started, 7_500);
  });

  it("a worker's waitUntil (the context's) is given the writes that follow the answer, and settles once the token is saved and the lock released", async () => {
    const memory = memoryTokenStore();
    let releaseSave!: () => void;
    const saved = new Promise<void>((resolve) => (releaseSave = resolve));
    const calls: string[] = [];
    const store: TokenStore = {
      ...memory,
      set: async (key, value, ttlMs) => {
        await saved;
        calls.push('set');
        return memory.set(key, value, ttlMs);
      },
      compareAndDelete: async (key, value) => {
        calls.push('release');
        return memory.compareAndDelete(key, value);
      },
    };
    const { broker } = withEvents({ store, storeTimeoutMs: 5000 });
    const waited: Promise<unknown>[] = [];
    const response = await broker(brokerRequest(), { waitUntil: (promise) => void waited.push(promise) });
    assert.strictEqual(response.status, 200, 'answered while the save still waits');
    assert.lengthOf(waited, 1);
    let done = false;
    void waited[0]!.then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.isFalse(done, 'not settled before the save');
    releaseSave();
    await waited[0];
    assert.deepStrictEqual(calls, ['set', 'release'], 'settled after the save and the release');
  });

  it('writes that fail after the answer are reported as store errors, never as unhandled rejections', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const failingWrites: TokenStore = {
        ...memoryTokenStore(),
        set: () => Promise.reject(new Error('down')),
        compareAndDelete: () => {
          throw new Error('down');
        },
      };
      const { broker, events } = withEvents({ store: failingWrites });
      assert.strictEqual((await broker(brokerRequest())).status, 200);
      await turnsUntil(() => events.length >= 2);
      // An unhandled rejection is reported at the end of the turn it happened in: one more turn.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepStrictEqual(events, [
        { type: 'store-error', operation: 'set', kind: 'error' },
        { type: 'store-error', operation: 'lock', kind: 'error' },
      ]);
      assert.deepStrictEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('a listener that throws or rejects changes no answer', async () => {
    const store: TokenStore = { ...memoryTokenStore(), get: () => Promise.reject(new Error('down')) };
    for (const onEvent of [
      () => {
        throw new Error('listener bug');
      },
      () => Promise.reject(new Error('async listener bug')),
    ]) {
      const { broker } = brokerAgainst(idp, { store, onEvent: onEvent as () => void });
      assert.strictEqual((await broker(brokerRequest())).status, 200);
    }
  });

  it('store must be a TokenStore: anything else is a configuration error naming it', () => {
    assert.throws(
      () =>
        createTokenBroker({
          issuerUrl: idp.baseUrl,
          realm: idp.realm,
          ...CLIENT,
          authorize: () => true,
          store: { get: () => undefined } as unknown as TokenStore,
        }),
      /createTokenBroker: store must be a TokenStore/,
    );
  });
});

describe('shared token store: the writes that follow the answer', () => {
  let clock: FakeClock;
  beforeEach(() => {
    // The store's timeouts are the subject: timers, Date and performance.now() are fake (the store's bound
    // reads the time from performance.now()), moved only when the broker waits.
    clock = installFakeClock({ performance: true });
  });
  afterEach(() => clock.restore());

  it('the lock holder answers as soon as its token is known: saving it and releasing the lock in a store turned slow come after, still reported', async () => {
    const slowWrites: TokenStore = { ...memoryTokenStore(), set: never, compareAndDelete: never };
    const { broker, events } = instance(fakeIdp(), slowWrites, { storeTimeoutMs: 3000 });
    const { status, waitedMs } = await answered(clock, broker(brokerRequest()));
    assert.strictEqual(status, 200);
    // An answer that waited for the writes would have come after their timeouts.
    assert.strictEqual(waitedMs, 0, 'the answer waited for no write');
    assert.deepStrictEqual(events, []);
    await timersUntil(clock, () => events.length >= 2);
    assert.deepStrictEqual(
      events,
      [
        { type: 'store-error', operation: 'set', kind: 'timeout' },
        { type: 'store-error', operation: 'lock', kind: 'timeout' },
      ],
      'the save, then the release',
    );
  });

  it('a subject token the IdP refuses is answered at once; its delete from a store turned slow comes after, still reported', async () => {
    const refusing = { fetchImpl: async () => json({ error: 'invalid_grant', error_description: 'subject token unknown' }, 400) };
    const slowDelete: TokenStore = { ...memoryTokenStore(), delete: never };
    const { broker, events } = instance(refusing, slowDelete, {
      storeTimeoutMs: 3000,
      tokenExchange: { subjectToken: () => 'not-a-token-the-idp-knows' },
    });
    const { status, waitedMs } = await answered(clock, broker(brokerRequest()));
    assert.strictEqual(status, 502);
    // An answer that waited for the delete would have come after its timeout.
    assert.strictEqual(waitedMs, 0, 'the answer waited for no delete');
    assert.deepStrictEqual(events, []);
    await timersUntil(clock, () => events.length >= 1);
    assert.deepStrictEqual(events, [{ type: 'store-error', operation: 'delete', kind: 'timeout' }]);
  });
});

describe('shared token store: a lock someone else holds (anyone who can write to the store can set one)', () => {
  let clock: FakeClock;
  beforeEach(() => {
    // Time is the subject: timers and Date are fake, moved only by `answered` below.
    clock = installFakeClock();
  });
  afterEach(() => clock.restore());

  /** A memory store that records the keys of the locks brokers take, and counts the reads. */
  function watchedStore() {
    const memory = memoryTokenStore();
    const seen = { locks: new Set<string>(), reads: 0 };
    const store: TokenStore = {
      ...memory,
      get: (key) => {
        seen.reads += 1;
        return memory.get(key);
      },
      setIfAbsent: (key, value, ttlMs) => {
        if (key.endsWith('#lock')) seen.locks.add(key);
        return memory.setIfAbsent(key, value, ttlMs);
      },
    };
    return { store, memory, seen };
  }

  /** The lock's key as a broker takes it, learned from one cold request; then the store is emptied. */
  async function lockKeyOf(watched: ReturnType<typeof watchedStore>, idp: ReturnType<typeof fakeIdp>): Promise<string> {
    assert.strictEqual((await answered(clock, instance(idp, watched.store).broker(brokerRequest()))).status, 200);
    const [lockKey] = [...watched.seen.locks];
    assert.ok(lockKey, 'the broker took a lock');
    await watched.memory.delete(lockKey.slice(0, -'#lock'.length));
    return lockKey;
  }

  for (const [what, ttlMs] of [
    ['without an expiry', Infinity],
    ["with an expiry longer than a broker's own lock", 60 * 60_000],
  ] as const) {
    it(`a lock ${what} is not waited on: the instance exchanges at once, stores the token for the others, and reports store-error lock held`, async () => {
      const idp = fakeIdp();
      const watched = watchedStore();
      const lockKey = await lockKeyOf(watched, idp);
      await watched.memory.set(lockKey, 'planted', ttlMs);
      const before = idp.exchanges;
      const a = instance(idp, watched.store);
      const { status, waitedMs } = await answered(clock, a.broker(brokerRequest()));
      assert.strictEqual(status, 200);
      assert.strictEqual(waitedMs, 0, 'no wait on a lock no broker sets');
      assert.deepStrictEqual(a.events, [{ type: 'store-error', operation: 'lock', kind: 'held' }]);
      // The next instance reads the token the first one stored: one exchange for both, lock or not.
      const b = instance(idp, watched.store);
      assert.strictEqual((await answered(clock, b.broker(brokerRequest()))).status, 200);
      assert.strictEqual(idp.exchanges - before, 1);
      assert.deepStrictEqual(b.events, []);
      assert.strictEqual(await watched.memory.get(lockKey), 'planted', "a lock that is not the broker's is left as it is");
    });
  }

  it(`a lock within a broker's lock life (its holder died, or someone renews it) costs a cold request storeLockWaitMs (${DEFAULT_STORE_LOCK_WAIT_MS} ms) at most, not the IdP timeout; then the instance exchanges itself and says so`, async () => {
    const idp = fakeIdp();
    const watched = watchedStore();
    const lockKey = await lockKeyOf(watched, idp);
    await watched.memory.set(lockKey, 'planted', 5_000);
    const a = instance(idp, watched.store, { timeoutMs: 10_000 });
    const { status, waitedMs } = await answered(clock, a.broker(brokerRequest()));
    assert.strictEqual(status, 200);
    assert.isAtMost(waitedMs, DEFAULT_STORE_LOCK_WAIT_MS);
    // It polled the store up to the bound: the last pause (at most 100 ms) would have passed it.
    assert.isAbove(waitedMs, DEFAULT_STORE_LOCK_WAIT_MS - 100);
    assert.deepStrictEqual(a.events, [{ type: 'store-error', operation: 'lock', kind: 'held' }]);
  });

  it('storeLockWaitMs sets the wait, and timeoutMs (the IdP timeout) bounds it', async () => {
    const idp = fakeIdp();
    const watched = watchedStore();
    const lockKey = await lockKeyOf(watched, idp);
    // Each lock within that broker's own lock life (timeoutMs + 2 s + 1 s), longer than the wait.
    for (const [options, bound, lockMs] of [
      [{ storeLockWaitMs: 3_000 }, 3_000, 5_000],
      [{ storeLockWaitMs: 3_000, timeoutMs: 500 }, 500, 3_000],
    ] as const) {
      await watched.memory.delete(lockKey.slice(0, -'#lock'.length));
      await watched.memory.set(lockKey, 'planted', lockMs);
      const { waitedMs } = await answered(clock, instance(idp, watched.store, options).broker(brokerRequest()));
      assert.isAtMost(waitedMs, bound, JSON.stringify(options));
      assert.isAbove(waitedMs, bound - 100, JSON.stringify(options));
    }
  });

  it("a lock a broker holds while it exchanges is still waited on: the other instance reads that broker's token", async () => {
    const idp = fakeIdp();
    let release!: () => void;
    const slow = {
      fetchImpl: async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return idp.fetchImpl();
      },
    };
    const { store } = watchedStore();
    const holder = instance(slow, store);
    const other = instance(idp, store);
    const first = holder.broker(brokerRequest());
    // The holder took the lock and waits for its IdP; the other instance finds the lock.
    while (!release) await new Promise((resolve) => setImmediate(resolve));
    const second = answered(clock, other.broker(brokerRequest()));
    await clock.tickAsync(50);
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.strictEqual(a.status, 200);
    assert.strictEqual(b.status, 200);
    assert.strictEqual(idp.exchanges, 1, "one exchange: the other instance waited for the holder's token");
    assert.deepStrictEqual([...holder.events, ...other.events], []);
  });
});
