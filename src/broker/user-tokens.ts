/**
 * Middleware tokens per end user for the RFC 8693 variant: one core `TokenCache` per subject token, so
 * users never share a token and each user still gets single flight and caching just under expires_in.
 *
 * Privacy and memory bounds:
 *  - entries are keyed by a SHA-256 hash of the subject token, never by the token itself;
 *  - the raw subject token is held only while its exchange is in flight, then dropped;
 *  - expired entries are swept, and at most `maxEntries` users are cached (oldest evicted first), so a
 *    stream of distinct users cannot grow the map without limit.
 */
import { TokenCache, type IssuedToken } from '../core/token-cache.js';

/** One end user's cache. */
class Entry {
  readonly cache: TokenCache;
  /** The subject token for the exchange in flight; cleared when it settles. */
  subjectToken: string | undefined;
  /** Requests currently waiting on this entry; a busy entry is never evicted. */
  busy = 0;

  constructor(exchange: (subjectToken: string) => Promise<IssuedToken>) {
    this.cache = new TokenCache(() => {
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

export class UserTokens {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly exchange: (subjectToken: string) => Promise<IssuedToken>,
    private readonly maxEntries: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  async get(subjectToken: string): Promise<UserTokenResult> {
    const key = await hashToken(subjectToken);
    let entry = this.entries.get(key);
    if (!entry) {
      this.makeRoom();
      entry = new Entry(this.exchange);
      this.entries.set(key, entry);
    }
    // Same hash, same token: safe to (re)arm the exchange with it.
    entry.subjectToken = subjectToken;
    entry.busy += 1;
    try {
      const accessToken = await entry.cache.get();
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

/** base64url SHA-256 through Web Crypto, so the broker runs in Node, workers and edge runtimes alike. */
async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  let binary = '';
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
