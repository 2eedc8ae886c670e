/**
 * The shared token store's logic without Redis: `memoryTokenStore`, the lock between instances, and
 * fail-open for a store that hangs, throws or holds a lock forever; events reach a listener that may
 * itself throw. Against the simulator's real identity provider.
 */
import { assert } from 'chai';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { createTokenBroker, memoryTokenStore, type BrokerEvent, type TokenBrokerOptions, type TokenStore } from '../../src/broker/index.js';
import { CLIENT, brokerAgainst, brokerRequest, readJson } from './support.js';

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
    const a = brokerAgainst(idp, { store });
    const b = brokerAgainst(idp, { store });
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

  it('a lock that is never released (its holder died) delays an instance at most the IdP timeout, then it exchanges itself', async () => {
    const store: TokenStore = { ...memoryTokenStore(), setIfAbsent: async () => false };
    const { broker } = brokerAgainst(idp, { store, timeoutMs: 300 });
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

  it('the lock holder answers as soon as its token is known: saving it and releasing the lock in a store turned slow come after, still reported', async () => {
    const slowWrites: TokenStore = { ...memoryTokenStore(), set: never, compareAndDelete: never };
    const { broker, events } = withEvents({ store: slowWrites, storeTimeoutMs: 3000 });
    assert.strictEqual((await broker(brokerRequest())).status, 200);
    // The writes begin once the token is known, so an answer that waited for them would come after their
    // timeouts were reported, however long the exchange took.
    assert.deepStrictEqual(events, [], 'the answer waited for no write');
    const deadline = Date.now() + 15_000;
    while (events.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepStrictEqual(
      events,
      [
        { type: 'store-error', operation: 'set', kind: 'timeout' },
        { type: 'store-error', operation: 'lock', kind: 'timeout' },
      ],
      'the save, then the release',
    );
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
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepStrictEqual(events, [
        { type: 'store-error', operation: 'set', kind: 'error' },
        { type: 'store-error', operation: 'lock', kind: 'error' },
      ]);
      assert.deepStrictEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('a subject token the IdP refuses is answered at once; its delete from a store turned slow comes after, still reported', async () => {
    const slowDelete: TokenStore = { ...memoryTokenStore(), delete: never };
    const { broker, events } = withEvents({
      store: slowDelete,
      storeTimeoutMs: 3000,
      tokenExchange: { subjectToken: () => 'not-a-token-the-idp-knows' },
    });
    assert.strictEqual((await broker(brokerRequest())).status, 502);
    // The delete begins once the IdP refused, so an answer that waited for it would come after its timeout
    // was reported, however long the IdP took.
    assert.deepStrictEqual(events, [], 'the answer waited for no delete');
    const deadline = Date.now() + 15_000;
    while (events.length < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepStrictEqual(events, [{ type: 'store-error', operation: 'delete', kind: 'timeout' }]);
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
