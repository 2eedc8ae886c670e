/**
 * The elements' client of the integrator's token broker (spec 4.1): GET with the session cookie and the
 * anti-CSRF header, through core's `send`, validated by core's `parseTokenResponse`, cached by core's
 * `TokenCache`. One cache per broker URL for the whole page, so every element naming the same endpoint
 * shares one broker call per token lifetime (single flight, refreshed just under expires_in).
 */
import { cachedTokenSource, type TokenSource } from '../core/auth.js';
import { DEFAULT_TIMEOUT_MS } from '../core/config.js';
import { ReaderAuthError, messageOf, type BioIDErrorOptions } from '../core/errors.js';
import { describeReply, send, type Reply } from '../core/http.js';
import { parseTokenResponse } from '../core/token-response.js';
import { TokenCache, type IssuedToken } from '../core/token-cache.js';

export type BrokerFailure = 'session-expired' | 'broker-unavailable';

/**
 * A broker failure, kept apart from other token failures so the elements can tell "sign in again"
 * (`session-expired`) from "try again later" (`broker-unavailable`). A `ReaderAuthError`, so the core's
 * token source passes it through unchanged.
 */
export class BrokerError extends ReaderAuthError {
  readonly reason: BrokerFailure;
  constructor(reason: BrokerFailure, message: string, options: BioIDErrorOptions = {}) {
    super(message, { retryable: reason === 'broker-unavailable', ...options });
    this.name = 'BrokerError';
    this.reason = reason;
  }
}

const caches = new Map<string, TokenCache>();

/** The page-wide token source of the broker at `url` (absolute). */
export function brokerTokenSource(url: string, timeoutMs = DEFAULT_TIMEOUT_MS): TokenSource {
  let cache = caches.get(url);
  if (!cache) {
    cache = new TokenCache(() => fetchBrokerToken(url, timeoutMs));
    caches.set(url, cache);
  }
  return cachedTokenSource(cache);
}

/** Forgets every broker token of the page (call it on sign-out). */
export function clearBrokerTokens(): void {
  for (const cache of caches.values()) cache.clear();
  caches.clear();
}

async function fetchBrokerToken(url: string, timeoutMs: number): Promise<IssuedToken> {
  const source = `The token broker at ${url}`;
  let reply: Reply;
  try {
    reply = await send(
      // A redirect is not followed: a login page on another origin would otherwise hide behind a CORS failure.
      { url, method: 'GET', headers: { Accept: 'application/json', 'X-CSRF': '1' }, credentials: 'include', redirect: 'manual' },
      { timeoutMs, peer: 'the token broker' },
    );
  } catch (error) {
    const message = messageOf(error);
    throw new BrokerError('broker-unavailable', message, { cause: error });
  }
  const session = sessionGone(reply);
  if (session) {
    throw new BrokerError('session-expired', `${source} ${session}: the session has ended.`, {
      status: reply.status,
    });
  }
  try {
    return parseTokenResponse(reply, source);
  } catch (error) {
    const status = reply.status;
    throw new BrokerError('broker-unavailable', messageOf(error), {
      cause: error,
      status,
      retryable: status >= 500 || status === 429,
    });
  }
}

/** Why the reply means "no session", or undefined when it does not. */
function sessionGone(reply: Reply): string | undefined {
  if (reply.status === 401 || reply.status === 403) return `answered HTTP ${reply.status} (${describeReply(reply)})`;
  // A gateway that bounces unauthenticated calls to a login page (not followed: 'opaqueredirect' in a
  // browser, the 3xx itself elsewhere; `redirected` if a fetch stand-in followed it anyway).
  if (reply.type === 'opaqueredirect' || (reply.status >= 300 && reply.status < 400) || (reply.redirected && reply.status < 500)) {
    return 'redirected (to a login page?)';
  }
  // A login page served in place (200 text/html) is the same story; a 5xx HTML page is a proxy error.
  if (reply.html && reply.status < 500) return 'sent an HTML page (a login page?)';
  return undefined;
}
