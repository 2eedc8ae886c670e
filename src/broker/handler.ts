/**
 * The reference token broker of spec 4.1: a web-standard `(Request) => Promise<Response>` handler that
 * gates on the integrator's session, exchanges the machine identity's client credentials (or, in the
 * RFC 8693 variant, the end user's token) for a middleware token through core's one exchange
 * implementation, and caches the token just under expires_in with single flight (core's TokenCache).
 * The rule numbers in the comments are those of docs/broker-contract.md.
 *
 * The decisions are made once, by `createBrokerCore`, on a small input (method, header lookup, a
 * Request made on demand) and give a plain answer (status, header record, body text; answer.ts), in the
 * order of the contract: preflight, method, CSRF, authorize, issue (issuers.ts), answer. The web handler
 * wraps that in `Request`/`Response`; the Node adapters write it straight to `res`, since building a web
 * `Request` and `Response` per call costs more than everything else on the cached path.
 */
import { BioIDError } from '../core/errors.js';
import { createAnswers, MESSAGES, type Answers } from './answer.js';
import { preflightAnswer, type BrokerAnswer } from './cors.js';
import type { BrokerContext } from './adapters/context.js';
import { outcomeOf, safeEmitter, type BrokerEvent } from './events.js';
import { createIssuer, type TokenIssuer } from './issuers.js';
import type { TokenBrokerOptions } from './config/options.js';
import { resolveBrokerOptions, type ResolvedBrokerOptions } from './config/resolve-options.js';
import { defaultRefusalLog, refusalOrigin, type BrokerRefusal, type RefusalReason } from './refusal.js';
import type { SharedTokens } from './store/shared-tokens.js';

export type TokenBrokerHandler = (request: Request, context?: BrokerContext) => Promise<Response>;

/** What the broker decides on: the method, a header by lower-case name, and the `Request` for the integrator's callbacks. */
export interface BrokerInput {
  readonly method: string;
  header(name: string): string | null;
  /** Called only when `authorize` or `subjectToken` is about to run, so refusals before it build none. */
  request(): Request;
}

export type { BrokerAnswer } from './cors.js';

export type BrokerCore = (input: BrokerInput, context: BrokerContext) => Promise<BrokerAnswer>;

/** Where `createTokenBroker` keeps its core, so `toNodeHandler` can skip the web Request/Response round trip. */
export const BROKER_CORE: unique symbol = Symbol('bioid.brokerCore');

/** The core of a handler made by `createTokenBroker`, or undefined for any other function. */
export function coreOf(handler: TokenBrokerHandler): BrokerCore | undefined {
  return (handler as TokenBrokerHandler & { [BROKER_CORE]?: BrokerCore })[BROKER_CORE];
}

