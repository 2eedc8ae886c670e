import { assert } from '@open-wc/testing';
import { ReaderAuthError, brokerTokenSource, clearBrokerTokens } from '../../src/index.js';

describe('token broker behind a login gateway (real fetch, real redirect)', () => {
  it('a redirect to a login page on another origin is "session-expired", not a network failure', async () => {
    clearBrokerTokens();
    const url = new URL('/__test/token-behind-login', location.href).href;
    const error = await brokerTokenSource(url, { timeoutMs: 3000 })
      .get()
      .catch((e: unknown) => e);
    assert.instanceOf(error, ReaderAuthError, String(error));
    assert.strictEqual((error as ReaderAuthError).code, 'session-expired');
    assert.match((error as ReaderAuthError).message, /redirected \(to a login page\?\)/);
  });
});
