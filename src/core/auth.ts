/**
 * Token sources: where the bearer token of every middleware call comes from (spec 5). Both strategies
 * of spec 2.2 and the standalone reader's getToken (2.3) end up as a `TokenSource` over one `TokenCache`,
 * so caching, single flight and the 401 refresh rule behave identically everywhere.
 */
import { isJsonObject, type IdpClientCredentialsAuth } from './config.js';
import { BioIDError, ReaderAuthError, messageOf, scrubServerText } from './errors.js';
import { clientCredentialsForm, exchangeToken, tokenEndpoint } from './exchange.js';
import type { FetchLike } from './http.js';
import { TokenCache } from './token-cache.js';
import { headerSafeToken } from './token-response.js';
import type { TokenSource } from './token-source.js';

/**
 * Spec 8: the instance's `timeoutMs` bounds the caller's wait for `source` (the shared flight may go on
 * for other callers), unless the source bounds its own waits.
 */
export function boundedSource(source: TokenSource, timeoutMs: number): TokenSource {
  const wait = (token: Promise<string>) => within(token, timeoutMs, 'The token source');
  return source.timeoutMs
    ? source
    : {
        timeoutMs,
        get: (signal) => wait(source.get(signal)),
        refresh: (stale, signal) => wait(source.refresh(stale, signal)),
        bind: (token, origin) => source.bind?.(token, origin),
        drop: (token) => source.drop?.(token),
      };
}

/** The token `promise`, or a `ReaderAuthError` with code `timeout` naming `what` once `timeoutMs` has passed. */
function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReaderAuthError(`${what} did not settle within ${timeoutMs} ms.`, { code: 'timeout' })), timeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Spec 2.2 A and 2.3: tokens from a caller's function (or a fixed string). The function's failures
 * become `ReaderAuthError` (spec 7), its wrong answers a `ReaderAuthError` that says what was wrong,
 * and a function that never settles is cut off after `timeoutMs`.
 */
export function tokenProviderSource(getToken: string | (() => string | Promise<string>), timeoutMs: number): TokenSource {
  const obtain = async () => ({ accessToken: await callGetToken(getToken, timeoutMs) });
  return cachedTokenSource(new TokenCache(obtain));
}

/**
 * Spec 2.2 B and 5.4: the SDK runs the client_credentials exchange of 4.2 itself and caches the token
 * until just under expires_in.
 */
export function idpClientCredentialsSource(
  auth: IdpClientCredentialsAuth & { issuerUrl: string },
  options: { fetchImpl?: FetchLike | undefined; timeoutMs: number },
): TokenSource {
  const endpoint = tokenEndpoint(auth.issuerUrl, auth.realm);
  const form = clientCredentialsForm(auth);
  // The fetch of the shared flight is not tied to one caller's signal: callers stop waiting, the flight goes on.
  return cachedTokenSource(new TokenCache(() => exchangeToken(endpoint, form, options)));
}

/**
 * The token source of a `getToken` option: a `TokenSource` with its waits bounded by `timeoutMs` (spec 8),
 * or a function (and, where `orToken`, the token itself) through tokenProviderSource. Undefined for
 * anything else: the caller says what it takes.
 */
export function getTokenSource(getToken: unknown, timeoutMs: number, orToken = false): TokenSource | undefined {
  if (isTokenSource(getToken)) return boundedSource(getToken, timeoutMs);
  if (typeof getToken === 'function' || (orToken && typeof getToken === 'string' && getToken !== '')) {
    return tokenProviderSource(getToken as string | (() => string | Promise<string>), timeoutMs);
  }
  return undefined;
}

/** True for a `TokenSource` (from `brokerTokenSource`), which a reader or BioID takes in place of a getToken function. */
export function isTokenSource(value: unknown): value is TokenSource {
  return isJsonObject(value) && typeof value.get === 'function' && typeof value.refresh === 'function';
}

/** A token source over a cache: each caller may stop waiting (its signal) without cancelling the shared fetch. */
export function cachedTokenSource(cache: TokenCache): TokenSource {
  return {
    get: (signal) => untilAborted(cache.get(), signal),
    refresh: (stale, signal) => untilAborted(cache.refresh(stale), signal),
    drop: (token) => cache.drop(token),
  };
}

async function callGetToken(getToken: string | (() => string | Promise<string>), timeoutMs: number): Promise<string> {
  let value: unknown;
  if (typeof getToken === 'string') {
    value = getToken;
  } else {
    try {
      value = await within(Promise.resolve().then(getToken), timeoutMs, 'getToken');
    } catch (error) {
      // Spec 7: whatever getToken throws surfaces as a ReaderAuthError (a BioIDError of another class too).
      if (error instanceof ReaderAuthError) throw error;
      throw new ReaderAuthError(`getToken failed: ${scrubServerText(messageOf(error))}`, {
        cause: error,
        // A BioIDError's say on trying again, and its status, are kept.
        ...(error instanceof BioIDError && { retryable: error.retryable, status: error.status }),
      });
    }
  }
  return checkToken(value);
}

function checkToken(value: unknown): string {
  if (typeof value === 'string') {
    const token = headerSafeToken(value);
    if (token) return token;
    throw new ReaderAuthError(
      value.trim() === ''
        ? 'getToken resolved to an empty string; it must resolve to the middleware access token.'
        : 'getToken resolved to a string that cannot be sent in an HTTP header (it has line breaks or other control characters).',
    );
  }
  const hint =
    value && typeof value === 'object' && 'access_token' in value
      ? " It looks like the broker's JSON response: return its access_token field."
      : '';
  throw new ReaderAuthError(
    `getToken must resolve to the middleware access token as a string; it resolved to ${value === null ? 'null' : typeof value}.${hint}`,
  );
}

/** Lets one caller stop waiting for a shared promise without cancelling it for the others. */
export function untilAborted<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const abortError = (signal: AbortSignal) => new BioIDError('aborted', 'The operation was aborted.', { cause: signal.reason });

/**
 * True in a browser page or a browser worker, where a client secret would be visible to anyone
 * (spec 5.5). Deliberately not based on `navigator`, which Node 21+ also has.
 */
export function isBrowserLike(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; WorkerGlobalScope?: unknown; importScripts?: unknown };
  if (typeof g.window === 'object' && typeof g.document === 'object') return true;
  return typeof g.WorkerGlobalScope === 'function' || typeof g.importScripts === 'function';
}
