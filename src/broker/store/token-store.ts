/**
 * The shared token store: where brokers running as several instances keep the tokens they obtained, so
 * that together they make one exchange with the identity provider per token life (docs/broker.md,
 * "Several instances"). The broker talks only to this interface; `redisTokenStore` (redis.ts)
 * implements it over Redis or Valkey, `memoryTokenStore` in memory. A Workers KV namespace or a Durable
 * Object can implement it too.
 *
 * Keys and values are opaque strings. An implementation may fail or be slow: the broker bounds every call
 * (`storeTimeoutMs`) and treats a failure as a miss. `remainingMs` is optional: a store written before it
 * still works, without the check it allows (a lock that never expires is then waited on for
 * `storeLockWaitMs`).
 */
export interface TokenStore {
  /** The value stored under `key`, or undefined (null is read as undefined too). */
  get(key: string): Promise<string | undefined | null>;
  /** Stores `value` under `key` for `ttlMs` milliseconds. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Atomically stores `value` for `ttlMs` only if `key` holds nothing; true when it stored (the lock). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Atomically deletes `key` only if it holds `value` (the lock released by its holder only); true when it deleted. */
  compareAndDelete(key: string, value: string): Promise<boolean>;
  /**
   * Optional: how many milliseconds `key` has left to live, `Infinity` when it never expires, undefined (or
   * null) when it holds nothing (Redis's PTTL). The broker asks it of a lock it did not get: one that never
   * expires, or lives longer than a broker's own lock, was set by no broker and is not waited on.
   */
  remainingMs?(key: string): Promise<number | undefined | null>;
}

interface Held {
  value: string;
  expiresAt: number;
}

/**
 * A `TokenStore` in this process's memory, for one instance or for tests. Expired entries are dropped
 * when read and swept as new ones arrive. A `ttlMs` of `Infinity` stores a value that never expires.
 */
export function memoryTokenStore(options: { now?: () => number } = {}): TokenStore {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Held>();
  const live = (key: string): Held | undefined => {
    const held = entries.get(key);
    if (held && held.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return held;
  };
  let writes = 0;
  const put = (key: string, value: string, ttlMs: number) => {
    // Every so many writes, drop what expired, so keys never read again do not pile up.
    if (++writes % 64 === 0) for (const k of [...entries.keys()]) live(k);
    entries.set(key, { value, expiresAt: now() + Math.max(0, ttlMs) });
  };
  return {
    async get(key) {
      return live(key)?.value;
    },
    async set(key, value, ttlMs) {
      put(key, value, ttlMs);
    },
    async delete(key) {
      entries.delete(key);
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false;
      put(key, value, ttlMs);
      return true;
    },
    async compareAndDelete(key, value) {
      if (live(key)?.value !== value) return false;
      entries.delete(key);
      return true;
    },
    async remainingMs(key) {
      const held = live(key);
      return held && held.expiresAt - now();
    },
  };
}

const METHODS = ['get', 'set', 'delete', 'setIfAbsent', 'compareAndDelete'] as const;

/** Whether `value` has the five methods of a `TokenStore`. */
export function isTokenStore(value: unknown): value is TokenStore {
  return typeof value === 'object' && value !== null && METHODS.every((m) => typeof (value as Record<string, unknown>)[m] === 'function');
}
