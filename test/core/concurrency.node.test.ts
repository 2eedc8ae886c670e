import { assert } from 'chai';
import { createFingerprintReader } from '../../src/index.js';

describe('many operations at once on one reader', () => {
  it('30 concurrent operations pile no listeners on a shared signal (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const fetchImpl = async () => Response.json({ candidates: [], searchId: 's' });
      const reader = createFingerprintReader({
        getToken: 't',
        middlewareUrl: 'https://mw.example.com',
        workstationId: 'w',
        deviceId: 'd',
        fetchImpl,
      });
      const results = await Promise.all(Array.from({ length: 30 }, () => reader.search()));
      assert.strictEqual(results.length, 30);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepStrictEqual(warnings, []);
  });
});
