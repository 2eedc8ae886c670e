/**
 * The reference token broker of spec 4.1: a web-standard `(Request) => Promise<Response>` handler that
 * gates on the integrator's session, exchanges the machine identity's client credentials (or, in the
 * RFC 8693 variant, the end user's token) for a middleware token through core's one exchange
 * implementation, and caches the token just under expires_in with single flight (core's TokenCache).
 * The rule numbers in the comments are those of docs/broker-contract.md.
 *
 * The decisions are made once, by `createBrokerCore`, on a small input (method, header lookup, a
 * Request made on demand) and give a plain answer (status, header record, body text). The web handler
 * wraps that in `Request`/`Response`; the Node adapters write it straight to `res`, since building a web
 * `Request` and `Response` per call costs more than everything else on the cached path.
 */
import { BioIDError } from '../core/errors.js';
import { clientCredentialsForm, exchangeToken, tokenExchangeForm } from '../core/exchange.js';
import { TimedTokenCache, type DatedToken, type IssuedToken } from '../core/token-cache.js';
import { corsHeaders, preflightAnswer, type HeaderRecord } from './cors.js';
import type { BrokerContext } from './context.js';
import { resolveBrokerOptions, type TokenBrokerOptions } from './options.js';
import { defaultRefusalLog, refusalOrigin, type RefusalReason } from './refusal.js';
import { tokenCacheKey } from './cache-key.js';
import { outcomeOf, safeEmitter, type ExchangeEvent } from './events.js';
import { SharedTokens } from './shared-tokens.js';
import { RefusedTokens } from './refused-token.js';
import { UserTokens } from './user-tokens.js';

export type TokenBrokerHandler = (request: Request, context?: BrokerContext) => Promise<Response>;

/** What the broker decides on: the method, a header by lower-case name, and the `Request` for the integrator's callbacks. */
export interface BrokerInput {
  readonly method: string;
  header(name: string): string | null;
  /** Called only when `authorize` or `subjectToken` is about to run, so refusals before it build none. */
  request(): Request;
}

/** The broker's answer before any web or Node response object exists. */
export interface BrokerAnswer {
  status: number;
  headers: HeaderRecord;
  body: string | null;
}

export type BrokerCore = (input: BrokerInput, context: BrokerContext) => Promise<BrokerAnswer>;

/** Where `createTokenBroker` keeps its core, so `toNodeHandler` can skip the web Request/Response round trip. */
export const BROKER_CORE: unique symbol = Symbol('bioid.brokerCore');

/** The core of a handler made by `createTokenBroker`, or undefined for any other function. */
export function coreOf(handler: TokenBrokerHandler): BrokerCore | undefined {
  return (handler as TokenBrokerHandler & { [BROKER_CORE]?: BrokerCore })[BROKER_CORE];
}

/** Generic texts only: the IdP's answer, the secret and stacks stay on the server (in the log, scrubbed). */
const MESSAGES = {
  method: 'Use GET to obtain a token.',
  csrf: 'Missing anti-CSRF header: send X-CSRF: 1.',
  'no-session': 'Sign in to obtain a token.',
  'no-cookie':
    "No session cookie arrived: the browser does not send cookies to a token broker on another site (SameSite, third-party cookie blocking). Host the token broker on the page's site.",
  'no-subject-token': 'No end-user token to exchange: sign in again.',
  exchangeFailed: 'The identity provider did not issue a token. Try again later.',
  userExchangeFailed:
    "The identity provider did not exchange the end user's token (it may have expired or not be trusted). Sign in again, or try later.",
  internal: 'The token broker failed. Try again later.',
} as const;

