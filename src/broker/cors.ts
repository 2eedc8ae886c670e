/**
 * CORS of the token broker. A token is a credential: only listed origins get a grant, echoed exactly
 * with `Access-Control-Allow-Credentials: true` (a wildcard cannot carry credentials and would hand the
 * token to any site). Every answer says `Vary: Origin`, so a shared cache never serves one origin's
 * grant to another.
 */

/** Headers the frontend may send: the anti-CSRF header, and Authorization for a subject token in exchange mode. */
const ALLOWED_REQUEST_HEADERS = 'X-CSRF, Authorization';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export function corsHeaders(origin: string | null, allowedOrigins: ReadonlySet<string>): Headers {
  const headers = new Headers({ Vary: 'Origin' });
  if (origin !== null && allowedOrigins.has(origin)) {
    headers.set('Access-Control-Allow-Origin', origin);
    headers.set('Access-Control-Allow-Credentials', 'true');
  }
  return headers;
}

/** The answer to an OPTIONS preflight: a grant for a listed origin, a bare 403 for anyone else. */
export function preflightResponse(origin: string | null, allowedOrigins: ReadonlySet<string>): Response {
  const headers = corsHeaders(origin, allowedOrigins);
  if (!headers.has('Access-Control-Allow-Origin')) {
    headers.set('Allow', 'GET, OPTIONS');
    return new Response(null, { status: 403, headers });
  }
  headers.set('Access-Control-Allow-Methods', 'GET');
  headers.set('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS);
  headers.set('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
  headers.append('Vary', 'Access-Control-Request-Method, Access-Control-Request-Headers');
  return new Response(null, { status: 204, headers });
}
