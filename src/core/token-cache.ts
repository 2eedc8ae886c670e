/**
 * One token, cached and fetched single-flight. Every token holder in the project uses this class: the
 * SDK's token sources, the elements' broker client and the reference broker (one per end user in
 * token-exchange mode). Rules, in one place:
 *  - one in-flight fetch shared by all concurrent callers, cleared in `finally`; a rejection is never cached;
 *  - a token with a lifetime is kept until just under `expires_in` (spec 5.6);
 *  - after a 401, `refresh(stale)` fetches anew only if `stale` is still the current token, so a burst
 *    of 401s for one token causes one refresh, and a 401 for an already replaced token reuses the new one.
 */

export interface IssuedToken {
  accessToken: string;
  /** Lifetime in seconds (the `expires_in` of the token response); absent = valid until a 401. */
  expiresIn?: number;
}

/** Longest time a token is cached, whatever the issuer says: a bound against a bogus huge expires_in. */
export const MAX_CACHE_SECONDS = 24 * 60 * 60;

/**
 * How long before expiry a token is replaced. 30 s for normal tokens, but never more than a tenth of
 * the lifetime: a 20 s token is used for 18 s, not refetched on every call (no refresh storm).
 */
export function cacheLifetimeMs(expiresInSeconds: number): number {
  const lifetimeMs = Math.min(expiresInSeconds, MAX_CACHE_SECONDS) * 1000;
  const leewayMs = Math.min(30_000, lifetimeMs / 10);
  return lifetimeMs - leewayMs;
}

interface Held {
  value: string;
  /** Epoch ms after which the token is not handed out; Infinity when the issuer gave no lifetime. */
  expiresAt: number;
}

export class TokenCache {
  /** The token handed out and until when (protected: TimedTokenCache reads its remaining life). */
  protected held: Held | undefined;
  #inflight: Promise<string> | undefined;

  constructor(
    /** Fetches a token; after a 401, `refused` is the token the middleware refused (the broker client tells its broker). */
    private readonly obtain: (refused?: string) => Promise<IssuedToken>,
    protected readonly now: () => number = Date.now,
  ) {}

  /** The cached token if it is still fresh, else a fetched one (shared with concurrent callers). */
  get(): Promise<string> {
    const held = this.held;
    if (held && this.now() < held.expiresAt) return Promise.resolve(held.value);
    return this.#fetch();
  }

  /** After a 401 for `stale`: a fresh token, reusing one that already replaced `stale`. */
  refresh(stale: string): Promise<string> {
    if (this.#inflight) return this.#inflight;
    const held = this.held;
    if (held && held.value !== stale && this.now() < held.expiresAt) return Promise.resolve(held.value);
    this.drop(stale);
    return this.#fetch(stale);
  }

  /** Forgets `refused` if it is the cached token: a token the middleware refused is never handed out again (spec 5.3). */
  drop(refused: string): void {
    if (this.held?.value === refused) this.held = undefined;
  }

  /** Forgets the cached token (sign-out, configuration change); a fetch under way still answers its callers but is not kept. */
  clear(): void {
    this.held = undefined;
    this.#inflight = undefined;
  }

  #fetch(refused?: string): Promise<string> {
    if (!this.#inflight) {
      const flight = this.obtain(refused)
        .then((issued) => {
          const expiresAt = issued.expiresIn === undefined ? Infinity : this.now() + cacheLifetimeMs(issued.expiresIn);
          // Only the flight still current may store its token; a cleared cache is not refilled by a stale flight.
          if (this.#inflight === flight) this.held = { value: issued.accessToken, expiresAt };
          return issued.accessToken;
        })
        .finally(() => {
          if (this.#inflight === flight) this.#inflight = undefined;
        });
      this.#inflight = flight;
    }
    return this.#inflight;
  }
}

/** A token as a broker obtains it: `issuedAt`, when it was issued earlier (read from a shared store), else now. */
export interface DatedToken extends IssuedToken {
  /** Epoch ms at which the token was issued, when that was before it was obtained here. */
  issuedAt?: number;
}

/**
 * A TokenCache that also tells how long its token has left, for a token broker to report as its answers'
 * expires_in (src/broker/handler.ts, user-tokens.ts), and how long ago it was issued, for the broker to
 * judge a client's claim that the middleware refused it (src/broker/refused-token.ts). A class apart: the
 * browser script's caches never report either, so the script does not carry it.
 */
export class TimedTokenCache extends TokenCache {
  /** The last token obtained and when it was issued; `servedMs` trusts it only while it is the held one. */
  private readonly issued: { token?: string; at: number };

  constructor(obtain: (refused?: string) => Promise<DatedToken>, now: () => number = Date.now) {
    const issued: { token?: string; at: number } = { at: 0 };
    super(async (refused) => {
      const token = await obtain(refused);
      issued.token = token.accessToken;
      issued.at = token.issuedAt ?? now();
      return token;
    }, now);
    this.issued = issued;
  }

  /** Milliseconds since `token` was issued, while it is the token this cache hands out; undefined otherwise. */
  servedMs(token: string): number | undefined {
    const { held, issued } = this;
    if (held?.value !== token || issued.token !== token || !(this.now() < held.expiresAt)) return undefined;
    return Math.max(0, this.now() - issued.at);
  }

  /** Seconds of life left in the cached token (what a broker reports as expires_in), or undefined. */
  remainingSeconds(): number | undefined {
    const held = this.held;
    if (!held || !Number.isFinite(held.expiresAt)) return undefined;
    return Math.max(0, Math.floor((held.expiresAt - this.now()) / 1000));
  }
}

/**
 * base64url SHA-256 of a token through Web Crypto (Node, browsers in a secure context, workers, edge
 * runtimes): how a token is named where the token itself must not travel or be kept.
 */
export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  let binary = '';
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
