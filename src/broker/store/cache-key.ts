/**
 * The shared store's cache key: everything that makes one middleware token differ from another, so two
 * brokers share a token only when the identity provider would have issued them the same one. The store
 * never sees it in clear (redis.ts names it by an HMAC); the subject token enters only as its hash.
 */
import { DEFAULT_AUDIENCE, type IdpClient } from '../../core/exchange.js';

export type Grant = 'client_credentials' | 'token-exchange';

export function tokenCacheKey(endpoint: string, client: IdpClient, grant: Grant, subjectTokenHash?: string): string {
  // The token endpoint carries the issuer and the realm. The secret is left out: a rotated secret issues
  // the same kind of token. A JSON array keeps fields apart whatever characters they hold.
  return JSON.stringify([
    'bioid-broker-token/1',
    endpoint,
    client.clientId,
    client.audience ?? DEFAULT_AUDIENCE,
    client.scope ?? '',
    grant,
    subjectTokenHash ?? '',
  ]);
}
