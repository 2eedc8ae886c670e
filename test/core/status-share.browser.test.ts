/**
 * One poller per browser (docs/core.md): the page-wide status watchers of the tabs of an origin elect one
 * leader per local service with a Web Lock; it polls and posts each status on a BroadcastChannel. Two
 * page-wide watchers in one page stand for two tabs here: each has a channel of its own and asks for the
 * same lock, as two tabs do. Real timers, short intervals; the counts leave room for a loaded machine.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { StatusWatcher, type ReaderStatus } from '../../src/core/status-watch.js';
import { fakeNetwork, hang, json } from '../support/fake-network.js';

const INTERVAL = 200;
const READY = { workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: true }] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let serial = 0;

describe('one /status poller per browser', () => {
  const realFetch = globalThis.fetch;
  let net: ReturnType<typeof fakeNetwork>;
  let local: string;
  let answer: unknown;
  const stops: (() => void)[] = [];
  const polls = () => net.callsTo(`${local}/status`).length;

  /** A tab's page-wide watcher of the local service, listening; its statuses land in `seen`. */
  function tab(seen: ReaderStatus[] = [], timeoutMs = 1000): ReaderStatus[] {
    stops.push(new StatusWatcher({ localServiceUrl: local, timeoutMs }, undefined, INTERVAL, true).watch((s) => seen.push(s)));
    return seen;
  }

  beforeEach(() => {
    // A local service URL of its own per test: a lock left by one test never holds up the next.
    local = `http://127.0.0.1:${19000 + ++serial}`;
    answer = READY;
    net = fakeNetwork().on('GET', `${local}/status`, () => json(answer));
    globalThis.fetch = net.fetch as typeof fetch;
  });
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
    globalThis.fetch = realFetch;
  });

  it('a second tab asks once as it opens, then shows what the leader polls and polls nothing itself', async () => {
    const posted: unknown[] = [];
    const post = BroadcastChannel.prototype.postMessage;
    BroadcastChannel.prototype.postMessage = function (message: unknown) {
      posted.push(message);
      post.call(this, message);
    };
    try {
      tab();
      await sleep(3 * INTERVAL);
      const second = tab();
      await waitUntil(() => second.some((s) => s.state === 'ready'), 'the second tab never showed ready');
      await sleep(INTERVAL); // its own first poll is done; it follows from here on
      const before = polls();
      await sleep(10 * INTERVAL);
      // Two pollers would make about 20 requests here.
      expect(polls() - before).to.be.within(6, 12);
      answer = { workstationId: 'ws-7', devices: [] };
      await waitUntil(() => second.some((s) => s.state === 'no-device'), 'the follower never saw the change');
    } finally {
      BroadcastChannel.prototype.postMessage = post;
    }
    // Statuses (with when they were heard, for a tab that joins) and greetings only: nothing else (no token)
    // ever goes to the other tabs.
    for (const message of posted) {
      if (message !== 'hello') expect(['at', 'next', 'status']).to.include.members(Object.keys(message as object));
    }
    expect(posted.length).to.be.greaterThan(5);
  });

  it("spec 9.2: a tab that joins trusts the leader's last status for one and a half intervals from when the leader heard it, not from its joining", async () => {
    // Long enough that a loaded machine's timers keep each check on its side of one and a half intervals.
    const interval = 2000;
    // The leader hears the reader once; its next polls hang (they would time out only after 10 s).
    net.on('GET', `${local}/status`, (call, i) => (i === 0 ? json(READY) : hang(call, i)));
    const watcher = (seen: ReaderStatus[]) => {
      const w = new StatusWatcher({ localServiceUrl: local, timeoutMs: 10_000 }, undefined, interval, true);
      stops.push(w.watch((s) => seen.push(s)));
      return w;
    };
    const first: ReaderStatus[] = [];
    watcher(first);
    await waitUntil(() => first.some((s) => s.state === 'ready'), 'the leader never heard the reader');
    const heard = performance.now();
    await sleep(1.2 * interval);
    const seen: ReaderStatus[] = [];
    const joined = watcher(seen);
    await waitUntil(() => seen.some((s) => s.state === 'ready'), "the joining tab never got the leader's status");
    expect(joined.knownTarget(), 'heard 1.2 intervals ago: still trusted').to.deep.equal({ workstationId: 'ws-7', deviceId: 'dev-1' });
    await sleep(heard + 1.6 * interval - performance.now());
    expect(performance.now() - heard, 'the test ran late').to.be.below(2.5 * interval);
    expect(joined.knownTarget(), 'heard 1.6 intervals ago: the reader would ask /status itself').to.equal(undefined);
  });

  it('when the leader closes, the next tab polls within one poll interval', async () => {
    tab();
    await sleep(2 * INTERVAL);
    const second = tab();
    await sleep(3 * INTERVAL);
    stops.shift()!(); // the leader's tab closes: its lock is released
    const closed = polls();
    const at = performance.now();
    await waitUntil(() => polls() > closed, 'nobody took over', { interval: 5, timeout: 2000 });
    expect(performance.now() - at).to.be.below(INTERVAL);
    await sleep(5 * INTERVAL);
    expect(polls() - closed).to.be.within(3, 7);
    expect(second.at(-1)!.state).to.equal('ready');
  });

  it('a leader that stops posting while it keeps its lock (a hung tab) is replaced', async () => {
    let release!: () => void;
    const name = `bioid-status ${local}`;
    // "A tab" that holds the lock, posts one status, and then hangs.
    navigator.locks.request(name, () => new Promise<void>((resolve) => (release = resolve))).catch(() => {}); // stolen, as it should be
    await sleep(50);
    const seen = tab([], 200);
    await sleep(20);
    const hung = new BroadcastChannel(name);
    hung.postMessage({ status: { state: 'no-device', pinned: false, workstationId: 'ws-7', devices: [] }, next: INTERVAL });
    hung.close();
    await waitUntil(() => seen.some((s) => s.state === 'no-device'), 'the leader was not heard');
    const heard = polls();
    await sleep(INTERVAL);
    expect(polls(), 'nothing polled while the leader is believed alive').to.equal(heard);
    // Silent for its next poll, a request's timeout and one interval (200 + 200 + 200 ms): taken over.
    await waitUntil(() => polls() >= heard + 2, 'the silent leader was never replaced', { timeout: 3000 });
    expect(seen.at(-1)!.state).to.equal('ready');
    release();
  });

  it('a lock held by a tab that never posts does not keep this tab from polling', async () => {
    let release!: () => void;
    navigator.locks.request(`bioid-status ${local}`, () => new Promise<void>((resolve) => (release = resolve))).catch(() => {});
    await sleep(50);
    tab();
    await sleep(50);
    const before = polls();
    await sleep(5 * INTERVAL);
    expect(polls() - before).to.be.within(3, 7);
    release();
  });

  it('a browser that refuses the lock (an opaque origin) leaves the tab polling alone, asking for the lock once', async () => {
    const request = LockManager.prototype.request;
    let asked = 0;
    LockManager.prototype.request = function () {
      asked += 1;
      return Promise.reject(new DOMException('The request is denied.', 'SecurityError'));
    } as typeof request;
    try {
      const seen = tab();
      await waitUntil(() => seen.some((s) => s.state === 'ready'), 'no status without a lock');
      const before = polls();
      await sleep(5 * INTERVAL);
      expect(polls() - before).to.be.within(3, 7);
      expect(asked, 'asked for the lock again after a refusal').to.equal(1);
    } finally {
      LockManager.prototype.request = request;
    }
  });

  it('a local service URL longer than a lock name may be (1,024 characters in WebKit) still gets its status, polled at the interval', async () => {
    local = `${local}/${'x'.repeat(1100)}`;
    net.on('GET', `${local}/status`, () => json(answer));
    const seen = tab();
    await waitUntil(() => seen.some((s) => s.state === 'ready'), 'no status for a long URL');
    const before = polls();
    await sleep(5 * INTERVAL);
    expect(polls() - before).to.be.within(3, 7);
  });

  it('without Web Locks each tab polls on its own, as before', async () => {
    Object.defineProperty(navigator, 'locks', { value: undefined, configurable: true });
    try {
      tab();
      tab();
      await sleep(50);
      const before = polls();
      await sleep(10 * INTERVAL);
      expect(polls() - before).to.be.within(13, 22);
    } finally {
      delete (navigator as { locks?: unknown }).locks;
    }
  });
});
