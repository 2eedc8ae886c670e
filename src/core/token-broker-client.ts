/**
 * The client of the integrator's token broker (spec 4.1): GET with the session cookie and the anti-CSRF
 * header, validated by `parseTokenResponse`, cached by `TokenCache`. One cache per broker URL for the whole
 * page, so every reader and element naming the same broker shares one broker call per token lifetime
 * (single flight, refreshed just under expires_in). Its failures are `ReaderAuthError`s whose code tells
 * "sign in again" (`session-expired`), "the browser withheld the cookie" (`cookie-blocked`) and "try again
 * later" (`broker-unavailable`) apart.
 */
import { boundedSource, cachedTokenSource } from './auth.js';
import type { TokenSource } from './token-source.js';
import { DEFAULT_TIMEOUT_MS, isJsonObject, millisecondsOr, own, readOptions, requireEndpointUrl, requireHttpUrl } from './config.js';
import { BioIDError, ReaderAuthError, messageOf, configError } from './errors.js';
import { describeReply, isRedirect, send, type Reply } from './http.js';
import { parseTokenResponse } from './token-response.js';
import { TokenCache, hashToken, type IssuedToken } from './token-cache.js';

export interface BrokerTokenSourceOptions {
  /** Bound on each broker call; default 15000. */
  timeoutMs?: number;
}

const OPTIONS = { timeoutMs: millisecondsOr(DEFAULT_TIMEOUT_MS) };

/** Each broker URL's page-wide token cache. */
const caches = new Map<string, TokenCache>();
/** The middleware origin each broker's tokens are bound to, by `brokerKey`: one binding whatever the spelling. */
const bindings = new Map<string, string>();

/**
 * The page-wide token source of the broker at `url` (absolute): pass it as a reader's `getToken`
 * source, or use it as `auth: { type: 'tokenProvider', getToken: () => source.get() }`.
 */
export function brokerTokenSource(url: string, options: BrokerTokenSourceOptions = {}): TokenSource {
  const endpoint = requireEndpointUrl(url, 'brokerTokenSource: url');
  const { timeoutMs } = readOptions(options, OPTIONS, 'brokerTokenSource(url, options)');
  let cache = caches.get(endpoint);
  if (!cache) {
    cache = new TokenCache((refused) => fetchBrokerToken(endpoint, timeoutMs, refused));
    caches.set(endpoint, cache);
  }
  const source: TokenSource = { ...cachedTokenSource(cache), bind: (_token, origin) => bind(origin, endpoint) };
  // A timeout given here bounds this source's waits (the page-wide cache may have been made with another);
  // without one, the reader or BioID it is given to bounds them by its own timeoutMs (spec 8).
  return own(options, 'timeoutMs') === undefined ? source : boundedSource(source, timeoutMs);
}

/**
 * docs/security.md: a broker that names `middleware_url` has its tokens sent to that origin only. A broker
 * that names none (the spec's minimal contract) is bound to the first middleware origin one of its tokens
 * is sent to, until `clearBrokerTokens`, so markup injected later cannot aim its tokens at another origin.
 * The binding belongs to the broker, not to its URL's spelling: `/token?x`, `/TOKEN/` or `HTTP://Host.:80`
 * name the same broker and meet the same binding.
 */
function bind(origin: string, endpoint: string): void {
  const key = brokerKey(endpoint);
  const bound = bindings.get(key);
  if (bound === undefined) bindings.set(key, origin);
  else if (bound !== origin) {
    throw configError(
      `The token from ${endpoint} is for the middleware at ${bound}, not ${origin}: nothing was sent. Point middleware-url at ${bound}.`,
    );
  }
}

/** Forgets every broker token of the page (call it on sign-out). */
export function clearBrokerTokens(): void {
  for (const cache of caches.values()) cache.clear();
  caches.clear();
  bindings.clear();
}

/**
 * One broker however its URL is spelled: the origin (scheme and host in lower case, default port dropped,
 * the host's trailing dot removed) and the path compared without case, percent-escapes, repeated or
 * trailing slashes; query and fragment do not name another broker.
 */
