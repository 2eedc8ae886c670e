/**
 * Calls to the middleware (spec 4.4, 5): bearer token on every call, X-Integrator-Id on dispatch,
 * exactly one refresh-and-retry after a 401 (spec 5.3), and the middleware's failures mapped to
 * `BioIDError` codes (spec 7: 503 "Target workstation is not currently live." has its own code).
 */
import type { TokenSource } from './token-source.js';
import { isJsonObject } from './config.js';
import { BioIDError, WORKSTATION_OFFLINE_TEXT, sentence, type BioIDErrorCode } from './errors.js';
import { describeReply, joinPath, notJsonObject, send, type FetchLike, type Reply } from './http.js';

export interface MiddlewareContext {
  middlewareUrl: string;
  tokens: TokenSource;
  integratorId?: string | undefined;
  fetchImpl?: FetchLike | undefined;
  timeoutMs: number;
}

export interface MiddlewareCall {
  method: 'GET' | 'POST';
  /** Path below middlewareUrl, already encoded. */
  path: string;
  body?: unknown;
  /** Orchestrator dispatch: carries X-Integrator-Id (spec 4.4). */
  dispatch?: boolean;
  signal?: AbortSignal | undefined;
}

/** Performs the call and returns the JSON object of a success answer; throws a mapped `BioIDError`. */
export async function callMiddleware(ctx: MiddlewareContext, call: MiddlewareCall): Promise<Record<string, unknown>> {
  const url = joinPath(ctx.middlewareUrl, call.path);
  const origin = new URL(url).origin;
  const attempt = (token: string) => {
    // A token bound to its middleware is never sent anywhere else (nothing is sent: a config error).
    ctx.tokens.bind?.(token, origin);
    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    if (call.dispatch && ctx.integratorId) headers['X-Integrator-Id'] = ctx.integratorId;
    return send(
      { url, method: call.method, headers, body: call.body },
      { fetchImpl: ctx.fetchImpl, timeoutMs: ctx.timeoutMs, signal: call.signal, peer: 'the middleware', secrets: [token] },
    );
  };

  let token = await ctx.tokens.get(call.signal);
  let reply = await attempt(token);
  if (reply.status === 401) {
    // Spec 5.3: a new token, then the same request once more. A second 401 is final, and that token is
    // not sent again: the next call starts from a fresh one.
    token = await ctx.tokens.refresh(token, call.signal);
    reply = await attempt(token);
    if (reply.status === 401) ctx.tokens.drop?.(token);
  }
  if (!reply.ok) throw middlewareError(reply);
  if (!isJsonObject(reply.json)) {
    throw new BioIDError(
      'bad-response',
      `The middleware at ${url} answered HTTP ${reply.status} with ${notJsonObject(reply)}; check middlewareUrl.`,
      { status: reply.status },
    );
  }
  // Answers pass through to callers, events and pages: one that echoes the bearer token is refused.
  if (holds(reply.json, token)) {
    throw new BioIDError(
      'bad-response',
      `The middleware at ${url} echoed the bearer token in its answer; it was refused so the token cannot reach the page.`,
      { status: reply.status },
    );
  }
  return reply.json;
}

/**
 * True when a string anywhere in `value`, object keys included and at any depth, is the token or, for a
 * token long enough to be a credential (16 characters or more), contains it; a short test token such as
 * "t" would match ordinary words. A loop, not recursion: nesting depth is the server's to choose.
 */
function holds(value: unknown, token: string): boolean {
  const is = (text: string) => text === token || (token.length >= 16 && text.includes(token));
  for (const stack = [value]; stack.length > 0;) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (is(item)) return true;
    } else if (item && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        if (is(key)) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

export function middlewareError(reply: Reply): BioIDError {
  const said = describeReply(reply);
  const where = `The middleware at ${reply.url}`;
  const status = reply.status;
  const error = (code: BioIDErrorCode, message: string, retryable?: boolean) => new BioIDError(code, message, { status, retryable });
  if (status === 503 && (reply.text.includes(WORKSTATION_OFFLINE_TEXT) || said.includes(WORKSTATION_OFFLINE_TEXT))) {
    return error(
      'workstation-offline',
      `${WORKSTATION_OFFLINE_TEXT} Start the workstation's companion application, or pin a workstation that is online.`,
    );
  }
  if (status === 401) {
    return error(
      'unauthorized',
      `${where} rejected the bearer token twice (HTTP 401: ${said}); the token source keeps handing out tokens the middleware does not accept.`,
    );
  }
  if (status === 403) {
    return error('forbidden', `${where} refused the request (HTTP 403: ${said}); the integrator's token lacks permission for it.`);
  }
  if (status === 404) return error('not-found', sentence(`${where} answered HTTP 404: ${said}`));
  return error('middleware', sentence(`${where} answered HTTP ${status}: ${said}`), status >= 500 || status === 429 || status === 408);
}
