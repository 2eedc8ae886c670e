import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ReaderAuthError, brokerTokenSource, clearBrokerTokens } from '../../src/index.js';

describe('token broker behind a login gateway (real fetch, real redirect)', () => {
  it('a redirect to a login page on another origin is "session-expired", not a network failure', async () => {
    clearBrokerTokens();
    const url = new URL('/__test/token-behind-login', location.href).href;
    const error = await brokerTokenSource(url, { timeoutMs: 3000 }).get().catch((e: unknown) => e);
    assert.ok(error instanceof ReaderAuthError, String(error));
    assert.equal(error.code, 'session-expired');
    assert.match(error.message, /redirected \(to a login page\?\)/);
  });
});
