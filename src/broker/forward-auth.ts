/**
 * The session gate of `bioid-broker serve` (contract rules 4 and 12): forward-auth. Each token request's
 * Cookie header is forwarded to the integrator's own session-check URL, so a backend in any language
 * keeps its sessions where they are and only answers one question: is this cookie signed in?
 *
 *  - 204, or 200 with a JSON object (Content-Type application/json): signed in, unless that object says
 *    `"signed_in": false` or `"success": false`. In the RFC 8693 variant the answer is JSON
 *    `{ "subject_token": "<the end user's access token from your identity provider>" }`, and that is the
 *    token exchanged.
 *  - Any other 2xx (an HTML login page answered 200, an empty or text 200, 201…): not signed in (401), and
 *    a failure line says what the answer was, so a misconfigured URL shows at once (docs/backends.md).
 *  - 3xx (a login redirect, never followed), 401, 403 or any other 4xx: not signed in (401).
 *  - 5xx, no answer, timeout: the session store failed, which is not "signed out": the broker answers 500
 *    and logs the URL's origin and path (never its query, which may hold a key) and the status or error.
 *
 * Only the Cookie header travels (plus `Accept: application/json`); a request without one is not signed
 * in and costs no round trip. Nothing is cached: a sign-out takes effect on the next token request.
 */
import type { IncomingMessage } from 'node:http';
import { BioIDError, messageOf } from '../core/errors.js';
import { isRedirect, send, type FetchLike } from '../core/http.js';
import type { BrokerContext } from './context.js';
import type { TokenExchangeOptions } from './options.js';

export interface ForwardAuthOptions {
  /** Absolute http(s) URL of the integrator's session check. */
  sessionCheckUrl: string;
  timeoutMs: number;
  /** RFC 8693 variant: read `subject_token` from the session check's answer. */
  exchange: boolean;
  fetchImpl?: FetchLike | undefined;
  /** Server-side failure lines (no cookie, no token). */
  log: (message: string) => void;
}

export interface ForwardAuthGate {
  authorize(request: Request, context: BrokerContext): Promise<boolean>;
  tokenExchange: TokenExchangeOptions | undefined;
}

export function forwardAuth(options: ForwardAuthOptions): ForwardAuthGate {
  const { sessionCheckUrl, timeoutMs, fetchImpl, log } = options;
  // What the log lines show of the URL: a query (`?key=…`) or userinfo could hold a secret.
  const shownUrl = originAndPath(sessionCheckUrl);
  // The transport's own messages name the full URL; the log gets them with the shown one instead.
  const scrub = (message: string) => message.split(sessionCheckUrl).join(shownUrl);
  // The subject token of each request, from its session check to its exchange (one check per request).
  const subjectTokens = new WeakMap<object, string>();

  async function authorize(request: Request, context: BrokerContext): Promise<boolean> {
    // The Node request when there is one: reading it builds no web Request (see lazy-request.ts).
    const cookie = context.req ? cookieOf(context.req) : request.headers.get('cookie');
    if (!cookie) return false;
    let reply;
    try {
      reply = await send(
        { url: sessionCheckUrl, method: 'GET', headers: { Cookie: cookie, Accept: 'application/json' }, redirectIsReply: true },
        { timeoutMs, fetchImpl, peer: 'the session check' },
      );
    } catch (error) {
      log(`session check failed: ${scrub(messageOf(error))}; answered 500.`);
      throw error;
    }
    if (reply.status >= 500) {
      log(`the session check at ${shownUrl} answered HTTP ${reply.status}; answered 500.`);
      throw new BioIDError('network', `The session check answered HTTP ${reply.status}.`, { status: reply.status });
    }
    if (isRedirect(reply) || reply.status < 200 || reply.status >= 300) return false;
    const wrong = notSignedInAnswer(reply.status, reply.headers.get('content-type'), reply.json);
    if (wrong) {
      // Fail closed: a login page answered 200 must never pass for a session (docs/backends.md).
      log(`the session check at ${shownUrl} answered ${wrong}, not 204 or 200 with a JSON object; answered 401 (not signed in).`);
      return false;
    }
    if (options.exchange) {
      const subjectToken = (reply.json as { subject_token?: unknown } | undefined)?.subject_token;
      // Signed in but no end-user token: the broker answers 401 "no-subject-token" (rule 12).
      if (typeof subjectToken === 'string' && subjectToken.trim() !== '') subjectTokens.set(keyOf(request, context), subjectToken.trim());
    }
    return true;
  }

  const tokenExchange: TokenExchangeOptions | undefined = options.exchange
    ? {
        subjectToken: (request, context) => {
          const key = keyOf(request, context);
          const token = subjectTokens.get(key);
          subjectTokens.delete(key);
          return token;
        },
      }
    : undefined;

  return { authorize, tokenExchange };
}

/**
 * Why a 2xx answer does not say "signed in", or undefined when it does: 204, or 200 with a JSON object
 * (Content-Type application/json or +json) that does not say `"signed_in": false` or `"success": false`.
 * The reason names the status and content type only, never the body (it could hold a token).
 */
export function notSignedInAnswer(status: number, contentType: string | null, json: unknown): string | undefined {
  if (status === 204) return undefined;
  const type = (contentType ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9.+/-]/g, '')
    .slice(0, 60);
  if (status !== 200) return `HTTP ${status}`;
  if (/html/.test(type)) return `HTTP 200 with an HTML page (${type})`;
  if (!/^application\/([a-z0-9.-]+\+)?json$/.test(type)) return `HTTP 200 with ${type ? `Content-Type ${type}` : 'no Content-Type'}`;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return 'HTTP 200 with JSON that is not an object';
  const said = json as { signed_in?: unknown; success?: unknown };
  if (said.signed_in === false) return 'HTTP 200 with "signed_in": false';
  if (said.success === false) return 'HTTP 200 with "success": false';
  return undefined;
}

/** The URL's origin and path: no userinfo, query or fragment. */
export function originAndPath(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** One key per request: the Node request when there is one, else the web Request. */
const keyOf = (request: Request, context: BrokerContext): object => context.req ?? request;

function cookieOf(req: IncomingMessage): string | undefined {
  const cookie = req.headers.cookie;
  return cookie && cookie.trim() !== '' ? cookie : undefined;
}
