/**
 * Options of the reference token broker and their validation. Everything is checked when the broker is
 * created, so a wrong deployment fails at start-up with the option named, not on a user's first click.
 */
import {
  type Check,
  isLoopback,
  millisecondsOr,
  optionalFunction,
  optionalString,
  passThrough,
  readOptions,
  realmOf,
  requireSecureUrl,
  requireString,
  type Options,
} from '../core/config.js';
import { BioIDError } from '../core/errors.js';
import { tokenEndpoint, type IdpClient } from '../core/exchange.js';
import type { FetchLike } from '../core/http.js';
import type { BrokerRefusal } from './refusal.js';
import type { BrokerContext } from './context.js';
import type { BrokerEventListener } from './events.js';
import { isTokenStore, type TokenStore } from './store.js';

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

const WHERE = 'createTokenBroker';

const configError = (message: string) => new BioIDError('config', `${WHERE}: ${message}`);

/**
 * Every option, its check and its default: the one list of the broker's option names, held by the compiler
 * to TokenBrokerOptions (a key missing here, or here only, does not compile). ResolvedBrokerOptions is what
 * these checks return, so an option is written twice: in the interface, for its docs, and here.
 */
const OPTIONS = {
  issuerUrl: requireSecureUrl,
  realm: optionalString,
  clientId: (value: unknown, field: string) => requireString(value, field),
  clientSecret: (value: unknown, field: string) =>
    requireString(value, field, 'the client secret of your machine identity, from server-side configuration.'),
  audience: optionalString,
  scope: optionalString,
  authorize: (value: unknown): TokenBrokerOptions['authorize'] => {
    if (typeof value !== 'function') {
      throw configError(
        'authorize is required: a function (request, context) that returns something truthy only for a signed-in user of your application (spec 4.1: unauthenticated callers must not receive a token).',
      );
    }
    return value as TokenBrokerOptions['authorize'];
  },
  tokenExchange: (value: unknown) => readTokenExchange(value),
  allowedOrigins: (value: unknown) => readOrigins(value),
  requireCsrfHeader: (value: unknown) => {
    if (value !== undefined && typeof value !== 'boolean') throw configError('requireCsrfHeader must be true or false.');
    return value !== false;
  },
  fetchImpl: optionalFunction<FetchLike>,
  timeoutMs: millisecondsOr(DEFAULT_BROKER_TIMEOUT_MS),
  logger: (value: unknown, field: string) =>
    optionalFunction<(message: string) => void>(value, field) ?? ((message: string) => console.warn(message)),
  middlewareUrl: (value: unknown, field: string) => (value === undefined ? undefined : requireSecureUrl(value, field)),
  onRefusal: optionalFunction<(refusal: BrokerRefusal) => void>,
  store: (value: unknown) => {
    if (value === undefined) return undefined;
    if (!isTokenStore(value)) {
      throw configError(
        'store must be a TokenStore (get, set, delete, setIfAbsent, compareAndDelete), for example redisTokenStore({ client, encryptionKey }).',
      );
    }
    return value;
  },
  storeTimeoutMs: millisecondsOr(DEFAULT_STORE_TIMEOUT_MS),
  onEvent: optionalFunction<BrokerEventListener>,
  refusedTokenMinAgeMs: millisecondsOr(DEFAULT_REFUSED_TOKEN_MIN_AGE_MS),
  refusedTokenIntervalMs: millisecondsOr(DEFAULT_REFUSED_TOKEN_INTERVAL_MS),
  storeLockWaitMs: millisecondsOr(DEFAULT_STORE_LOCK_WAIT_MS),
} satisfies { [K in keyof TokenBrokerOptions]-?: Check<unknown> };
const EXCHANGE_OPTIONS = { subjectToken: passThrough, maxCachedUsers: passThrough, maxReuseMs: millisecondsOr(DEFAULT_MAX_REUSE_MS) };

