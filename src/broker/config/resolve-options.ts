/**
 * The broker's options checked and resolved: each option's check and default in one table, held by the
 * compiler to TokenBrokerOptions (options.ts), so a wrong deployment fails at start-up with the option named.
 * Apart from options.ts so the table's type stays out of the published declarations.
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
} from '../../core/config.js';
import { BioIDError } from '../../core/errors.js';
import { tokenEndpoint, type IdpClient } from '../../core/exchange.js';
import type { FetchLike } from '../../core/http.js';
import type { BrokerRefusal } from '../refusal.js';
import type { BrokerEventListener } from '../events.js';
import { isTokenStore } from '../store/token-store.js';
import {
  DEFAULT_BROKER_TIMEOUT_MS,
  DEFAULT_MAX_CACHED_USERS,
  DEFAULT_MAX_REUSE_MS,
  DEFAULT_REFUSED_TOKEN_INTERVAL_MS,
  DEFAULT_REFUSED_TOKEN_MIN_AGE_MS,
  DEFAULT_STORE_LOCK_WAIT_MS,
  DEFAULT_STORE_TIMEOUT_MS,
  type TokenBrokerOptions,
  type TokenExchangeOptions,
} from './options.js';

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
