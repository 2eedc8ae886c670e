/**
 * The token response of spec 2.4, `{ access_token, expires_in }`, as answered by the identity provider
 * (4.2) and by a token broker (4.1). One parser for both, so both are validated the same way.
 */
import { ReaderAuthError } from './errors.js';
import { describeReply, type Reply } from './http.js';
import type { IssuedToken } from './token-cache.js';

/**
 * Reads a token response or throws a `ReaderAuthError` that says what was wrong with it, naming `source`
 * (for example "the identity provider at https://idp/…/token"). Never includes the token itself.
 */
export function parseTokenResponse(reply: Reply, source: string): Required<IssuedToken> {
  if (!reply.ok) {
    throw new ReaderAuthError(`${source} answered HTTP ${reply.status}: ${describeReply(reply)}.`, {
      status: reply.status,
      retryable: reply.status >= 500,
    });
  }
  const body = reply.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ReaderAuthError(
      `${source} answered HTTP ${reply.status} with ${reply.html ? 'an HTML page' : 'a body that is not a JSON object'}; expected { access_token, expires_in }.`,
      { status: reply.status, retryable: false },
    );
  }
  const { access_token: accessToken, expires_in: expiresIn } = body as Record<string, unknown>;
  if (typeof accessToken !== 'string' || accessToken.length === 0) {
    throw new ReaderAuthError(`${source} answered without a non-empty string access_token.`, {
      status: reply.status,
      retryable: false,
    });
  }
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw new ReaderAuthError(
      `${source} answered with an invalid expires_in (${describeValue(expiresIn)}); expected a positive number of seconds.`,
      { status: reply.status, retryable: false },
    );
  }
  return { accessToken, expiresIn };
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `the string "${value.slice(0, 20)}"`;
  return value === null ? 'null' : typeof value;
}
