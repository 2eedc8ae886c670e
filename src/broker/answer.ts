/**
 * The broker's answers before any web or Node response object exists: a status, a header record and the
 * body text. A JSON answer's headers carry CORS for an allowed origin and forbid any store (rule 7); the
 * cached path reuses both its headers and, in client-credentials mode, its body text.
 */
import { corsHeaders, type BrokerAnswer, type HeaderRecord } from './cors.js';

/** Generic texts only: the IdP's answer, the secret and stacks stay on the server (in the log, scrubbed). */
export const MESSAGES = {
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

export interface Answers {
  /** A JSON answer, `extra` headers added to the shared ones. */
  json(status: number, body: unknown, origin: string | null, extra?: HeaderRecord): BrokerAnswer;
  /** A token answer: { access_token, expires_in } and middleware_url when the broker names it. */
  token(accessToken: string, expiresIn: number, origin: string | null): BrokerAnswer;
}

export interface AnswersOptions {
  allowedOrigins: ReadonlySet<string>;
  middlewareUrl: string | undefined;
  /**
   * Keep the text of the last token answer: true when every caller gets the same token (client
   * credentials). A user's token (RFC 8693) must not outlive its own cache entry here.
   */
  reuseTokenText: boolean;
}

export function createAnswers({ allowedOrigins, middlewareUrl, reuseTokenText }: AnswersOptions): Answers {
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
  /**
   * The body of the last token answer: every request in the same second gets the same token and
   * expires_in, so the text is made once instead of per request (JSON.stringify of the token was 3% of a
   * cached request, measured with --cpu-prof).
   */
  let last: { accessToken: string; expiresIn: number; text: string } | undefined;
  return {
    json: (status, body, origin, extra) => ({
      status,
      headers: extra ? { ...headersFor(origin), ...extra } : headersFor(origin),
      body: JSON.stringify(body),
    }),
    token(accessToken, expiresIn, origin) {
      if (last && last.accessToken === accessToken && last.expiresIn === expiresIn)
        return { status: 200, headers: headersFor(origin), body: last.text };
      const body = { access_token: accessToken, expires_in: expiresIn };
      const text = JSON.stringify(middlewareUrl ? { ...body, middleware_url: middlewareUrl } : body);
      if (reuseTokenText) last = { accessToken, expiresIn, text };
      return { status: 200, headers: headersFor(origin), body: text };
    },
  };
}
