/**
 * The token response of spec 2.4, `{ access_token, expires_in }`, as answered by the identity provider
 * (4.2) and by a token broker (4.1). One parser for both, so both are validated the same way.
 */
import { isJsonObject } from './config.js';
import { ReaderAuthError, scrubServerText, sentence, type Secrets } from './errors.js';
import { describeReply, notJsonObject, type Reply } from './http.js';
import type { IssuedToken } from './token-cache.js';

/**
 * Reads a token response or throws a `ReaderAuthError` that says what was wrong with it, naming `source`
 * (for example "the identity provider at https://idp/…/token"). Never includes the token itself.
 */
export function parseTokenResponse(reply: Reply, source: string): Required<IssuedToken> {
  if (!reply.ok) {
    throw new ReaderAuthError(sentence(`${source} answered HTTP ${reply.status}: ${describeReply(reply)}`), { status: reply.status });
  }
  const body = reply.json;
  if (!isJsonObject(body)) {
    throw new ReaderAuthError(
      `${source} answered HTTP ${reply.status} with ${notJsonObject(reply)}; expected { access_token, expires_in }.`,
      { status: reply.status },
    );
  }
  const { access_token: accessToken, expires_in: expiresIn } = body;
  const token = typeof accessToken === 'string' ? headerSafeToken(accessToken) : undefined;
  if (!token) {
    throw new ReaderAuthError(
      `${source} answered without an access_token that can be sent in an HTTP header (a non-empty string without control characters).`,
      { status: reply.status },
    );
  }
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    throw new ReaderAuthError(
      `${source} answered with an invalid expires_in (${describeValue(expiresIn, reply.secrets)}); expected a positive number of seconds.`,
      { status: reply.status },
    );
  }
  return { accessToken: token, expiresIn };
}

/**
 * What may follow `Bearer `: any legal HTTP header value (RFC 9110 field-value: visible characters,
 * spaces inside, Latin-1 obs-text), whatever its alphabet (`1|abc`, `a=b`, `abc%3D` are all tokens some
 * issuer hands out). Control characters (CR, LF, tab, DEL) are not.
 */
const HEADER_VALUE = /^[\x20-\x7E\x80-\xFF]+$/;

/** The token to send, trimmed (a `.text()` answer ends in a newline), or undefined when it cannot be a header value. */
export function headerSafeToken(value: string): string | undefined {
  const token = value.trim();
  return HEADER_VALUE.test(token) ? token : undefined;
}

function describeValue(value: unknown, secrets?: Secrets): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `the string "${scrubServerText(value, 20, secrets)}"`;
  return value === null ? 'null' : typeof value;
}
