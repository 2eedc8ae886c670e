import { assert } from '@open-wc/testing';
import { rejectsWith } from '../support/expect-error.js';
import { BioIDError, createFingerprintReader } from '../../src/index.js';

describe('local service seen from a real page', () => {
  it('a local service that refuses CORS is reported as unreachable with what to do', async () => {
    // The test server's second origin (another loopback port) answers without CORS headers: the
    // browser blocks the answer, exactly like a local service that does not allow this page.
    const { origin: otherOrigin } = (await (await fetch('/__test/second-origin')).json()) as { origin: string };
    const status = await fetch(`${otherOrigin}/status`, { mode: 'no-cors' });
    assert.strictEqual(status.type, 'opaque', 'the second origin is up (only CORS stands in the way)');
    const reader = createFingerprintReader({
      getToken: 't',
      middlewareUrl: 'https://mw.example.com',
      localServiceUrl: otherOrigin,
      timeoutMs: 3000,
    });
    const error = await rejectsWith(reader.target(), BioIDError);
    assert.strictEqual(error.code, 'local-service-unreachable');
    assert.match(error.message, /companion application.*local network access prompt.*pin workstationId and deviceId/);
  });
});
