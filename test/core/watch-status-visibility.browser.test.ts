import { assert } from '@open-wc/testing';
import { tick } from '../support/fake-network.js';
import { LOCAL, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

function setVisibility(state: DocumentVisibilityState) {
  Object.defineProperty(document, 'visibilityState', { value: state, configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
}

describe('watchStatus in a real page', () => {
  it('pauses /status polling while the page is hidden', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const stop = reader.watchStatus(() => {});
    try {
      await tick(30);
      setVisibility('hidden');
      await tick(15);
      const hiddenFrom = net.callsTo(`${LOCAL}/status`).length;
      await tick(100);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, hiddenFrom);
      setVisibility('visible');
      await tick(5);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, hiddenFrom + 1);
    } finally {
      stop();
      delete (document as { visibilityState?: unknown }).visibilityState;
    }
  });
});
