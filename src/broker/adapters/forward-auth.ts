/**
 * The session gate of `bioid-broker serve` (contract rules 4 and 12): forward-auth. Each token request's
 * Cookie header is forwarded to the integrator's own session-check URL, so a backend in any language
 * keeps its sessions where they are and only answers one question: is this cookie signed in?
 *
 *  - Signed in only on a positive answer: 204, or 200 with a JSON object (Content-Type application/json or
 *    +json) that says `"signed_in": true`; in the RFC 8693 variant also one whose `subject_token` is a
 *    non-empty string, and that is the token exchanged. A "who am I" endpoint that answers a signed-out
 *    caller with 200 `{}`, `{"user": null}` or `{"authenticated": false}` therefore signs nobody in.
 *  - Not signed in (401), as documented: 401, 403, a redirect (never followed), `200 {"signed_in": false}`.
 *  - Not signed in (401) either, fail-closed, and logged: every other answer under 500 (an HTML login page
 *    answered 200, text, another JSON shape, a 201, a 404…). The broker cannot tell what such an answer
 *    means, and the person asking holds no session it can vouch for; the failure line names the status
 *    and content type, so a check pointed at the wrong page shows at once (docs/backends.md).
 *  - 5xx, no answer, timeout: the session store failed, which is not "signed out": the broker answers 500
 *    and logs the URL's origin and path (never its query, which may hold a key) and the status or error.
 *
 * Before it trusts its first "signed in", the gate asks the check with a made-up cookie (`probe`): a check
 * that signs that in signs in anyone (it ignores the cookie, or reads a shape this gate does not), so until
 * a probe is refused every request that carries a cookie is answered 500, never a token.
 *
 * Only the Cookie header travels (plus `Accept: application/json`); a request without one is not signed
 * in and costs no round trip. Nothing is cached: a sign-out takes effect on the next token request.
 */
import type { IncomingMessage } from 'node:http';
import { isJsonObject, own } from '../../core/config.js';
import { BioIDError, messageOf } from '../../core/errors.js';
import { isRedirect, send, type FetchLike, type Reply } from '../../core/http.js';
import type { BrokerContext } from './context.js';
import type { TokenExchangeOptions } from '../config/options.js';

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

/** The session check's answer to a made-up cookie (`ForwardAuthGate.probe`), in words, never a body or the cookie. */
export interface SessionCheckProbe {
  /** `signed-in`: it would sign in anyone; `no-answer`: a 5xx, a timeout or no connection. */
  result: 'refused' | 'signed-in' | 'no-answer';
  answer: string;
  /** False for a refusal docs/backends.md does not name (a 200 `{}`): it will refuse signed-in users too. */
  documented: boolean;
}

export interface ForwardAuthGate {
  authorize(request: Request, context: BrokerContext): Promise<boolean>;
  tokenExchange: TokenExchangeOptions | undefined;
  /** Asks the session check with a made-up cookie; `authorize` does so until one is refused, answering 500 meanwhile. */
  probe(): Promise<SessionCheckProbe>;
}

export function forwardAuth(options: ForwardAuthOptions): ForwardAuthGate {
  const { sessionCheckUrl, log, exchange } = options;
  // What the log lines show of the URL: a query (`?key=…`) or userinfo could hold a secret.
  const shownUrl = originAndPath(sessionCheckUrl);
  // The subject token of each request, from its session check to its exchange (one check per request).
  const subjectTokens = new WeakMap<object, string>();
  // True once the last probe was refused.
  let trusted = false;
  let probing: Promise<SessionCheckProbe> | undefined;
  const ask = (cookie: string) => askSessionCheck(options, shownUrl, cookie);

  const probe = (): Promise<SessionCheckProbe> =>
    (probing ??= ask(`bioid-probe=${randomHex()}`)
      .then(
        ({ signedIn, words, documented }): SessionCheckProbe => ({ result: signedIn ? 'signed-in' : 'refused', answer: words, documented }),
        (error: unknown): SessionCheckProbe => ({ result: 'no-answer', answer: messageOf(error), documented: true }),
      )
      .then((probed) => {
        trusted = probed.result === 'refused';
        return probed;
      })
      .finally(() => (probing = undefined)));

  async function authorize(request: Request, context: BrokerContext): Promise<boolean> {
    // The Node request when there is one: reading it builds no web Request (see lazy-request.ts).
    const cookie = context.req ? cookieOf(context.req) : request.headers.get('cookie');
    if (!cookie) return false;
    let said: Answer;
    try {
      // Fail closed: no "signed in" counts before the check has refused a cookie nobody was given.
      const probed = trusted ? undefined : await probe();
      if (probed?.result === 'signed-in') {
        throw new BioIDError(
          'config',
          `the session check at ${shownUrl} signs in a made-up cookie (${probed.answer}), so it would sign in anyone`,
        );
      }
      if (probed?.result === 'no-answer') throw new BioIDError('network', probed.answer);
      said = await ask(cookie);
    } catch (error) {
      log(`${messageOf(error)}; answered 500.`);
      throw error;
    }
    if (!said.signedIn) {
      if (!said.documented) {
        log(`the session check at ${shownUrl} answered ${said.words}: not signed in (204 or 200 with "signed_in": true is); answered 401.`);
      }
      return false;
    }
    // Signed in without an end-user token: the broker answers 401 "no-subject-token" (rule 12).
    if (said.subjectToken) subjectTokens.set(keyOf(request, context), said.subjectToken);
    return true;
  }

  const tokenExchange: TokenExchangeOptions | undefined = exchange
    ? {
        subjectToken: (request, context) => {
          const key = keyOf(request, context);
          const token = subjectTokens.get(key);
          subjectTokens.delete(key);
          return token;
        },
      }
    : undefined;

  return { authorize, tokenExchange, probe };
}

