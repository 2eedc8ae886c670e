/**
 * The reference token broker of spec 4.1: a web-standard `(Request) => Promise<Response>` handler that
 * gates on the integrator's session, exchanges the machine identity's client credentials (or, in the
 * RFC 8693 variant, the end user's token) for a middleware token through core's one exchange
 * implementation, and caches the token just under expires_in with single flight (core's TokenCache).
 */
import { BioIDError } from '../core/errors.js';
import { clientCredentialsForm, exchangeToken, tokenExchangeForm } from '../core/exchange.js';
import { TokenCache, type IssuedToken } from '../core/token-cache.js';
import { corsHeaders, preflightResponse } from './cors.js';
import { resolveBrokerOptions, type BrokerContext, type ResolvedBrokerOptions, type TokenBrokerOptions } from './options.js';
import { UserTokens } from './user-tokens.js';

export type TokenBrokerHandler = (request: Request, context?: BrokerContext) => Promise<Response>;

/** Generic texts only: the IdP's answer, the secret and stacks stay on the server (in the log, scrubbed). */
const MESSAGES = {
  method: 'Use GET to obtain a token.',
  csrf: 'Missing anti-CSRF header: send X-CSRF: 1.',
  unauthorized: 'Sign in to obtain a token.',
  noSubjectToken: 'No end-user token to exchange: sign in again.',
  exchangeFailed: 'The identity provider did not issue a token. Try again later.',
  userExchangeFailed: 'The identity provider did not exchange the end user\'s token (it may have expired or not be trusted). Sign in again, or try later.',
  internal: 'The token broker failed. Try again later.',
} as const;

export function createTokenBroker(options: TokenBrokerOptions): TokenBrokerHandler {
  const config = resolveBrokerOptions(options);
  const { client, endpoint, fetchImpl, timeoutMs, logger } = config;
  const exchangeOptions = { fetchImpl, timeoutMs };
  const log = (message: string) => {
    try {
      logger(`bioid token broker: ${message}`);
    } catch {
      // A failing logger must not turn a served token into an error.
    }
  };

  // Client-credentials mode: one token for the whole organisation (spec 1: a machine identity).
  // Exchange mode: one cache per end user, never shared between users.
  const exchange = config.tokenExchange;
  const shared = exchange ? undefined : new TokenCache(() => exchangeToken(endpoint, clientCredentialsForm(client), exchangeOptions));
  const perUser = exchange
    ? new UserTokens(
        (subjectToken): Promise<IssuedToken> => exchangeToken(endpoint, tokenExchangeForm(client, subjectToken), exchangeOptions),
        exchange.maxCachedUsers,
        exchange.maxReuseMs,
      )
    : undefined;

  /** The token and its remaining seconds, or the response that refuses one (no subject token). */
  async function issue(request: Request, context: BrokerContext): Promise<{ accessToken: string; remaining: number | undefined } | Response> {
    if (shared) {
      const accessToken = await shared.get();
      return { accessToken, remaining: shared.remainingSeconds() };
    }
    let subjectToken: unknown;
    try {
      subjectToken = await exchange!.subjectToken(request, context);
    } catch (error) {
      log(`tokenExchange.subjectToken threw (${describeError(error)}); answered 500.`);
      return json(500, { error: MESSAGES.internal }, request, config);
    }
    if (typeof subjectToken !== 'string' || subjectToken.trim() === '') {
      return json(401, { error: MESSAGES.noSubjectToken }, request, config);
    }
    const { accessToken, remainingSeconds } = await perUser!.get(subjectToken);
    return { accessToken, remaining: remainingSeconds };
  }

  return async function tokenBroker(request: Request, context: BrokerContext = {}): Promise<Response> {
    const origin = request.headers.get('Origin');
    if (request.method === 'OPTIONS') return preflightResponse(origin, config.allowedOrigins);
    if (request.method !== 'GET') {
      const response = json(405, { error: MESSAGES.method }, request, config);
      response.headers.set('Allow', 'GET, OPTIONS');
      return response;
    }
    // A page on another site can make the browser send our session cookie, but not a custom header
    // without a CORS preflight that only allowedOrigins pass.
    if (config.requireCsrfHeader && request.headers.get('X-CSRF') !== '1') {
      return json(403, { error: MESSAGES.csrf }, request, config);
    }

    let authorized: unknown;
    try {
      authorized = await config.authorize(request, context);
    } catch (error) {
      log(`authorize threw (${describeError(error)}); answered 500.`);
      return json(500, { error: MESSAGES.internal }, request, config);
    }
    if (!authorized) return json(401, { error: MESSAGES.unauthorized }, request, config);

    let issued: Awaited<ReturnType<typeof issue>>;
    try {
      issued = await issue(request, context);
    } catch (error) {
      log(`${exchange ? 'token exchange (RFC 8693)' : 'client_credentials exchange'} with ${endpoint} failed: ${describeExchangeError(error)}; answered 502.`);
      const message = exchange ? MESSAGES.userExchangeFailed : MESSAGES.exchangeFailed;
      return json(502, { error: message }, request, config);
    }
    if (issued instanceof Response) return issued;
    // Spec 5.6 and 2.4: what remains of the cached token's life, never less than 1 s (0 is not a valid
    // expires_in: a client would reject it). At that edge the true lifetime still exceeds the cache's.
    const expiresIn = Math.max(1, issued.remaining ?? 1);
    const body = { access_token: issued.accessToken, expires_in: expiresIn };
    return json(200, config.middlewareUrl ? { ...body, middleware_url: config.middlewareUrl } : body, request, config);
  };
}

function json(status: number, body: unknown, request: Request, config: ResolvedBrokerOptions): Response {
  const headers = corsHeaders(request.headers.get('Origin'), config.allowedOrigins);
  headers.set('Content-Type', 'application/json; charset=utf-8');
  // A token (or a refusal) must never be stored by a browser or a proxy.
  headers.set('Cache-Control', 'no-store');
  headers.set('Pragma', 'no-cache');
  headers.set('X-Content-Type-Options', 'nosniff');
  return new Response(JSON.stringify(body), { status, headers });
}

/** A log-safe description of an exchange failure: the kind and HTTP status, never the IdP's body. */
function describeExchangeError(error: unknown): string {
  if (error instanceof BioIDError) {
    if (error.code === 'auth') {
      return error.status !== undefined && error.status >= 400
        ? `the identity provider refused it with HTTP ${error.status}`
        : `the identity provider answered HTTP ${error.status ?? '?'} without a valid { access_token, expires_in }`;
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
