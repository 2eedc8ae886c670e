/**
 * Start-up never blocks the page (src/elements/turn.ts): elements that connect together render one per
 * task, so the page gets a turn between them; each still renders, and later updates are Lit's own.
 */
import { expect } from '@open-wc/testing';
import '../../src/elements/tags/bio-reader-status.js';

type Status = HTMLElement & { updateComplete: Promise<boolean>; hasUpdated: boolean };

const pinned = (): Status => {
  const el = document.createElement('bio-reader-status') as Status;
  el.setAttribute('workstation-id', 'ws-1');
  el.setAttribute('device-id', 'reader-1');
  return el;
};

describe('each element renders in a task of its own', () => {
  it('of two elements connected together, the second renders in a later task than the first, and both render', async () => {
    const [first, second] = [pinned(), pinned()];
    document.body.append(first, second);
    try {
      await first.updateComplete;
      expect(second.hasUpdated, 'the second has not rendered in the first one’s task').to.equal(false);
      await second.updateComplete;
      expect(second.shadowRoot?.textContent).to.contain('ws-1');
    } finally {
      first.remove();
      second.remove();
    }
  });
});
