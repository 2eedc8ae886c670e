/**
 * Tokens shared through a `TokenStore` by brokers running as several instances: one exchange with the
 * identity provider per cache key per token life across all of them (docs/broker.md, "Several instances").
 *
 * On a local miss the broker asks `obtain`: the store's value if there is one; otherwise the instance that
 * takes the key's lock exchanges, stores the token for its cache lifetime and releases the lock, while
 * the others poll the store for that value (at most `waitMs`, the IdP timeout) and then exchange on their
 * own. Fail-open: a store call that throws or takes longer than `timeoutMs` counts as a miss and is
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
import { cacheLifetimeMs, type IssuedToken } from '../core/token-cache.js';
import type { BrokerEvent, StoreOperation } from './events.js';
import type { TokenStore } from './store.js';

export interface SharedTokensOptions {
  store: TokenStore;
  /** Bound of each store call. */
  timeoutMs: number;
  /** How long an instance without the lock waits for another's token (the IdP timeout). */
  waitMs: number;
  emit: (event: BrokerEvent) => void;
  now?: () => number;
}

/** What is stored: the token and when (epoch ms) the issuer said it expires. */
interface Stored {
  t: string;
  x: number;
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

  constructor(private readonly options: SharedTokensOptions) {
    this.store = options.store;
    this.now = options.now ?? Date.now;
  }

  /** The token for `key`: the store's, or one from `exchange` that is then stored for the other instances. */
  async obtain(key: string, exchange: () => Promise<IssuedToken>): Promise<IssuedToken> {
    const found = await this.read(key);
    if (found === FAILED) return exchange();
    if (found) return found;
    const lockKey = `${key}#lock`;
    const holder = randomId();
    // Held longer than the holder can take (its IdP exchange is bounded by waitMs, its lock and save calls
    // by guard), so it never lapses while the holder still works, and a holder that died frees it soon after.
    const lockTtlMs = this.options.waitMs + 2 * MAX_BOUNDS * this.options.timeoutMs + 1_000;
    const deadline = this.now() + this.options.waitMs;
    let pause = FIRST_POLL_MS;
    for (;;) {
      const locked = await this.guard('lock', () => this.store.setIfAbsent(lockKey, holder, lockTtlMs));
      // A lock request that timed out is not cancelled: it may still take the lock, which nobody would then
      // release and others would wait on for its whole life. So the token is stored and the lock released
      // as if it were ours; both go after the lock request on the store's connection, so neither overtakes it.
      if (locked === FAILED) return this.exchangeAndStore(key, lockKey, holder, exchange);
      if (locked) {
        // Another instance may have stored the token and released the lock between our read and our lock.
        const stored = await this.read(key);
        if (stored && stored !== FAILED) {
          void this.later(this.release(lockKey, holder));
          return stored;
        }
        return this.exchangeAndStore(key, lockKey, holder, exchange);
      }
      if (this.now() + pause > deadline) return exchange();
      await sleep(pause);
      pause = Math.min(pause * 2, MAX_POLL_MS);
      const value = await this.read(key);
      if (value === FAILED) return exchange();
      if (value) return value;
    }
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

  /** The holder's exchange; answered at once, while the token is saved and then the lock released. */
  private async exchangeAndStore(key: string, lockKey: string, holder: string, exchange: () => Promise<IssuedToken>): Promise<IssuedToken> {
    let issued: IssuedToken;
    try {
      issued = await exchange();
    } catch (error) {
      void this.later(this.release(lockKey, holder));
      throw error;
    }
    void this.later(this.saveThenRelease(key, issued, lockKey, holder));
    return issued;
  }

  /**
   * The save first, the release after it: an instance waiting on the lock polls for the value, and one
   * that saw the lock gone before the value would take it and exchange again. Never throws (guard).
   */
  private async saveThenRelease(key: string, issued: IssuedToken, lockKey: string, holder: string): Promise<void> {
    // A token without a lifetime is valid until a 401: nothing bounds it in the store, so it stays local.
    if (issued.expiresIn !== undefined) {
      const value: Stored = { t: issued.accessToken, x: this.now() + issued.expiresIn * 1000 };
      const ttlMs = cacheLifetimeMs(issued.expiresIn);
      if (ttlMs > 0) await this.guard('set', () => this.store.set(key, JSON.stringify(value), ttlMs));
    }
    await this.release(lockKey, holder);
  }

  /** Releases the lock if it is still this holder's (compare and delete); never throws. */
  private async release(lockKey: string, holder: string): Promise<void> {
    await this.guard('lock', () => this.store.compareAndDelete(lockKey, holder));
  }

  /** The stored token, undefined on a miss, FAILED when the store did not answer. */
  private async read(key: string): Promise<IssuedToken | undefined | typeof FAILED> {
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
    return { accessToken: stored.t, expiresIn: remainingMs / 1000 };
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