/** The session check's answer to `cookie`; a failed session store (5xx, none) throws. */
async function askSessionCheck(options: ForwardAuthOptions, shownUrl: string, cookie: string): Promise<Answer> {
  const { sessionCheckUrl, timeoutMs, fetchImpl, exchange } = options;
  let reply;
  try {
    reply = await send(
      { url: sessionCheckUrl, method: 'GET', headers: { Cookie: cookie, Accept: 'application/json' }, redirectIsReply: true },
      { timeoutMs, fetchImpl, peer: 'the session check' },
    );
  } catch (error) {
    // The transport's own messages name the full URL; the log gets them with the shown one instead.
    throw new BioIDError('network', `session check failed: ${messageOf(error).split(sessionCheckUrl).join(shownUrl)}`, { cause: error });
  }
  if (reply.status >= 500) {
    throw new BioIDError('network', `the session check at ${shownUrl} answered HTTP ${reply.status}`, { status: reply.status });
  }
  return readAnswer(reply, exchange);
}

interface Answer {
  signedIn: boolean;
  subjectToken?: string;
  /** Its status and content type, never its body (it could hold a token). */
  words: string;
  documented: boolean;
}

/** Reads an answer below 500 (see the top of this file). */
function readAnswer(reply: Reply, exchange: boolean): Answer {
  const { status } = reply;
  const no = (words: string, documented = false): Answer => ({ signedIn: false, words, documented });
  if (isRedirect(reply)) return no(`a redirect (HTTP ${status})`, true);
  if (status === 204) return { signedIn: true, words: 'HTTP 204', documented: true };
  if (status !== 200) return no(`HTTP ${status}`, status === 401 || status === 403);
  const type = (reply.headers.get('content-type') ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9.+/-]/g, '')
    .slice(0, 60);
  if (/html/.test(type)) return no(`HTTP 200 with an HTML page (${type})`);
  if (!/^application\/([a-z0-9.-]+\+)?json$/.test(type)) return no(`HTTP 200 with ${type ? `Content-Type ${type}` : 'no Content-Type'}`);
  const body = reply.json;
  if (!isJsonObject(body)) return no('HTTP 200 with JSON that is not an object');
  // Own properties only: one inherited from a polluted Object.prototype says nothing of this caller.
  const signedIn = own(body, 'signed_in');
  if (signedIn === false) return no('HTTP 200 with "signed_in": false', true);
  if (own(body, 'success') === false) return no('HTTP 200 with "success": false');
  const token = own(body, 'subject_token');
  const subjectToken = exchange && typeof token === 'string' ? token.trim() : '';
  if (signedIn === true || subjectToken) {
    return {
      signedIn: true,
      words: `HTTP 200 with ${signedIn === true ? '"signed_in": true' : 'a "subject_token"'}`,
      documented: true,
      subjectToken,
    };
  }
  const wrongType = signedIn === undefined ? '' : ` ("signed_in" is a ${typeof signedIn})`;
  return no(`HTTP 200 with a JSON object without "signed_in": true${exchange ? ' or a "subject_token"' : ''}${wrongType}`);
}

/** The URL's origin and path: no userinfo, query or fragment. */
export function originAndPath(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** One key per request: the Node request when there is one, else the web Request. */
const keyOf = (request: Request, context: BrokerContext): object => context.req ?? request;

/** 16 random bytes in hex: a cookie value no session store issued. */
function randomHex(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function cookieOf(req: IncomingMessage): string | undefined {
  const cookie = req.headers.cookie;
  return cookie && cookie.trim() !== '' ? cookie : undefined;
}