function brokerKey(endpoint: string): string {
  const { protocol, host, pathname } = new URL(endpoint);
  let path = pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape stays as written; it still names one path.
  }
  return protocol + host.replace(/\.(?=:|$)/, '') + path.toLowerCase().replace(/\/+/g, '/').replace(/\/$/, '');
}

/** "Sign in again" or "the cookie was withheld": a status under 500, so not retryable (errors.ts). */
const failure = (code: 'session-expired' | 'cookie-blocked', message: string, reply: Reply) =>
  new ReaderAuthError(message, { code, status: reply.status || undefined });

async function fetchBrokerToken(url: string, timeoutMs: number, refused?: string): Promise<IssuedToken> {
  const source = `The token broker at ${url}`;
  const headers: Record<string, string> = { Accept: 'application/json', 'X-CSRF': '1' };
  // docs/broker-contract.md, X-Refused-Token: after a 401 the broker learns which token the middleware
  // refused, by its hash (never the token), so it can drop a cached one. Without Web Crypto (a page not
  // in a secure context) the broker is not told.
  const hash = refused && (await hashToken(refused).catch(() => ''));
  if (hash) headers['X-Refused-Token'] = hash;
  let reply: Reply;
  try {
    reply = await send(
      // A redirect is a reply here: a login page on another origin would otherwise hide behind a CORS failure.
      { url, method: 'GET', headers, credentials: 'include', redirectIsReply: true },
      { timeoutMs, peer: 'the token broker' },
    );
  } catch (error) {
    // A broker on another origin whose CORS does not allow the optional header fails its preflight: ask again without it.
    if (refused && error instanceof BioIDError && error.code === 'network') return fetchBrokerToken(url, timeoutMs);
    throw new ReaderAuthError(messageOf(error), { code: 'broker-unavailable', cause: error, retryable: true });
  }
  if (reply.status === 401 && (reply.json as { reason?: unknown } | undefined)?.reason === 'no-cookie') {
    throw failure(
      'cookie-blocked',
      `${source} received no session cookie: the browser does not send cookies to a broker on another site (SameSite, third-party cookie blocking). Host the token broker on this page's site.`,
      reply,
    );
  }
  // Nothing mounted at the URL (a typo, a route never added), or something that is no token broker (a
  // static file, a text page): the page is misconfigured, neither signed out nor facing an outage.
  const missing = [404, 405, 410].includes(reply.status);
  const session = !missing && sessionGone(reply);
  if (session) throw failure('session-expired', `${source} ${session}: the session has ended.`, reply);
  if (missing || (reply.ok && !isJsonObject(reply.json))) {
    throw new BioIDError(
      'config',
      `No token broker answers at ${url} (HTTP ${reply.status}${reply.ok ? ', not JSON' : ''}): check token-endpoint.`,
      { status: reply.status },
    );
  }
  try {
    const issued = parseTokenResponse(reply, source);
    const named = middlewareOf(reply, source);
    if (named) bindings.set(brokerKey(url), named);
    return issued;
  } catch (error) {
    const status = reply.status;
    throw new ReaderAuthError(messageOf(error), {
      code: 'broker-unavailable',
      cause: error,
      status,
      retryable: status >= 500 || status === 429,
    });
  }
}

/** The origin of the broker's `middleware_url`, when it names one; one that is not an http(s) URL is refused. */
function middlewareOf(reply: Reply, source: string): string | undefined {
  const value = (reply.json as { middleware_url?: unknown }).middleware_url;
  if (value === undefined) return undefined;
  try {
    return new URL(requireHttpUrl(value, 'middleware_url')).origin;
  } catch {
    throw new ReaderAuthError(`${source} answered a middleware_url that is not an absolute http(s) URL.`, { code: 'broker-unavailable' });
  }
}

/** Why the reply means "no session", or undefined when it does not. */
function sessionGone(reply: Reply): string | undefined {
  if (reply.status === 401 || reply.status === 403) return `answered HTTP ${reply.status} (${describeReply(reply)})`;
  // A gateway that bounces unauthenticated calls to a login page.
  if (isRedirect(reply)) return 'redirected (to a login page?)';
  // A login page served in place (200 text/html) is the same story; a 5xx HTML page is a proxy error.
  if (reply.html && reply.status < 500) return 'sent an HTML page (a login page?)';
  return undefined;
}
