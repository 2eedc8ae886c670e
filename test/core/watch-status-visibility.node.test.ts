// Pausing while the page is hidden, exercised in Node with a stand-in document; the Chromium twin
// (test/core/watch-status-visibility.browser.test.ts) uses the real one.
import { assert } from 'chai';
import { installFakeClock } from '../support/fake-clock.js';
import { LOCAL, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

describe('watchStatus pauses while the page is hidden', () => {
  it('no /status request while hidden; one at once when visible again', async () => {
    const fakeDocument = Object.assign(new EventTarget(), { visibilityState: 'visible' as DocumentVisibilityState });
    (globalThis as { document?: unknown }).document = fakeDocument;
    const clock = installFakeClock();
    try {
      const net = standardNetwork();
      const { reader } = readerOver(net, { statusIntervalMs: 10 });
      const stop = reader.watchStatus(() => {});
      await clock.tickAsync(30);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 4, 'polls at 0, 10, 20, 30');
      fakeDocument.visibilityState = 'hidden';
      fakeDocument.dispatchEvent(new Event('visibilitychange'));
      assert.strictEqual(clock.countTimers(), 0, 'the next poll is cancelled');
      await clock.tickAsync(100);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 4, '0 polls while hidden');
      fakeDocument.visibilityState = 'visible';
      fakeDocument.dispatchEvent(new Event('visibilitychange'));
      await clock.tickAsync(0);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 5, 'polls again at once');
      await clock.tickAsync(10);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 6, 'and then at the interval');
      stop();
    } finally {
      clock.uninstall();
      delete (globalThis as { document?: unknown }).document;
    }
  });
});