/** The options the identity provider's client is made of, resolved into `client` and `endpoint`. */
type ClientOption = 'issuerUrl' | 'realm' | 'clientId' | 'clientSecret' | 'audience' | 'scope';

/** The options after validation, with defaults applied: each as its check in OPTIONS returns it. */
export type ResolvedBrokerOptions = Omit<Options<typeof OPTIONS>, ClientOption> & { client: IdpClient; endpoint: string };

export function resolveBrokerOptions(options: TokenBrokerOptions): ResolvedBrokerOptions {
  const o = readOptions(options, OPTIONS, `${WHERE}(options)`, `${WHERE}: `);
  if (o.realm === undefined && !realmOf(o.issuerUrl)) {
    throw configError(
      'realm is required (the realm in {issuerUrl}/realms/<realm>/protocol/openid-connect/token), unless issuerUrl ends in /realms/<realm>.',
    );
  }
  const { issuerUrl, realm, clientId, clientSecret, audience, scope, ...rest } = o;
  // Plain http outside loopback sends the session cookie and the token in the clear: allowed (intranets),
  // but said once at start-up.
  for (const origin of o.allowedOrigins) {
    if (origin.startsWith('http:') && !isLoopback(new URL(origin).hostname)) {
      o.logger(
        `${WHERE}: allowedOrigins has ${origin}, a plain-http origin: tokens and session cookies cross the network unencrypted. Serve it over https.`,
      );
    }
  }
  return { ...rest, client: { issuerUrl, realm, clientId, clientSecret, audience, scope }, endpoint: tokenEndpoint(issuerUrl, realm) };
}

function readTokenExchange(value: unknown): Required<TokenExchangeOptions> | undefined {
  if (value === undefined) return undefined;
  const t = readOptions(value, EXCHANGE_OPTIONS, `${WHERE}: tokenExchange`, `${WHERE}: tokenExchange.`);
  if (typeof t.subjectToken !== 'function') {
    throw configError(
      "tokenExchange.subjectToken is required: a function (request, context) returning the end user's access token from your identity provider.",
    );
  }
  const max = t.maxCachedUsers ?? DEFAULT_MAX_CACHED_USERS;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    throw configError('tokenExchange.maxCachedUsers must be a positive whole number.');
  }
  return { subjectToken: t.subjectToken as TokenExchangeOptions['subjectToken'], maxCachedUsers: max, maxReuseMs: t.maxReuseMs };
}

/** Exact origins, normalised as browsers send them in the Origin header (scheme://host[:port]). */
function readOrigins(value: unknown): ReadonlySet<string> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value)) throw configError('allowedOrigins must be an array of origins such as "https://app.example.com".');
  const origins = new Set<string>();
  for (const entry of value) {
    if (entry === '*' || entry === 'null') {
      throw configError(
        `allowedOrigins must list exact origins; "${entry}" would hand tokens to any site. Give the origins of your frontend, for example "https://app.example.com".`,
      );
    }
    if (typeof entry !== 'string') throw configError('allowedOrigins entries must be strings such as "https://app.example.com".');
    // A browser sends one exact origin; a pattern such as https://*.example.com would match none of them.
    if (entry.includes('*')) {
      throw configError(
        `allowedOrigins entry "${entry.slice(0, 100)}" is a pattern; list each exact origin (for example "https://shop.example.com").`,
      );
    }
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw configError(
        `allowedOrigins entry "${entry.slice(0, 100)}" is not an origin; write it as scheme://host[:port], for example "https://app.example.com".`,
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw configError(`allowedOrigins entry "${entry.slice(0, 100)}" must be an http(s) origin.`);
    }
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.password || /\/./.test(entry.replace(/^[a-z]+:\/\//i, ''))) {
      throw configError(
        `allowedOrigins entry "${entry.slice(0, 100)}" must be an origin only (scheme://host[:port]), without a path, query or credentials.`,
      );
    }
    origins.add(url.origin);
  }
  return origins;
}
