// Pausing while the page is hidden, exercised in Node with a stand-in document; the Chromium twin
// (test/core/watch-status-visibility.browser.test.ts) uses the real one.
import { assert } from 'chai';
import { tick } from '../support/fake-network.js';
import { LOCAL, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

describe('watchStatus pauses while the page is hidden', () => {
  it('no /status request while hidden; one at once when visible again', async () => {
    const fakeDocument = Object.assign(new EventTarget(), { visibilityState: 'visible' as DocumentVisibilityState });
    (globalThis as { document?: unknown }).document = fakeDocument;
    try {
      const net = standardNetwork();
      const { reader } = readerOver(net, { statusIntervalMs: 10 });
      const stop = reader.watchStatus(() => {});
      await tick(30);
      fakeDocument.visibilityState = 'hidden';
      fakeDocument.dispatchEvent(new Event('visibilitychange'));
      await tick(15); // a poll under way may still finish
      const hiddenFrom = net.callsTo(`${LOCAL}/status`).length;
      await tick(100);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, hiddenFrom, '0 polls while hidden');
      fakeDocument.visibilityState = 'visible';
      fakeDocument.dispatchEvent(new Event('visibilitychange'));
      await tick(5);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, hiddenFrom + 1, 'polls again at once');
      stop();
    } finally {
      delete (globalThis as { document?: unknown }).document;
    }
  });
});
