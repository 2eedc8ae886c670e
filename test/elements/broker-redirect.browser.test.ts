import { assert } from '@open-wc/testing';
import { rejectsWith } from '../support/expect-error.js';
import { BrokerError, brokerTokenSource, clearBrokerTokens } from '../../src/elements/broker-client.js';

describe('token broker behind a login gateway (real fetch, real redirect)', () => {
  it('a redirect to a login page on another origin is "session-expired", not a network failure', async () => {
    clearBrokerTokens();
    const url = new URL('/__test/token-behind-login', location.href).href;
    const error = await rejectsWith(brokerTokenSource(url, 3000).get(), BrokerError);
    assert.strictEqual(error.reason, 'session-expired');
    assert.match(error.message, /redirected \(to a login page\?\)/);
  });
});
