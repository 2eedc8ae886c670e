/**
 * Middleware tokens per end user for the RFC 8693 variant: one core `TokenCache` per subject token, so
 * users never share a token and each user still gets single flight and caching just under expires_in.
 *
 * Privacy and memory bounds:
 *  - entries are keyed by a SHA-256 hash of the subject token, never by the token itself;
 *  - the raw subject token is held only while its exchange is in flight, then dropped;
 *  - expired entries are swept, and at most `maxEntries` users are held, exchanges in flight included
 *    (the oldest settled entries are evicted first), so neither a stream of distinct users nor a burst of
 *    them at once can grow the map beyond its bound. When every held entry is still in flight, a new user
 *    is answered from an exchange of its own that is not stored.
 *
 * Revocation bounds: the identity provider decides again at least every `maxReuseMs`
 *  - a cached token is served for at most `maxReuseMs` after its exchange (default 60 s), and the answer's
 *    expires_in says so, so the browser comes back too; the next request exchanges the subject token
 *    again, and a refusal serves nothing and drops the entry;
 *  - when a user's subject token changes (an exchange of a new one issues a token for the same `sub`), the
 *    entries of that user's earlier subject tokens are dropped at once.
 */
import { TimedTokenCache, hashToken, type DatedToken } from '../core/token-cache.js';
import { DEFAULT_MAX_REUSE_MS, DEFAULT_REFUSED_TOKEN_INTERVAL_MS, DEFAULT_REFUSED_TOKEN_MIN_AGE_MS } from './config/options.js';
import { RefusedTokens, type HintTarget } from './refused-token.js';

/** One end user's cache, and the hints (X-Refused-Token) for its tokens. */
class Entry implements HintTarget {
  readonly cache: TimedTokenCache;
  honouredAt = -Infinity;
  replacing?: HintTarget['replacing'];
  /** The subject token for the exchange in flight; cleared when it settles. */
  subjectToken: string | undefined;
  /** Requests currently waiting on this entry; a busy entry is never evicted. */
  busy = 0;
  /** The end user (`sub`) the identity provider issued this entry's token for, when its tokens name one. */
  user: string | undefined;
  /** False for an entry never put in the map (it was full of exchanges in flight): it serves one request. */
  stored = false;

  constructor(
    /** The subject token's hash. */
    readonly key: string,
    exchange: (subjectToken: string) => Promise<DatedToken>,
  ) {
    this.cache = new TimedTokenCache(() => {
      const token = this.subjectToken;
      if (token === undefined) return Promise.reject(new Error('no subject token for this exchange'));
      return exchange(token).finally(() => {
        this.subjectToken = undefined;
      });
    });
  }
}

export interface UserTokenResult {
  accessToken: string;
  /** What is left of the cached token's life, in seconds. */
  remainingSeconds: number | undefined;
}

export interface UserTokensOptions {
  /** Default DEFAULT_MAX_REUSE_MS. */
  maxReuseMs?: number;
  /**
   * Told the hash of each subject token whose entry is retired here (replaced by a newer one), so a shared
   * store can drop it too.
   */
  onRetire?: (subjectTokenHash: string) => unknown;
  /** Judges X-Refused-Token (rule 13) for an entry, keyed by its subject token's hash; default: the defaults, no store. */
  refusals?: RefusedTokens;
}

export class UserTokens {
  private readonly entries = new Map<string, Entry>();
  private readonly maxReuseMs: number;
  private readonly onRetire: UserTokensOptions['onRetire'];
  private readonly refusals: RefusedTokens;

