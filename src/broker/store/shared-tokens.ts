/**
 * Tokens shared through a `TokenStore` by brokers running as several instances: one exchange with the
 * identity provider per cache key per token life across all of them (docs/broker.md, "Several instances").
 *
 * On a local miss the broker asks `obtain`: the store's value if there is one; otherwise the instance that
 * takes the key's lock exchanges, stores the token for its cache lifetime and releases the lock, while
 * the others poll the store for that value (at most `lockWaitMs`, about what an exchange usually takes,
 * and never longer than `waitMs`, the IdP timeout) and then exchange on their own. The lock's name never
 * changes, so anyone who can write to the store can hold it: a lock that never expires, or outlives the
 * lock a broker sets, was set by no broker and is not waited on at all. Either way past a lock is
 * reported as a `store-error` of kind `held`, and the token so obtained is stored for the others.
 * Fail-open: a store call that throws or takes longer than `timeoutMs` counts as a miss and is
 * reported as a `store-error` event; a token request never fails because of the store, and never waits
 * for a write to it: the token is answered once known, its save and the lock's release follow.
 *
 * `timeoutMs` is the store's time, not this process's: a call is only timed out once the process has
 * run on time past the bound (see `guard`). Under a cold burst the event loop itself falls behind by
 * more than the bound (crypto on the thread pool, the client's write and the reply's read each wait a
 * whole turn of a busy loop, while Redis answers in microseconds); counting that as the store's would
 * report a store problem that is not there and skip the lock. A store that really does not answer still
 * fails open at the bound when the process runs on time, and after at most MAX_BOUNDS bounds when not.
 */
import { cacheLifetimeMs, type DatedToken, type IssuedToken } from '../../core/token-cache.js';
import type { BrokerEvent, StoreOperation } from '../events.js';
import type { TokenStore } from './token-store.js';

export interface SharedTokensOptions {
  store: TokenStore;
  /** Bound of each store call. */
  timeoutMs: number;
  /** The IdP timeout: the longest a lock holder's exchange takes, and so the longest any wait for it. */
  waitMs: number;
  /** How long an instance without the lock waits for another's token before it exchanges itself. */
  lockWaitMs: number;
  emit: (event: BrokerEvent) => void;
  now?: () => number;
}

/** What is stored: the token, when (epoch ms) the issuer said it expires, and when it was issued. */
interface Stored {
  t: string;
  x: number;
  /** Absent in what a broker without it stored: the token then counts as issued when it is read. */
  i?: number;
}

/** The lock of one exchange: its key and this instance's value in it. */
interface Lock {
  key: string;
  holder: string;
}

/** A stored token with less life left than this is not handed out: it would be replaced at once. */
const MIN_REMAINING_MS = 2_000;
/** However late this process runs, a store call is given up on after this many bounds. */
const MAX_BOUNDS = 10;
/** A timer this much later than asked, or a turn of the event loop this long, says this process was held up. */
const HELD_UP_MS = 20;
/**
 * A loop busy more than this share of the bound (Node's event loop utilization) was held up too: the
 * command may wait in the client's own queue (node-redis writes about 16 KiB of commands a turn) however
 * short each turn.
 */
const BUSY_LOOP = 0.5;
const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 100;
const FAILED = Symbol('store failed');

export class SharedTokens {
  private readonly store: TokenStore;
  private readonly now: () => number;
  /** The writes that follow an answer, until each settles (`settled`). */
  private readonly afterAnswer = new Set<Promise<void>>();

  /**
   * How long a lock lives: longer than its holder can take (its IdP exchange is bounded by waitMs, its lock
   * and save calls by guard), so it never lapses while the holder still works, and a holder that died frees
   * it soon after. No broker sets a longer one.
   */
  private readonly lockTtlMs: number;

