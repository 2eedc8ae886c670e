/**
 * The first click sends the dispatch alone: an operation element gets its token ready on the first sign of
 * intent (the pointer enters it, it gets focus, a touch starts), through the page's single flight, and an
 * element that is not pinned has the page-wide status watch locate the reader from then on (spec 9.2), for
 * a minute after the last sign. The broker is still called once per token life, and never on a page whose
 * elements nobody approaches; nothing polls /status on a page nobody approaches either.
 */
import { expect, fixture } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import '../../src/elements/index.js';
import type { BioVerify } from '../../src/elements/index.js';
import { watchReaderStatus } from '../../src/index.js';
import { installFakeClock } from '../support/fake-clock.js';
import { ATTRS, LOCAL, MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork } from './network.js';

const PINNED = `${ATTRS} workstation-id="ws-7" device-id="dev-1" subject-id="alice"`;
const UNPINNED = `${ATTRS} subject-id="alice"`;
const STATUS_URL = `${LOCAL}/status`;
const VERIFY_URL = `${MIDDLEWARE}/orchestrator/verify`;
const click = (el: BioVerify) => el.shadowRoot!.querySelector<HTMLButtonElement>('button[part="button"]')!.click();

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
      click(el);
      await waitUntil(() => net.callsTo(VERIFY_URL).length === 1);
      expect(net.calls.slice(before).map((call) => call.url)).to.deep.equal([VERIFY_URL]);
    });

    it(`spec 9.2: after ${intent}, an element that is not pinned dispatches to the reader the status watch located`, async () => {
      const net = installNetwork();
      const el = await fixture<BioVerify>(`<bio-verify ${UNPINNED}></bio-verify>`);
      el.dispatchEvent(new Event(intent, { bubbles: intent !== 'pointerenter', composed: true }));
      await waitUntil(
        () => net.callsTo(TOKEN_PATH).length === 1 && net.callsTo(STATUS_URL).length === 1,
        'token and reader readied on intent',
      );
      // The page-wide watch's answer heard (the test listens to the same watch: one poller, no request more).
      let heard = '';
      const stop = watchReaderStatus({ localServiceUrl: LOCAL }, ({ state }) => (heard = state));
      try {
        await waitUntil(() => heard === 'ready', 'the watch heard the reader');
        expect(net.callsTo(STATUS_URL), 'one watch for the page').to.have.length(1);
        const before = net.calls.length;
        click(el);
        await waitUntil(() => net.callsTo(VERIFY_URL).length === 1);
        expect(net.calls.slice(before).map((call) => call.url)).to.deep.equal([VERIFY_URL]);
        expect(net.callsTo(VERIFY_URL)[0].body).to.include({ workstationId: 'ws-7', deviceId: 'dev-1', subjectId: 'alice' });
      } finally {
        stop();
      }
    });
  }

  it('a local-service-url that cannot be watched still gets the token ready on intent; the click reports the setting', async () => {
    const net = installNetwork();
    const attrs = ATTRS.replace(`local-service-url="${LOCAL}"`, 'local-service-url="ftp://reader.example"');
    const el = await fixture<BioVerify>(`<bio-verify ${attrs} subject-id="alice"></bio-verify>`);
    el.dispatchEvent(new Event('pointerenter'));
    await waitUntil(() => net.callsTo(TOKEN_PATH).length === 1, 'the token is asked for on intent');
    const failed = el.start().then(
      () => '',
      (error: { code?: string }) => error.code,
    );
    expect(await failed).to.equal('config');
    expect(net.callsTo(STATUS_URL)).to.have.length(0);
  });

  it('spec 9.2: the watch stops locating a minute after the last sign of intent; a later click asks /status itself', async () => {
    const clock = installFakeClock();
    try {
      const net = installNetwork();
      const el = await fixture<BioVerify>(`<bio-verify ${UNPINNED}></bio-verify>`);
      await clock.tickAsync(10_000);
      expect(net.callsTo(STATUS_URL), 'nothing polls before anyone approaches').to.have.length(0);
      el.dispatchEvent(new Event('pointerenter'));
      await clock.tickAsync(59_000);
      const polls = net.callsTo(STATUS_URL).length;
      expect(polls, 'the watch polls while someone may click').to.be.greaterThan(10);
      await clock.tickAsync(2_000);
      const last = net.callsTo(STATUS_URL).length;
      expect(last, 'a poll due as the minute ends, at most').to.be.at.most(polls + 1);
      await clock.tickAsync(30_000);
      expect(net.callsTo(STATUS_URL), 'the watch has stopped').to.have.length(last);
      const before = net.calls.length;
      click(el);
      await clock.tickAsync(0);
      await waitUntil(() => net.callsTo(VERIFY_URL).length === 1);
      expect(net.calls.slice(before).map((call) => call.url)).to.deep.equal([STATUS_URL, VERIFY_URL]);
    } finally {
      clock.uninstall();
    }
  });

  it('the locating watch ends when the element leaves the page', async () => {
    const clock = installFakeClock();
    try {
      const net = installNetwork();
      const el = await fixture<BioVerify>(`<bio-verify ${UNPINNED}></bio-verify>`);
      el.dispatchEvent(new Event('focusin'));
      await clock.tickAsync(3_000);
      el.remove();
      const polls = net.callsTo(STATUS_URL).length;
      expect(polls).to.be.greaterThan(0);
      await clock.tickAsync(30_000);
      expect(net.callsTo(STATUS_URL)).to.have.length(polls);
    } finally {
      clock.uninstall();
    }
  });

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
