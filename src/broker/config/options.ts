/**
 * Options of the reference token broker and their defaults. Everything is checked when the broker is
 * created (resolve-options.ts), so a wrong deployment fails at start-up with the option named, not on a
 * user's first click.
 */
import type { FetchLike } from '../../core/http.js';
import type { BrokerRefusal } from '../refusal.js';
import type { BrokerContext } from '../adapters/context.js';
import type { BrokerEventListener } from '../events.js';
import type { TokenStore } from '../store/token-store.js';

export interface TokenExchangeOptions {
  /**
   * The signed-in end user's access token from your own identity provider (RFC 8693 subject_token), for
   * example from the server-side session. A falsy result answers 401.
   */
  subjectToken(request: Request, context: BrokerContext): string | undefined | null | Promise<string | undefined | null>;
  /** Most end users whose middleware tokens are cached at once; default 10000. */
  maxCachedUsers?: number;
  /**
   * Longest time one user's middleware token is served from the cache (and the most expires_in says),
   * default 60000: after it the subject token is exchanged again, so the identity provider's refusal of a
   * revoked user takes effect within this bound.
   */
  maxReuseMs?: number;
}

export interface TokenBrokerOptions {
  /** Address of the identity provider (the "auth base address"), or its realm issuer `https://idp/realms/<realm>`. */
  issuerUrl: string;
  /** Realm in the token endpoint path; optional when issuerUrl ends in `/realms/<realm>`. */
  realm?: string;
  clientId: string;
  /** Server-side only; never logged, never sent anywhere but the identity provider. */
  clientSecret: string;
  /** Default `biometrics-middleware`. */
  audience?: string;
  scope?: string;
  /** The integrator's session gate (spec 4.1): a falsy result answers 401; a throw or rejection answers 500 (the session store failed). */
  authorize(request: Request, context: BrokerContext): unknown;
  /** RFC 8693 variant: exchange the end user's token instead of the plain client_credentials grant. */
  tokenExchange?: TokenExchangeOptions;
  /** Exact origins (`https://app.example.com`) allowed to call the broker cross-origin with credentials. Never `*`. */
  allowedOrigins?: string[];
  /** Default true: requests without `X-CSRF: 1` answer 403. Turn off only when SameSite cookies alone protect the session. */
  requireCsrfHeader?: boolean;
  fetchImpl?: FetchLike;
  /** Bound of each exchange with the identity provider; default 10000 ms. */
  timeoutMs?: number;
  /** Server-side failure lines (never secrets, tokens or IdP bodies); default console.warn. */
  logger?: (message: string) => void;
  /**
   * The middleware these tokens are for. When set, every answer names it (`middleware_url`) and the SDK
   * never sends the token to another origin (docs/wire-contract.md, "Tokens"), so injected markup cannot aim it elsewhere.
   */
  middlewareUrl?: string;
  /**
   * Called once per refused request with its reason, status, method and Origin (never a cookie or a token),
   * for your logs or metrics. Default: a structured log line for a preflight from an origin that is not in
   * allowedOrigins, which the page itself cannot explain; other refusals are not logged.
   */
  onRefusal?: (refusal: BrokerRefusal) => void;
  /**
   * Shared by several broker instances (`redisTokenStore`, or your own `TokenStore`) so that together they
   * make one exchange with the identity provider per token life. Without it, each instance caches in memory.
   */
  store?: TokenStore;
  /** Bound of each store call; a slower or failing call counts as a miss (fail-open). Default 100 ms. */
  storeTimeoutMs?: number;
  /** Typed events (`BrokerEvent`) for your metrics and logs; never a token, secret or subject token. A throwing listener changes no answer. */
  onEvent?: BrokerEventListener;
  /**
   * `X-Refused-Token` (docs/broker-contract.md, rule 13) replaces only a token issued at least this long
   * ago; default 1000 ms: the middleware refuses a token in its first second for a reason a new one shares,
   * not because it was revoked.
   */
  refusedTokenMinAgeMs?: number;
  /**
   * `X-Refused-Token` replaces a token at most once per this interval per cache key (the organisation's
   * token, or one user's), across the instances sharing a `store`; default 10000 ms. Within it a hint gets
   * the current token, so a client looping on the header costs one exchange per interval. Each hint is a
   * `refused-token` event.
   */
  refusedTokenIntervalMs?: number;
  /**
   * How long an instance waits for another instance's exchange (the store's lock) before it exchanges
   * itself; default 1000 ms, at most `timeoutMs`. A lock without an expiry, or with a longer one than a
   * broker sets, is not waited on: anyone who can write to the store can set one.
   */
  storeLockWaitMs?: number;
}

export const DEFAULT_BROKER_TIMEOUT_MS = 10_000;
export const DEFAULT_STORE_TIMEOUT_MS = 100;
export const DEFAULT_MAX_CACHED_USERS = 10_000;
export const DEFAULT_MAX_REUSE_MS = 60_000;
/** A token the middleware refuses within its first second is refused for a reason a new one shares. */
export const DEFAULT_REFUSED_TOKEN_MIN_AGE_MS = 1_000;
/** At most six replacements a minute per cache key, however fast a client loops. */
export const DEFAULT_REFUSED_TOKEN_INTERVAL_MS = 10_000;
/** A few times an exchange's usual round trip (a few hundred ms across the internet): a slow one costs an extra exchange, never a request. */
export const DEFAULT_STORE_LOCK_WAIT_MS = 1_000;
