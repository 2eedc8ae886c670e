/**
 * CORS of the token broker (contract rules 2 and 6, docs/broker-contract.md). A token is a credential:
 * only listed origins get a grant, echoed exactly with `Access-Control-Allow-Credentials: true` (a
 * wildcard cannot carry credentials and would hand the token to any site). Every answer says
 * `Vary: Origin`, so a shared cache never serves one origin's grant to another.
 *
 * Headers are plain objects, not `Headers`: the Node adapters write them as they are, and building a web
 * `Headers` per request is most of what a cached answer would otherwise cost.
 */

/**
 * Headers the frontend may send: the anti-CSRF header, Authorization for a subject token in exchange mode,
 * and X-Refused-Token after the middleware refused a token (docs/broker-contract.md).
 */
const ALLOWED_REQUEST_HEADERS = 'X-CSRF, Authorization, X-Refused-Token';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export type HeaderRecord = Record<string, string>;

/** The broker's answer before any web or Node response object exists (answer.ts makes them). */
export interface BrokerAnswer {
  status: number;
  headers: HeaderRecord;
  body: string | null;
}

/** `Vary: Origin`, plus the grant when `origin` is listed. */
export function corsHeaders(origin: string | null, allowedOrigins: ReadonlySet<string>): HeaderRecord {
  if (origin !== null && allowedOrigins.has(origin)) {
    return { Vary: 'Origin', 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' };
  }
  return { Vary: 'Origin' };
}

/** The answer to an OPTIONS preflight: 204 and a grant for a listed origin, a bare 403 for anyone else. */
export function preflightAnswer(origin: string | null, allowedOrigins: ReadonlySet<string>): { status: 204 | 403; headers: HeaderRecord } {
  const headers = corsHeaders(origin, allowedOrigins);
  if (!('Access-Control-Allow-Origin' in headers)) return { status: 403, headers: { ...headers, Allow: 'GET, OPTIONS' } };
  return {
    status: 204,
    headers: {
      ...headers,
      Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      'Access-Control-Allow-Methods': 'GET',
      'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    },
  };
}