export function createTokenBroker(options: TokenBrokerOptions): TokenBrokerHandler {
  const core = createBrokerCore(options);
  const handler: TokenBrokerHandler = async (request, context = {}) => {
    const answer = await core({ method: request.method, header: (name) => request.headers.get(name), request: () => request }, context);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
  Object.defineProperty(handler, BROKER_CORE, { value: core });
  return handler;
}

/** What the steps of a request share, made once per broker. */
interface Broker {
  readonly config: ResolvedBrokerOptions;
  readonly answers: Answers;
  readonly issuer: TokenIssuer;
  /** A server-side line; a failing logger changes no answer. */
  log(message: string): void;
  /** Tells onRefusal (or the default log) of a refusal; a throwing callback changes no answer. */
  report(reason: RefusalReason, status: number, input: BrokerInput, origin: string | null): void;
}

export function createBrokerCore(options: TokenBrokerOptions): BrokerCore {
  const config = resolveBrokerOptions(options);
  const log = (message: string) => {
    try {
      config.logger(`bioid token broker: ${message}`);
    } catch {
      // A failing logger must not turn a served token into an error.
    }
  };
  const emit = safeEmitter(config.onEvent);
  const broker: Broker = {
    config,
    log,
    report: reporter(config.onRefusal ?? defaultRefusalLog(log)),
    answers: createAnswers({
      allowedOrigins: config.allowedOrigins,
      middlewareUrl: config.middlewareUrl,
      reuseTokenText: !config.tokenExchange,
    }),
    issuer: createIssuer(config, emit),
  };
  const tokenBroker: BrokerCore = async (input, context) => {
    const origin = input.header('origin');
    if (input.method === 'OPTIONS') return preflight(broker, input, origin);
    if (input.method !== 'GET') {
      broker.report('method', 405, input, origin);
      return broker.answers.json(405, { error: MESSAGES.method }, origin, { Allow: 'GET, OPTIONS' });
    }
    // Rule 3: a page on another site can make the browser send our session cookie, but not a custom
    // header without a CORS preflight that only allowedOrigins pass.
    if (config.requireCsrfHeader && input.header('x-csrf') !== '1') return refusal(broker, 403, 'csrf', input, origin);
    const request = input.request();
    let authorized: unknown;
    try {
      authorized = await config.authorize(request, context);
    } catch (error) {
      return failed(broker, 'authorize', error, origin);
    }
    // Rules 4 and 5: no session; "no-cookie" only when the browser says it withheld the cookie.
    if (!authorized) return refusal(broker, 401, cookieWithheld(input) ? 'no-cookie' : 'no-session', input, origin);
    return issue(broker, request, context, input, origin);
  };
  return withRequestEvents(withStoreWrites(tokenBroker, broker.issuer.store), config.onEvent && emit);
}

/** Rule 2: a preflight from an origin that is not allowed is the one refusal logged by default. */
function preflight(broker: Broker, input: BrokerInput, origin: string | null): BrokerAnswer {
  const { status, headers } = preflightAnswer(origin, broker.config.allowedOrigins);
  if (status !== 204) broker.report('origin-not-allowed', status, input, origin);
  return { status, headers, body: null };
}

/** The token answer for a signed-in caller, or the answer that refuses one (rules 9, 10, 12). */
async function issue(broker: Broker, request: Request, context: BrokerContext, input: BrokerInput, origin: string | null) {
  const { config, answers } = broker;
  let subjectToken: unknown;
  if (config.tokenExchange) {
    try {
      subjectToken = await config.tokenExchange.subjectToken(request, context);
    } catch (error) {
      return failed(broker, 'tokenExchange.subjectToken', error, origin);
    }
    if (typeof subjectToken !== 'string' || subjectToken.trim() === '') return refusal(broker, 401, 'no-subject-token', input, origin);
  }
  let issued;
  try {
    issued = await broker.issuer.issue(input.header('x-refused-token'), subjectToken as string | undefined);
  } catch (error) {
    broker.log(
      `${config.tokenExchange ? 'token exchange (RFC 8693)' : 'client_credentials exchange'} with ${config.endpoint} failed: ${describeExchangeError(error)}; answered 502.`,
    );
    // Rule 10 (spec 4.1): exactly { error }, a generic text.
    return answers.json(502, { error: config.tokenExchange ? MESSAGES.userExchangeFailed : MESSAGES.exchangeFailed }, origin);
  }
  // Rule 9 (spec 5.6, 2.4): what remains of the cached token's life, never less than 1 s (0 is not a
  // valid expires_in: a client would reject it). At that edge the true lifetime still exceeds the cache's.
  return answers.token(issued.accessToken, Math.max(1, issued.remaining ?? 1), origin);
}

/** A 401 or 403 with its reason in the body (rules 3, 4, 5, 12). */
function refusal(
  broker: Broker,
  status: 401 | 403,
  reason: 'csrf' | 'no-session' | 'no-cookie' | 'no-subject-token',
  input: BrokerInput,
  origin: string | null,
): BrokerAnswer {
  broker.report(reason, status, input, origin);
  return broker.answers.json(status, { error: MESSAGES[reason], reason }, origin);
}

/** An integrator callback threw or rejected: a 500 with a generic text, the error's kind in the log. */
function failed(broker: Broker, callback: string, error: unknown, origin: string | null): BrokerAnswer {
  broker.log(`${callback} threw (${describeError(error)}); answered 500.`);
  return broker.answers.json(500, { error: MESSAGES.internal }, origin);
}

function reporter(onRefusal: (refusal: BrokerRefusal) => void): Broker['report'] {
  return (reason, status, input, origin) => {
    try {
      onRefusal({ reason, status, method: input.method.slice(0, 20), origin: refusalOrigin(origin) });
    } catch {
      // As with the logger: reporting a refusal must not change the answer.
    }
  };
}

/**
 * A host that may end its work with the answer (a worker) is given the store writes that follow it; any
 * other host's answer goes out as the core gives it, with no step added to its path.
 */
function withStoreWrites(core: BrokerCore, store: SharedTokens | undefined): BrokerCore {
  if (!store) return core;
  return (input, context) => {
    const answer = core(input, context);
    if (!context.waitUntil) return answer;
    return answer.then((done) => {
      context.waitUntil?.(store.settled());
      return done;
    });
  };
}

/** Each answer reported as a `request` event; without a listener the hot path pays nothing for it. */
function withRequestEvents(core: BrokerCore, emit: ((event: BrokerEvent, context?: BrokerContext) => void) | undefined): BrokerCore {
  if (!emit) return core;
  return async (input, context) => {
    const started = performance.now();
    const answer = await core(input, context);
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