export function createTokenBroker(options: TokenBrokerOptions): TokenBrokerHandler {
  const core = createBrokerCore(options);
  const handler: TokenBrokerHandler = async (request, context = {}) => {
    const answer = await core({ method: request.method, header: (name) => request.headers.get(name), request: () => request }, context);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
  Object.defineProperty(handler, BROKER_CORE, { value: core });
  return handler;
}

export function createBrokerCore(options: TokenBrokerOptions): BrokerCore {
  const config = resolveBrokerOptions(options);
  const { client, endpoint, fetchImpl, timeoutMs, logger, allowedOrigins } = config;
  const exchangeOptions = { fetchImpl, timeoutMs };
  const log = (message: string) => {
    try {
      logger(`bioid token broker: ${message}`);
    } catch {
      // A failing logger must not turn a served token into an error.
    }
  };
  const onRefusal = config.onRefusal ?? defaultRefusalLog(log);
  const refuse = (reason: RefusalReason, status: number, input: BrokerInput, origin: string | null) => {
    try {
      onRefusal({ reason, status, method: input.method.slice(0, 20), origin: refusalOrigin(origin) });
    } catch {
      // As with the logger: reporting a refusal must not change the answer.
    }
  };
  /**
   * The headers of a JSON answer, made once per allowed origin (and once for every other caller): the
   * cached path answers with the same object each time instead of spreading a new one (measured with
   * --cpu-prof). Nothing writes to an answer's headers.
   */
  const jsonHeaders = new Map<string | null, HeaderRecord>();
  const headersFor = (origin: string | null): HeaderRecord => {
    const key = origin !== null && allowedOrigins.has(origin) ? origin : null;
    let headers = jsonHeaders.get(key);
    if (!headers) {
      headers = {
        ...corsHeaders(key, allowedOrigins),
        'Content-Type': 'application/json; charset=utf-8',
        // Rule 7: a token (or a refusal) must never be stored by a browser or a proxy.
        'Cache-Control': 'no-store',
        Pragma: 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      };
      jsonHeaders.set(key, headers);
    }
    return headers;
  };
  const json = (status: number, body: unknown, origin: string | null, extra?: HeaderRecord): BrokerAnswer => ({
    status,
    headers: extra ? { ...headersFor(origin), ...extra } : headersFor(origin),
    body: JSON.stringify(body),
  });
  /**
   * The body of the last token answer in client-credentials mode: every request in the same second gets
   * the same token and expires_in, so the text is made once instead of per request (JSON.stringify of
   * the token was 3% of a cached request, measured with --cpu-prof). Exchange mode keeps none: a user's
   * token must not outlive its own cache entry here.
   */
  let lastTokenBody: { accessToken: string; expiresIn: number; text: string } | undefined;
  const tokenAnswer = (accessToken: string, expiresIn: number, origin: string | null): BrokerAnswer => {
    const last = lastTokenBody;
    if (last && last.accessToken === accessToken && last.expiresIn === expiresIn)
      return { status: 200, headers: headersFor(origin), body: last.text };
    const body = { access_token: accessToken, expires_in: expiresIn };
    const text = JSON.stringify(config.middlewareUrl ? { ...body, middleware_url: config.middlewareUrl } : body);
    if (shared) lastTokenBody = { accessToken, expiresIn, text };
    return { status: 200, headers: headersFor(origin), body: text };
  };
  /** A 401 or 403 with its reason in the body (rules 3, 4, 5, 12). */
  const refusal = (
    status: 401 | 403,
    reason: 'csrf' | 'no-session' | 'no-cookie' | 'no-subject-token',
    input: BrokerInput,
    origin: string | null,
  ) => {
    refuse(reason, status, input, origin);
    return json(status, { error: MESSAGES[reason], reason }, origin);
  };

  // Client-credentials mode: one token for the whole organisation (spec 1: a machine identity).
  // Exchange mode: one cache per end user, never shared between users.
  // With a shared store (docs/broker.md, "Several instances"), a local miss asks the store before the
  // identity provider, so that all instances together make one exchange per token life.
  const exchange = config.tokenExchange;
  const emit = safeEmitter(config.onEvent);
  const store = config.store
    ? new SharedTokens({
        store: config.store,
        timeoutMs: config.storeTimeoutMs,
        waitMs: timeoutMs,
        lockWaitMs: config.storeLockWaitMs,
        emit,
      })
    : undefined;
  /** An IdP exchange, reported as an `exchange` event with its result and duration. */
  const timed = async (grant: ExchangeEvent['grant'], form: URLSearchParams): Promise<IssuedToken> => {
    const started = performance.now();
    const report = (result: ExchangeEvent['result'], status?: number) =>
      emit({ type: 'exchange', grant, result, ...(status === undefined ? {} : { status }), durationMs: performance.now() - started });
    try {
      const issued = await exchangeToken(endpoint, form, exchangeOptions);
      report('ok');
      return issued;
    } catch (error) {
      const status = error instanceof BioIDError ? error.status : undefined;
      report(
        error instanceof BioIDError && error.code === 'auth' && status !== undefined && status >= 400 && status < 500
          ? 'refused'
          : 'failed',
        status,
      );
      throw error;
    }
  };
  const machineToken = () => timed('client_credentials', clientCredentialsForm(client));
  const machineKey = tokenCacheKey(endpoint, client, 'client_credentials');
  /** A cache key in the store: the organisation's token (''), or a user's by their subject token's hash. */
  const storeKey = (key: string) => (exchange ? tokenCacheKey(endpoint, client, 'token-exchange', key) : machineKey);
  // Rule 13: X-Refused-Token is the caller's word, honoured within bounds (refused-token.ts).
  const refusals = new RefusedTokens({
    minAgeMs: config.refusedTokenMinAgeMs,
    intervalMs: config.refusedTokenIntervalMs,
    emit,
    ...(store && {
      claim: (key: string, intervalMs: number) => store.claim(`${storeKey(key)}#refused`, intervalMs),
      forget: (key: string) => store.forget(storeKey(key)),
    }),
  });
  const shared = exchange ? undefined : new TimedTokenCache(store ? () => store.obtain(machineKey, machineToken) : machineToken);
  const machine = shared && RefusedTokens.target('', shared);
  const userToken = (subjectToken: string): Promise<IssuedToken> => timed('token-exchange', tokenExchangeForm(client, subjectToken));
  const perUser = exchange
    ? new UserTokens(store ? (subjectToken, hash) => sharedUserToken(store, subjectToken, hash) : userToken, exchange.maxCachedUsers, {
        maxReuseMs: exchange.maxReuseMs,
        // A user's earlier subject token retired here is dropped from the store too (never awaited:
        // forget never throws and is bounded by storeTimeoutMs).
        onRetire: store && ((hash) => store.forget(storeKey(hash))),
        refusals,
      })
    : undefined;

  /**
   * One user's token through the store. What is stored is already capped at maxReuseMs, so no instance
   * serves it longer than the revocation bound; a subject token the IdP refuses is dropped from the store
   * too, so the other instances ask the IdP again instead of serving what was cached for it.
   */
  async function sharedUserToken(sharedStore: SharedTokens, subjectToken: string, subjectTokenHash: string): Promise<DatedToken> {
    const key = storeKey(subjectTokenHash);
    try {
      return await sharedStore.obtain(key, async () => {
        const issued = await userToken(subjectToken);
        return { accessToken: issued.accessToken, expiresIn: Math.min(issued.expiresIn ?? Infinity, exchange!.maxReuseMs / 1000) };
      });
    } catch (error) {
      // The refusal is answered at once; the delete follows (forget never throws, and reports a failure).
      if (error instanceof BioIDError && error.code === 'auth' && error.status !== undefined && error.status >= 400 && error.status < 500) {
        void sharedStore.forget(key);
      }
      throw error;
    }
  }

  /** The token and its remaining seconds, or the answer that refuses one (no subject token). */
  async function issue(
    request: Request,
    context: BrokerContext,
    input: BrokerInput,
    origin: string | null,
  ): Promise<{ accessToken: string; remaining: number | undefined } | BrokerAnswer> {
    const refused = input.header('x-refused-token');
    if (machine) {
      const accessToken = await refusals.answer(machine, await machine.cache.get(), refused);
      return { accessToken, remaining: machine.cache.remainingSeconds() };
    }
    let subjectToken: unknown;
    try {
      subjectToken = await exchange!.subjectToken(request, context);
    } catch (error) {
      log(`tokenExchange.subjectToken threw (${describeError(error)}); answered 500.`);
      return json(500, { error: MESSAGES.internal }, origin);
    }
    if (typeof subjectToken !== 'string' || subjectToken.trim() === '') return refusal(401, 'no-subject-token', input, origin);
    const { accessToken, remainingSeconds } = await perUser!.get(subjectToken, refused);
    return { accessToken, remaining: remainingSeconds };
  }

  const tokenBroker = async function tokenBroker(input: BrokerInput, context: BrokerContext): Promise<BrokerAnswer> {
    const origin = input.header('origin');
    if (input.method === 'OPTIONS') {
      // Rule 2: a preflight from an origin that is not allowed is the one refusal logged by default.
      const { status, headers } = preflightAnswer(origin, allowedOrigins);
      if (status !== 204) refuse('origin-not-allowed', status, input, origin);
      return { status, headers, body: null };
    }
    if (input.method !== 'GET') {
      refuse('method', 405, input, origin);
      return json(405, { error: MESSAGES.method }, origin, { Allow: 'GET, OPTIONS' });
    }
    // Rule 3: a page on another site can make the browser send our session cookie, but not a custom
    // header without a CORS preflight that only allowedOrigins pass.
    if (config.requireCsrfHeader && input.header('x-csrf') !== '1') return refusal(403, 'csrf', input, origin);

    const request = input.request();
    let authorized: unknown;
    try {
      authorized = await config.authorize(request, context);
    } catch (error) {
      log(`authorize threw (${describeError(error)}); answered 500.`);
      return json(500, { error: MESSAGES.internal }, origin);
    }
    // Rules 4 and 5: no session; "no-cookie" only when the browser says it withheld the cookie.
    if (!authorized) return refusal(401, cookieWithheld(input) ? 'no-cookie' : 'no-session', input, origin);

    let issued: Awaited<ReturnType<typeof issue>>;
    try {
      issued = await issue(request, context, input, origin);
    } catch (error) {
      log(
        `${exchange ? 'token exchange (RFC 8693)' : 'client_credentials exchange'} with ${endpoint} failed: ${describeExchangeError(error)}; answered 502.`,
      );
      // Rule 10 (spec 4.1): exactly { error }, a generic text.
      return json(502, { error: exchange ? MESSAGES.userExchangeFailed : MESSAGES.exchangeFailed }, origin);
    }
    if (!('accessToken' in issued)) return issued;
    // Rule 9 (spec 5.6, 2.4): what remains of the cached token's life, never less than 1 s (0 is not a
    // valid expires_in: a client would reject it). At that edge the true lifetime still exceeds the cache's.
    return tokenAnswer(issued.accessToken, Math.max(1, issued.remaining ?? 1), origin);
  };
  // A host that may end its work with the answer (a worker) is given the store writes that follow it; any
  // other host's answer goes out as tokenBroker gives it, with no step added to its path.
  const answered: BrokerCore = store
    ? (input, context) => {
        const answer = tokenBroker(input, context);
        if (!context.waitUntil) return answer;
        return answer.then((done) => {
          context.waitUntil?.(store.settled());
          return done;
        });
      }
    : tokenBroker;
  if (!config.onEvent) return answered;
  // Each answer reported as a `request` event; without a listener the hot path pays nothing for it.
  return async (input, context) => {
    const started = performance.now();
    const answer = await answered(input, context);
    emit(
      { type: 'request', outcome: outcomeOf(input.method, answer), status: answer.status, durationMs: performance.now() - started },
      context,
    );
    return answer;
  };
}

/**
 * Rule 5: the browser itself says the request comes from another site (`Sec-Fetch-Site: cross-site`) and
 * it carries no Cookie header, so a signed-in user's cookie was withheld (SameSite, third-party blocking).
 * Fetch metadata cannot be set by a page, so a same-site request never reads as cross-site.
 */
function cookieWithheld(input: BrokerInput): boolean {
  return input.header('sec-fetch-site') === 'cross-site' && !input.header('cookie');
}

/** A log-safe description of an exchange failure: the kind and HTTP status, never the IdP's body. */
function describeExchangeError(error: unknown): string {
  if (error instanceof BioIDError) {
    if (error.code === 'auth') {
      // The words of the exchange event's result (docs/operations.md): refused is a 4xx, failed a 5xx.
      const status = error.status;
      if (status !== undefined && status >= 400 && status < 500) return `the identity provider refused it with HTTP ${status}`;
      if (status !== undefined && status >= 500) return `the identity provider failed with HTTP ${status} (a server error)`;
      return `the identity provider answered HTTP ${status ?? '?'} without a valid { access_token, expires_in }`;
    }
    // timeout / network messages name the endpoint and a system error code, bad-response ones the endpoint
    // and a redirect or the body limit: nothing received.
    if (error.code === 'timeout' || error.code === 'network' || error.code === 'bad-response') return error.message;
    return `${error.code} error`;
  }
  return `unexpected ${error instanceof Error ? error.name : typeof error}`;
}

/** Integrator callbacks may throw anything; log only the kind, since their messages may hold user data. */
function describeError(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
