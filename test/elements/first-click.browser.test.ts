/**
 * The first click sends the dispatch alone: an operation element gets its token ready on the first sign of
 * intent (the pointer enters it, it gets focus, a touch starts), through the page's single flight. The
 * broker is still called once per token life, and never on a page whose elements nobody approaches.
 */
import { expect, fixture, waitUntil } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioVerify } from '../../src/elements/index.js';
import { ATTRS, MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork } from './network.js';

const PINNED = `${ATTRS} workstation-id="ws-7" device-id="dev-1" subject-id="alice"`;

describe('the first click sends the dispatch alone', () => {
  afterEach(restoreNetwork);

  for (const intent of ['pointerenter', 'focusin', 'touchstart']) {
    it(`after ${intent}, the requests between the click and the dispatch are exactly the dispatch`, async () => {
      const net = installNetwork();
      const el = await fixture<BioVerify>(`<bio-verify ${PINNED}></bio-verify>`);
      el.dispatchEvent(new Event(intent, { bubbles: intent !== 'pointerenter', composed: true }));
      await waitUntil(() => net.callsTo(TOKEN_PATH).length === 1, 'the token is asked for on intent');
      await new Promise((resolve) => setTimeout(resolve, 0));
      const before = net.calls.length;
      el.shadowRoot!.querySelector<HTMLButtonElement>('button[part="button"]')!.click();
      await waitUntil(() => net.callsTo(`${MIDDLEWARE}/orchestrator/verify`).length === 1);
      expect(net.calls.slice(before).map((call) => call.url)).to.deep.equal([`${MIDDLEWARE}/orchestrator/verify`]);
    });
  }

  it('a page whose elements nobody approaches calls the broker 0 times; many intents call it once per token life', async () => {
    const net = installNetwork();
    const els = await Promise.all([1, 2, 3].map(() => fixture<BioVerify>(`<bio-verify ${PINNED}></bio-verify>`)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(net.callsTo(TOKEN_PATH)).to.have.length(0);
    for (const el of els) for (const intent of ['pointerenter', 'focusin', 'touchstart']) el.dispatchEvent(new Event(intent));
    await waitUntil(() => net.callsTo(TOKEN_PATH).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(net.callsTo(TOKEN_PATH)).to.have.length(1);
  });
});
