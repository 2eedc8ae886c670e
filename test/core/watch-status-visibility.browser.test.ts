import { assert } from '@open-wc/testing';
import { installFakeClock } from '../support/fake-clock.js';
import { LOCAL, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

function setVisibility(state: DocumentVisibilityState) {
  Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
}

describe('watchStatus in a real page', () => {
  it('pauses /status polling while the page is hidden', async () => {
    const clock = installFakeClock();
    const net = standardNetwork();
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const stop = reader.watchStatus(() => {});
    try {
      await clock.tickAsync(30);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 4, 'polls at 0, 10, 20, 30');
      setVisibility('hidden');
      assert.strictEqual(clock.countTimers(), 0, 'the next poll is cancelled');
      await clock.tickAsync(100);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 4, '0 polls while hidden');
      setVisibility('visible');
      await clock.tickAsync(0);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 5, 'polls again at once');
      await clock.tickAsync(10);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 6, 'and then at the interval');
    } finally {
      stop();
      clock.uninstall();
      delete (document as { visibilityState?: unknown }).visibilityState;
    }
  });
});
