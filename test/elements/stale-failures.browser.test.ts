/**
 * docs/elements.md: a failure that reports the state of the reader or its
 * workstation is cleared when the page-wide status watch reports the reader back to ready, an offline
 * workstation when the middleware reports it live again, a network failure when the browser is online again. The element
 * listens only while it shows such a failure, so nothing is polled for a result or another failure, and
 * the watch is the one every element of the page shares.
 */
import { expect, fixture } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioReaderStatus, BioVerify } from '../../src/elements/index.js';
import { json, refuse, type Handler } from '../support/fake-network.js';
import { installFakeClock, type FakeClock } from '../support/fake-clock.js';
import { ATTRS, LOCAL, MIDDLEWARE, installNetwork, restoreNetwork, type Net } from './network.js';

const STATUS_URL = `${LOCAL}/status`;
const VERIFY_URL = `${MIDDLEWARE}/orchestrator/verify`;
const READY = { workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: true }] };
const NO_DEVICE = { workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: false }] };
const OFFLINE = () => json({ error: 'workstation_offline', message: 'Target workstation is not currently live.' }, 503);
/** The watch's interval between two polls (status-watch.ts default). */
const INTERVAL = 3000;
/** How often a workstation-offline failure asks the middleware (src/elements/base/operation-element.ts). */
const LIVE_MS = 5000;

const statusLine = (el: Element) => el.shadowRoot!.querySelector('[role="status"]')!.textContent!.trim();
const detail = (el: Element) => el.shadowRoot!.querySelector('[part="error"]');