  constructor(
    /** Given the subject token and its hash (the key of its entry, so a shared store need not hash it again). */
    private readonly exchange: (subjectToken: string, subjectTokenHash: string) => Promise<DatedToken>,
    private readonly maxEntries: number,
    options: UserTokensOptions = {},
  ) {
    this.maxReuseMs = options.maxReuseMs ?? DEFAULT_MAX_REUSE_MS;
    this.onRetire = options.onRetire;
    this.refusals =
      options.refusals ??
      new RefusedTokens({ minAgeMs: DEFAULT_REFUSED_TOKEN_MIN_AGE_MS, intervalMs: DEFAULT_REFUSED_TOKEN_INTERVAL_MS, emit: () => {} });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The user's token; `refused`, the hash of a token the middleware refused (X-Refused-Token), may replace that one (refused-token.ts). */
  async get(subjectToken: string, refused?: string | null): Promise<UserTokenResult> {
    const key = await hashToken(subjectToken);
    let entry = this.entries.get(key);
    if (!entry) {
      this.makeRoom();
      entry = this.newEntry(key);
      // An in-flight entry cannot be evicted (its requests wait on it), so a full map of them leaves no
      // room: this request still gets its token, from an entry no one else shares, and nothing is stored.
      if (this.entries.size < this.maxEntries) {
        this.entries.set(key, entry);
        entry.stored = true;
      }
    }
    // Same hash, same token: safe to (re)arm the exchange with it.
    entry.subjectToken = subjectToken;
    entry.busy += 1;
    try {
      const held = await entry.cache.get();
      // An exchange just made consumed the subject token: re-arm it for a refusal's exchange.
      entry.subjectToken = subjectToken;
      const accessToken = await this.refusals.answer(entry, held, refused);
      return { accessToken, remainingSeconds: entry.cache.remainingSeconds() };
    } catch (error) {
      // A failure is not cached (TokenCache) and leaves no entry behind either.
      if (this.entries.get(key) === entry && entry.busy === 1) this.entries.delete(key);
      throw error;
    } finally {
      entry.busy -= 1;
      if (entry.cache.remainingSeconds() !== undefined) entry.subjectToken = undefined;
    }
  }

  /** An entry whose exchanges are reused for `maxReuseMs` at most and retire the user's earlier entries. */
  private newEntry(key: string): Entry {
    const entry = new Entry(key, async (subjectToken) => {
      const issued = await this.exchange(subjectToken, key);
      entry.user = userOf(issued.accessToken);
      // An entry already retired (a newer subject token won meanwhile) retires nothing. One never stored
      // (the map was full of exchanges in flight) still retires the user's earlier entries: it may be the
      // newest subject token, and dropping a newer one only costs an exchange.
      if (entry.user !== undefined && (!entry.stored || this.entries.get(key) === entry)) this.retireOthers(key, entry.user);
      return { ...issued, expiresIn: Math.min(issued.expiresIn ?? Infinity, this.maxReuseMs / 1000) };
    });
    return entry;
  }

  /** The user's subject token changed: tokens cached for the earlier ones are never served again. */
  private retireOthers(key: string, user: string): void {
    for (const [other, entry] of this.entries) {
      if (other !== key && entry.user === user) {
        entry.cache.clear();
        this.entries.delete(other);
        this.onRetire?.(other);
      }
    }
  }

  /** Drops expired entries; if still full, the oldest idle ones (Map order is insertion order). */
  private makeRoom(): void {
    this.sweepExpired();
    for (const [key, entry] of this.entries) {
      if (this.entries.size < this.maxEntries) break;
      if (entry.busy === 0) this.entries.delete(key);
    }
  }

  /** An entry with less than a second left counts as expired: it would be replaced within that second anyway. */
  private sweepExpired(): void {
    for (const [key, entry] of this.entries) {
      if (entry.busy === 0 && !(entry.cache.remainingSeconds()! > 0)) this.entries.delete(key);
    }
  }
}

/**
 * The `sub` of a JWT access token, or undefined for an opaque one. Read without verification: the token
 * comes straight from the identity provider's answer to our own exchange, and RFC 8693 names the end
 * user as its `sub` (the acting client goes into `act`).
 */
function userOf(accessToken: string): string | undefined {
  try {
    const payload = JSON.parse(atob(accessToken.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as { sub?: unknown };
    return typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}