  constructor(private readonly options: SharedTokensOptions) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.lockTtlMs = options.waitMs + 2 * MAX_BOUNDS * options.timeoutMs + 1_000;
  }

  /** The token for `key`: the store's, or one from `exchange` that is then stored for the other instances. */
  async obtain(key: string, exchange: () => Promise<IssuedToken>): Promise<DatedToken> {
    const found = await this.read(key);
    if (found === FAILED) return exchange();
    if (found) return found;
    const lock = { key: `${key}#lock`, holder: randomId() };
    const deadline = this.now() + Math.min(this.options.lockWaitMs, this.options.waitMs);
    let pause = FIRST_POLL_MS;
    for (let first = true; ; first = false) {
      const locked = await this.guard('lock', () => this.store.setIfAbsent(lock.key, lock.holder, this.lockTtlMs));
      // A lock request that timed out is not cancelled: it may still take the lock, which nobody would then
      // release and others would wait on for its whole life. So the token is stored and the lock released
      // as if it were ours; both go after the lock request on the store's connection, so neither overtakes it.
      if (locked === FAILED) return this.exchangeAndStore(key, exchange, lock);
      if (locked) return this.asLockHolder(key, exchange, lock);
      // Another's lock. Its life is read once (it only shortens): one no broker sets is not waited on.
      if (first && (await this.outlives(lock.key, this.lockTtlMs))) return this.pastHeldLock(key, exchange);
      if (this.now() + pause > deadline) return this.pastHeldLock(key, exchange);
      await sleep(pause);
      pause = Math.min(pause * 2, MAX_POLL_MS);
      const value = await this.read(key);
      if (value === FAILED) return exchange();
      if (value) return value;
    }
  }

  /**
   * Takes `key` for `ttlMs` for this instance alone (a marker, like the lock, but left to expire): true
   * when taken here, false when another instance took it, undefined when the store did not answer or the
   * marker there was set by no broker (it outlives `ttlMs`, reported as `held`). Never throws.
   */
  async claim(key: string, ttlMs: number): Promise<boolean | undefined> {
    const taken = await this.guard('lock', () => this.store.setIfAbsent(key, randomId(), ttlMs));
    if (taken === FAILED) return undefined;
    if (taken || !(await this.outlives(key, ttlMs))) return taken;
    this.options.emit({ type: 'store-error', operation: 'lock', kind: 'held' });
    return undefined;
  }

  /**
   * Drops `key` from the store (its subject token was refused); never throws. A caller that need not wait
   * for it does not await it: a failure is reported as a `store-error` event all the same.
   */
  forget(key: string): Promise<void> {
    return this.later(this.guard('delete', () => this.store.delete(key)));
  }

  /** Settles once the writes under way now have settled; never rejects. A worker's waitUntil gets it. */
  settled(): Promise<void> {
    return Promise.all(this.afterAnswer).then(() => undefined);
  }

  /** `work`, kept in `afterAnswer` until it settles (it never rejects: guard). */
  private later(work: Promise<unknown>): Promise<void> {
    const done = work.then(() => undefined);
    this.afterAnswer.add(done);
    void done.then(() => this.afterAnswer.delete(done));
    return done;
  }

  /** With the lock: the token another instance stored meanwhile, else this instance's exchange. */
  private async asLockHolder(key: string, exchange: () => Promise<IssuedToken>, lock: Lock): Promise<DatedToken> {
    // Another instance may have stored the token and released the lock between our read and our lock.
    const stored = await this.read(key);
    if (stored && stored !== FAILED) {
      void this.later(this.release(lock));
      return stored;
    }
    return this.exchangeAndStore(key, exchange, lock);
  }

  /** Past a lock this instance does not wait on (any longer): reported, then its own exchange, stored. */
  private pastHeldLock(key: string, exchange: () => Promise<IssuedToken>): Promise<DatedToken> {
    this.options.emit({ type: 'store-error', operation: 'lock', kind: 'held' });
    return this.exchangeAndStore(key, exchange);
  }

  /**
   * Whether `key` lives longer than `ms`: it never expires, or expires later than a broker would have it.
   * False when the store cannot tell (no `remainingMs`, or no answer).
   */
  private async outlives(key: string, ms: number): Promise<boolean> {
    const { store } = this;
    if (typeof store.remainingMs !== 'function') return false;
    const left = await this.guard('lock', () => store.remainingMs!(key));
    return typeof left === 'number' && left > ms;
  }

  /** The exchange; answered at once, while the token is saved and then the lock, if this instance holds it, released. */
  private async exchangeAndStore(key: string, exchange: () => Promise<IssuedToken>, lock?: Lock): Promise<DatedToken> {
    let issued: IssuedToken;
    try {
      issued = await exchange();
    } catch (error) {
      if (lock) void this.later(this.release(lock));
      throw error;
    }
    void this.later(this.saveThenRelease(key, issued, lock));
    return issued;
  }

  /**
   * The save first, the release after it: an instance waiting on the lock polls for the value, and one
   * that saw the lock gone before the value would take it and exchange again. Never throws (guard).
   */
  private async saveThenRelease(key: string, issued: IssuedToken, lock: Lock | undefined): Promise<void> {
    // A token without a lifetime is valid until a 401: nothing bounds it in the store, so it stays local.
    if (issued.expiresIn !== undefined) {
      const now = this.now();
      const value: Stored = { t: issued.accessToken, x: now + issued.expiresIn * 1000, i: now };
      const ttlMs = cacheLifetimeMs(issued.expiresIn);
      if (ttlMs > 0) await this.guard('set', () => this.store.set(key, JSON.stringify(value), ttlMs));
    }
    if (lock) await this.release(lock);
  }

  /** Releases the lock if it is still this holder's (compare and delete); never throws. */
  private async release(lock: Lock): Promise<void> {
    await this.guard('lock', () => this.store.compareAndDelete(lock.key, lock.holder));
  }

  /** The stored token, undefined on a miss, FAILED when the store did not answer. */
  private async read(key: string): Promise<DatedToken | undefined | typeof FAILED> {
    const value = await this.guard('get', () => this.store.get(key));
    if (value === FAILED) return FAILED;
    if (typeof value !== 'string') return undefined;
    let stored: Partial<Stored>;
    try {
      stored = JSON.parse(value) as Partial<Stored>;
    } catch {
      return undefined;
    }
    if (typeof stored?.t !== 'string' || typeof stored.x !== 'number') return undefined;
    const remainingMs = stored.x - this.now();
    if (!(remainingMs >= MIN_REMAINING_MS)) return undefined;
    const issuedAt = typeof stored.i === 'number' && stored.i <= this.now() ? stored.i : undefined;
    return { accessToken: stored.t, expiresIn: remainingMs / 1000, ...(issuedAt === undefined ? {} : { issuedAt }) };
  }

  /**
   * Runs one store call, bounded by the timeout; a failure is reported and read as FAILED.
   *
   * The call times out once `timeoutMs` went by without an answer while this process ran on time. When the
   * timer fires, an answer may already wait behind it (a busy event loop runs timers before I/O): one more
   * turn lets it win. If that timer fired late, or that turn was long, the process was held up (a blocked
   * or overloaded event loop: the command may not even have been written yet, or its reply not read), so
   * the call gets another bound from now; at most MAX_BOUNDS bounds in all.
   */
  private guard<T>(operation: StoreOperation, call: () => Promise<T>): Promise<T | typeof FAILED> {
    return new Promise((resolve) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (result: T | typeof FAILED, kind?: 'timeout' | 'error') => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (kind) this.options.emit({ type: 'store-error', operation, kind });
        resolve(result);
      };
      const { timeoutMs } = this.options;
      const giveUpAt = performance.now() + MAX_BOUNDS * timeoutMs;
      const bound = (ms: number) => {
        const due = performance.now() + ms;
        const utilization = loopUtilization();
        timer = setTimeout(() => {
          const fired = performance.now();
          timer = setTimeout(() => {
            const turned = performance.now();
            const heldUp = fired - due > HELD_UP_MS || turned - fired > HELD_UP_MS || utilization() > BUSY_LOOP;
            if (heldUp && turned < giveUpAt) bound(Math.min(timeoutMs, giveUpAt - turned));
            else finish(FAILED, 'timeout');
          }, 0);
        }, ms);
      };
      bound(timeoutMs);
      let pending: Promise<T>;
      try {
        pending = Promise.resolve(call());
      } catch {
        finish(FAILED, 'error');
        return;
      }
      pending.then(
        (result) => finish(result),
        () => finish(FAILED, 'error'),
      );
    });
  }
}

type Utilization = { idle: number; active: number; utilization: number };
const elu = (globalThis.performance as { eventLoopUtilization?: (since?: Utilization) => Utilization } | undefined)?.eventLoopUtilization;

/** From now on, the share of time the event loop was busy; always 0 where the runtime does not tell (not Node). */
function loopUtilization(): () => number {
  if (typeof elu !== 'function') return () => 0;
  const start = elu.call(performance);
  return () => elu.call(performance, start).utilization;
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
