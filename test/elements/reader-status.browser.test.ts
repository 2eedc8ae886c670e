import { expect, fixture, oneEvent } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import '../../src/elements/index.js';
import { configureElements, type BioReaderStatus } from '../../src/elements/index.js';
import type { BioErrorDetail, BioStatusDetail } from '../../src/elements/parts/events.js';
import { json, refuse } from '../support/fake-network.js';
import { installFakeClock } from '../support/fake-clock.js';
import { LOCAL, installNetwork, restoreNetwork, shadowText, type Net } from './network.js';

const STATUS_URL = `${LOCAL}/status`;

describe('bio-reader-status', () => {
  let net: Net;
  beforeEach(() => {
    net = installNetwork();
  });
  afterEach(() => {
    restoreNetwork();
    delete (globalThis as { BioIDElementsConfig?: unknown }).BioIDElementsConfig;
  });

  it('spec 9.2: shows the discovered workstation and device, with bio-status checking then ready', async () => {
    const states: BioStatusDetail[] = [];
    // Typed on document too (DocumentEventMap): e.detail is a BioStatusDetail without a cast.
    const listener = (e: CustomEvent<BioStatusDetail>) => states.push(e.detail);
    document.addEventListener('bio-status', listener);
    const el = await fixture<BioReaderStatus>(`<bio-reader-status local-service-url="${LOCAL}"></bio-reader-status>`);
    await waitUntil(() => el.status?.state === 'ready', 'never ready');
    document.removeEventListener('bio-status', listener);
    await el.updateComplete;
    expect(states).to.deep.equal([
      { state: 'checking', pinned: false },
      { state: 'ready', pinned: false, workstationId: 'ws-7', deviceId: 'dev-1' },
    ]);
    expect(shadowText(el)).to.contain('Reader ready.');
    expect(el.shadowRoot!.querySelector('[part="details"]')!.textContent).to.contain('ws-7');
    expect(el.shadowRoot!.querySelector('[part="details"]')!.textContent).to.contain('dev-1');
    await expect(el).to.be.accessible();
  });

  it('spec 9.3: pinned ids are shown as given and /status is never polled', async () => {
    const el = await fixture<BioReaderStatus>(
      `<bio-reader-status local-service-url="${LOCAL}" workstation-id="ws-pin" device-id="dev-pin"></bio-reader-status>`,
    );
    await waitUntil(() => el.status?.state === 'pinned');
    await el.updateComplete;
    const clock = installFakeClock();
    try {
      await clock.tickAsync(60_000); // far past any polling interval and back-off
      expect(clock.countTimers(), 'no poll scheduled').to.equal(0);
    } finally {
      clock.uninstall();
    }
    expect(net.callsTo(STATUS_URL)).to.have.length(0);
    expect(shadowText(el)).to.contain('ws-pin');
    expect(shadowText(el)).to.contain('dev-pin');
    expect(shadowText(el)).to.contain('Using the configured workstation and reader.');
    await expect(el).to.be.accessible();
  });

  it('an unreachable local service tells the user what to do', async () => {
    net.on('GET', STATUS_URL, refuse);
    const el = await fixture<BioReaderStatus>(`<bio-reader-status local-service-url="${LOCAL}"></bio-reader-status>`);
    await waitUntil(() => el.status?.state === 'unreachable');
    await el.updateComplete;
    const advice = el.shadowRoot!.querySelector('[part="advice"]')!.textContent!;
    expect(advice).to.contain('Start the fingerprint companion app');
    expect(advice).to.match(/local network/);
    expect(advice).to.contain('ask your administrator to set this page to a fixed reader');
    expect(advice, 'no attribute names for the person at the reader').not.to.match(/workstation-id|device-id/);
    await expect(el).to.be.accessible();
  });

  it('no connected device is its own state', async () => {
    net.on('GET', STATUS_URL, () => json({ workstationId: 'ws-7', devices: [{ deviceId: 'd', connected: false }] }));
    const el = await fixture<BioReaderStatus>(`<bio-reader-status local-service-url="${LOCAL}"></bio-reader-status>`);
    await waitUntil(() => el.status?.state === 'no-device');
    await el.updateComplete;
    expect(shadowText(el)).to.contain('No fingerprint reader is connected.');
  });

  it('half a pin is a bio-error (operation status) and words for people, not an exception', async () => {
    const errors: BioErrorDetail[] = [];
    const listener = (e: Event) => errors.push((e as CustomEvent<BioErrorDetail>).detail);
    document.addEventListener('bio-error', listener);
    const el = await fixture<BioReaderStatus>(`<bio-reader-status device-id="dev-1"></bio-reader-status>`);
    document.removeEventListener('bio-error', listener);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ operation: 'status', code: 'config' });
    expect(errors[0]!.message).to.contain('workstationId is missing');
    // The message is for developers (bio-error, the console); the person reads the headline and the next step.
    expect(shadowText(el)).to.equal('Not set up This component is not set up correctly. Ask your administrator.');
    expect(net.calls).to.have.length(0);
    await expect(el).to.be.accessible();
  });

  it('removal stops polling: the request under way is aborted', async () => {
    const signals: AbortSignal[] = [];
    const fake = globalThis.fetch;
    globalThis.fetch = ((_input: string, init: RequestInit) => {
      if (init.signal) signals.push(init.signal);
      return new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    }) as typeof fetch;
    try {
      const el = await fixture<BioReaderStatus>(`<bio-reader-status local-service-url="${LOCAL}"></bio-reader-status>`);
      await waitUntil(() => signals.length === 1);
      el.remove();
      expect(signals[0]!.aborted).to.equal(true);
    } finally {
      globalThis.fetch = fake;
    }
  });

  it('page defaults set after the script loaded (configureElements) reach a connected element', async () => {
    const el = await fixture<BioReaderStatus>(`<bio-reader-status workstation-id="a" device-id="b"></bio-reader-status>`);
    await waitUntil(() => el.status?.state === 'pinned');
    el.removeAttribute('workstation-id');
    el.removeAttribute('device-id');
    const ready = oneEvent(el, 'bio-status');
    configureElements({ localServiceUrl: LOCAL });
    await ready;
    await waitUntil(() => el.status?.state === 'ready');
    expect(net.callsTo(STATUS_URL).length).to.be.greaterThan(0);
  });

  it('a client secret in the page defaults is refused', () => {
    expect(() => configureElements({ clientSecret: 's3cr3t' } as never)).to.throw(/client secret must never reach a browser/);
  });
});
