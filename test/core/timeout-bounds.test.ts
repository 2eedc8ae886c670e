/**
 * Spec 8: timeoutMs bounds each network call of an instance, whatever its fetchImpl does with
 * init.signal, and whatever its token source does (docs/core.md, "Timeouts"). On fake timers: each call is
 * still pending a millisecond before its bound and has failed at it, whatever the machine's load.
 */
import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { installFakeClock, type FakeClock } from '../support/fake-clock.js';
import { BioID, brokerTokenSource, clearBrokerTokens, createFingerprintReader } from '../../src/index.js';
import { json } from '../support/fake-network.js';
import { LOCAL, MW, STATUS, standardNetwork } from '../support/sdk-fixtures.js';

const IDP = 'https://idp.example.com';
const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };
const inBrowser = typeof window === 'object' && typeof document === 'object';

/** A fetch that never looks at init.signal: `answer` decides when (if ever) it settles. */
const deaf = (answer: (url: string) => Promise<Response>) => (url: string) => answer(url);
const never = () => new Promise<Response>(() => {});

let clock: FakeClock;

/** Moves the clock to `ms`: each promise is still pending at `ms - 1`, and has rejected with its `expected` at `ms`. */
async function rejectAt(ms: number, ...calls: [Promise<unknown>, Record<string, unknown>][]): Promise<void> {
  const settled = calls.map(() => false);
  calls.forEach(([promise], i) =>
    promise.then(
      () => (settled[i] = true),
      () => (settled[i] = true),
    ),
  );
  await clock.tickAsync(ms - 1);
  assert.deepStrictEqual(
    settled,
    calls.map(() => false),
    `settled before ${ms} ms`,
  );
  await clock.tickAsync(1);
  assert.deepStrictEqual(
    settled,
    calls.map(() => true),
    `still pending at ${ms} ms`,
  );
  for (const [promise, expected] of calls) await rejectsWith(promise, expected);
}

/** A body that never delivers a byte, and records whether it was cancelled. */
function silentBody() {
  const state = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    cancel() {
      state.cancelled = true;
    },
  });
  return { state, response: () => new Response(body, { headers: { 'content-type': 'application/json' } }) };
}