describe('stale failures clear when the reader is back', () => {
  let net: Net;
  let clock: FakeClock;
  /** What the local service answers to /status now (a test changes it). */
  let local: Handler;

  beforeEach(() => {
    // Faked before anything runs, so every poll the watch schedules waits for clock.tickAsync.
    clock = installFakeClock();
    local = () => json(READY);
    net = installNetwork((n) => n.on('GET', STATUS_URL, (call, i) => local(call, i)));
  });
  afterEach(() => {
    clock.uninstall();
    restoreNetwork();
  });

  async function failWith(el: BioVerify): Promise<void> {
    await el.start().catch(() => {});
    await el.updateComplete;
    await clock.tickAsync(0); // the watch's first poll settles
    await el.updateComplete;
  }

  it('"workstation offline" stays while the reader merely stays ready, and clears once the status watch reports it back to ready', async () => {
    net.on('POST', VERIFY_URL, OFFLINE);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    await failWith(el);
    expect(statusLine(el)).to.equal('Workstation offline');
    // The local service was ready all along: a first 'ready' says nothing about the middleware's view.
    await clock.tickAsync(INTERVAL);
    await el.updateComplete;
    expect(statusLine(el)).to.equal('Workstation offline');
    local = () => json(NO_DEVICE);
    await clock.tickAsync(INTERVAL);
    await el.updateComplete;
    expect(statusLine(el), 'the reader went away: the failure still holds').to.equal('Workstation offline');
    local = () => json(READY);
    await clock.tickAsync(INTERVAL);
    await el.updateComplete;
    expect(statusLine(el)).to.equal('');
    expect(detail(el)).to.equal(null);
    expect(el.shadowRoot!.querySelector('[part="glyph"]')!.getAttribute('class')).to.equal('idle');
    // Cleared, the element stops listening: the page polls no more.
    const polls = net.callsTo(STATUS_URL).length;
    await clock.tickAsync(10 * INTERVAL);
    expect(net.callsTo(STATUS_URL)).to.have.length(polls);
  });

  it('"the fingerprint service is not reachable" clears when the service answers with a ready reader again', async () => {
    local = refuse;
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    await failWith(el);
    expect(statusLine(el)).to.equal('Reader service not running');
    local = () => json(READY);
    await clock.tickAsync(60_000); // past the back-off of an unreachable service
    await el.updateComplete;
    expect(statusLine(el)).to.equal('');
  });

  it('"workstation offline" of a pinned workstation clears once the middleware reports it live again (its liveness call)', async () => {
    net.on('POST', VERIFY_URL, OFFLINE);
    let live = false;
    net.on('GET', `${MIDDLEWARE}/orchestrator/workstations/ws-1`, () => json({ workstationId: 'ws-1', live, devices: [] }));
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} workstation-id="ws-1" device-id="d-1" subject-id="alice"></bio-verify>`);
    await failWith(el);
    expect(statusLine(el)).to.equal('Workstation offline');
    await clock.tickAsync(LIVE_MS);
    await el.updateComplete;
    expect(statusLine(el), 'still offline').to.equal('Workstation offline');
    live = true;
    await clock.tickAsync(LIVE_MS);
    await el.updateComplete;
    expect(statusLine(el)).to.equal('');
    expect(detail(el)).to.equal(null);
    // Cleared, nothing more is asked.
    const asked = net.callsTo(`${MIDDLEWARE}/orchestrator/workstations/ws-1`).length;
    expect(asked).to.equal(2);
    await clock.tickAsync(10 * LIVE_MS);
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/workstations/ws-1`)).to.have.length(asked);
  });

  it('a middleware without the liveness call is asked once: the status watch’s rule remains', async () => {
    net.on('POST', VERIFY_URL, OFFLINE);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    await failWith(el);
    await clock.tickAsync(10 * LIVE_MS);
    await el.updateComplete;
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/workstations/ws-7`)).to.have.length(1);
    expect(statusLine(el)).to.equal('Workstation offline');
  });

  it('a network failure clears when the browser is online again', async () => {
    net.on('POST', VERIFY_URL, refuse);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    await failWith(el);
    expect(statusLine(el)).to.equal('No connection');
    window.dispatchEvent(new Event('online'));
    await el.updateComplete;
    expect(statusLine(el)).to.equal('');
    expect(detail(el)).to.equal(null);
  });

  it('a network failure clears when the middleware answers again, the browser online all along', async () => {
    // The middleware is down: its address refuses every connection, verify and the tokenless probe alike.
    let down = true;
    const middleware: Handler = (call, i) => (down ? refuse(call, i) : json({ error: 'unauthorized' }, 401));
    net.on('POST', VERIFY_URL, middleware).on('GET', `${MIDDLEWARE}/`, middleware);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    await failWith(el);
    expect(statusLine(el)).to.equal('No connection');
    await clock.tickAsync(LIVE_MS);
    await el.updateComplete;
    expect(statusLine(el), 'still down').to.equal('No connection');
    expect(net.callsTo(`${MIDDLEWARE}/`)).to.have.length(1);
    // Back: any HTTP answer, a 401 to a call without a token included, means the middleware is there.
    down = false;
    await clock.tickAsync(LIVE_MS);
    await el.updateComplete;
    expect(statusLine(el)).to.equal('');
    expect(detail(el)).to.equal(null);
    // Cleared, nothing more is asked, and no token was spent on asking.
    const asked = net.callsTo(`${MIDDLEWARE}/`);
    expect(asked).to.have.length(2);
    expect(asked.map((call) => call.headers.get('authorization'))).to.deep.equal([null, null]);
    await clock.tickAsync(10 * LIVE_MS);
    expect(net.callsTo(`${MIDDLEWARE}/`)).to.have.length(2);
  });

  it('nothing is polled for a result or for a failure that is not about the reader', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    await el.start();
    net.on('POST', VERIFY_URL, () => json({ error: 'internal' }, 500));
    await failWith(el);
    expect(statusLine(el)).to.equal('Service problem');
    const polls = net.callsTo(STATUS_URL).length; // one discovery per operation
    await clock.tickAsync(10 * INTERVAL);
    expect(net.callsTo(STATUS_URL)).to.have.length(polls);
  });

  it('removing the element stops its watch', async () => {
    net.on('POST', VERIFY_URL, OFFLINE);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    await failWith(el);
    el.remove();
    const polls = net.callsTo(STATUS_URL).length;
    await clock.tickAsync(10 * INTERVAL);
    expect(net.callsTo(STATUS_URL)).to.have.length(polls);
  });

  it('the watch is the page-wide one <bio-reader-status> uses: one poll per interval for both', async () => {
    net.on('POST', VERIFY_URL, OFFLINE);
    const holder = await fixture<HTMLDivElement>(
      `<div><bio-reader-status local-service-url="${LOCAL}"></bio-reader-status><bio-verify ${ATTRS} subject-id="alice"></bio-verify></div>`,
    );
    const [status, el] = [...holder.children] as [BioReaderStatus, BioVerify];
    await clock.tickAsync(0);
    await failWith(el);
    const polls = net.callsTo(STATUS_URL).length;
    await clock.tickAsync(INTERVAL);
    expect(net.callsTo(STATUS_URL)).to.have.length(polls + 1);
    // The reader going away and coming back shows in both.
    local = () => json(NO_DEVICE);
    await clock.tickAsync(INTERVAL);
    expect(status.status?.state).to.equal('no-device');
    local = () => json(READY);
    await clock.tickAsync(INTERVAL);
    await el.updateComplete;
    expect(status.status?.state).to.equal('ready');
    expect(statusLine(el)).to.equal('');
  });
});