describe('timeoutMs bounds every call, whatever the fetch does (spec 8)', () => {
  beforeEach(() => (clock = installFakeClock()));
  afterEach(() => clock.uninstall());

  it('spec 8: a fetchImpl that ignores init.signal is still cut off after timeoutMs (middleware, /status, IdP)', async () => {
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, getToken: 'tok', fetchImpl: deaf(never), timeoutMs: 300 });
    const unpinned = createFingerprintReader({ middlewareUrl: MW, getToken: 'tok', fetchImpl: deaf(never), timeoutMs: 300 });
    const g = globalThis as Record<string, unknown>;
    if (!inBrowser) Object.assign(g, { window: {}, document: {} });
    let bio: BioID;
    try {
      bio = new BioID({
        ...PIN,
        middlewareUrl: MW,
        integratorId: 'tenant-1',
        fetchImpl: deaf(never),
        timeoutMs: 300,
        auth: {
          type: 'idpClientCredentials',
          clientId: 'app',
          clientSecret: 'secret-value-1234',
          issuerUrl: IDP,
          realm: 'acme',
          dangerouslyAllowBrowser: true,
        },
      });
    } finally {
      if (!inBrowser) for (const name of ['window', 'document']) delete g[name];
    }
    await rejectAt(
      300,
      [reader.verify({ subjectId: 'alice' }), { code: 'timeout', message: /the middleware.*within 300 ms/i }],
      [unpinned.target(), { message: /within 300 ms/ }],
      [bio.reader.search(), { code: 'timeout', message: /identity provider.*within 300 ms/i }],
    );
  });

  it('spec 8: a body that never ends is cut off after timeoutMs and cancelled, though the fetch ignores init.signal', async () => {
    const { state, response } = silentBody();
    const reader = createFingerprintReader({
      ...PIN,
      middlewareUrl: MW,
      getToken: 'tok',
      fetchImpl: deaf(async () => response()),
      timeoutMs: 300,
    });
    await rejectAt(300, [reader.search(), { code: 'timeout' }]);
    assert.isTrue(state.cancelled, 'the body is cancelled');
  });

  it('spec 8: an answer that arrives after timeoutMs is dropped and its body cancelled', async () => {
    const { state, response } = silentBody();
    let arrived = false;
    const late = () => new Promise<Response>((resolve) => setTimeout(() => resolve(response()), 500)).finally(() => (arrived = true));
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, getToken: 'tok', fetchImpl: deaf(late), timeoutMs: 300 });
    await rejectAt(300, [reader.search(), { code: 'timeout' }]);
    assert.isFalse(arrived);
    await clock.tickAsync(400);
    assert.isTrue(arrived && state.cancelled, 'the late body is cancelled when it arrives');
  });

  it('spec 8: the abort still reaches init.signal when the call is cut off', async () => {
    let signal: AbortSignal | undefined;
    const fetchImpl = (url: string, init?: RequestInit) => {
      signal = init?.signal ?? undefined;
      return url.startsWith(LOCAL) ? Promise.resolve(json(STATUS)) : never();
    };
    const reader = createFingerprintReader({ middlewareUrl: MW, getToken: 'tok', fetchImpl, timeoutMs: 300 });
    await rejectAt(300, [reader.search(), { code: 'timeout' }]);
    assert.isTrue(signal?.aborted);
  });

  describe('the token fetch through brokerTokenSource(url)', () => {
    const BROKER = 'https://app.example.com/bioid/token';
    const realFetch = globalThis.fetch;
    let held: ((response: Response) => void)[] = [];
    beforeEach(() => {
      clearBrokerTokens();
      // The broker never answers (the page's own fetch: brokerTokenSource takes no fetchImpl).
      globalThis.fetch = () => new Promise<Response>((resolve) => held.push(resolve));
    });
    afterEach(() => {
      globalThis.fetch = realFetch;
      // End the shared flights, so no broker timer outlives the test.
      for (const resolve of held) resolve(new Response('{}', { status: 503 }));
      held = [];
      clearBrokerTokens();
    });

    it("spec 8: a reader's timeoutMs bounds its wait for a token from brokerTokenSource(url)", async () => {
      const reader = createFingerprintReader({
        ...PIN,
        middlewareUrl: MW,
        fetchImpl: standardNetwork().fetch,
        timeoutMs: 300,
        getToken: brokerTokenSource(BROKER),
      });
      await rejectAt(300, [reader.search(), { code: 'timeout', message: /within 300 ms/ }]);
    });

    it("spec 8: a BioID instance's timeoutMs bounds its wait for a token from brokerTokenSource(url)", async () => {
      const bio = new BioID({
        ...PIN,
        middlewareUrl: MW,
        fetchImpl: standardNetwork().fetch,
        timeoutMs: 300,
        auth: { type: 'tokenProvider', getToken: brokerTokenSource(BROKER) },
      });
      await rejectAt(300, [bio.reader.search(), { code: 'timeout', message: /within 300 ms/ }]);
    });

    it('spec 8: a source given its own timeoutMs (brokerTokenSource(url, { timeoutMs })) keeps it', async () => {
      const reader = createFingerprintReader({
        ...PIN,
        middlewareUrl: MW,
        fetchImpl: standardNetwork().fetch,
        timeoutMs: 300,
        getToken: brokerTokenSource(BROKER, { timeoutMs: 700 }),
      });
      await rejectAt(700, [reader.search(), { message: /within 700 ms/ }]);
    });
  });

  it('a fetch stand-in that returns a Response itself, not a promise of one, still works', async () => {
    const fetchImpl = (() => json({ candidates: [] })) as unknown as typeof fetch;
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl, getToken: async () => 'token-1' });
    assert.deepInclude(await reader.search(), { candidates: [] });
  });
});
