import { expect, fixture, oneEvent } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioSearch, BioVerify } from '../../src/elements/index.js';
import type { BioErrorDetail } from '../../src/elements/parts/events.js';
import { BioIDError, WORKSTATION_OFFLINE_TEXT } from '../../src/core/errors.js';
import { clearBrokerTokens } from '../../src/core/token-broker-client.js';
import { hang, json, refuse, text } from '../support/fake-network.js';
import { ATTRS, LOCAL, MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork, shadowText, type Net } from './network.js';

/** Starts `el`, expecting a bio-error; returns its detail and the rejection of start(). */
async function failure(el: HTMLElement & { start(): Promise<unknown> }) {
  const event = oneEvent(el, 'bio-error');
  let rejection: unknown = 'start() did not reject';
  await el.start().then(
    () => undefined,
    (e: unknown) => (rejection = e),
  );
  const { detail } = (await event) as CustomEvent<BioErrorDetail>;
  await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
  return { detail, rejection };
}

/** A Response that looks like the result of a followed redirect (fetch sets `redirected`). */
function redirected(response: Response): Response {
  Object.defineProperty(response, 'redirected', { value: true });
  return response;
}

describe('operation elements: failures become bio-error and visible text, never an uncaught exception', () => {
  let net: Net;
  let uncaught: unknown[];
  const onError = (e: ErrorEvent | PromiseRejectionEvent) => uncaught.push('reason' in e ? e.reason : e.error);
  beforeEach(() => {
    net = installNetwork();
    uncaught = [];
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onError);
  });
  afterEach(async () => {
    // Let a stray rejection surface before the check.
    await new Promise((r) => setTimeout(r, 0));
    window.removeEventListener('error', onError);
    window.removeEventListener('unhandledrejection', onError);
    restoreNetwork();
    expect(uncaught, 'uncaught errors').to.deep.equal([]);
  });

  it('spec 9.4: half a pin (workstation-id without device-id) is a config bio-error with a visible message', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} workstation-id="ws-1" subject-id="alice"></bio-verify>`);
    const { detail, rejection } = await failure(el);
    expect(detail.code).to.equal('config');
    expect(detail.operation).to.equal('verify');
    expect(detail.retryable).to.equal(false);
    expect(detail.message).to.match(/deviceId is missing/);
    // One error, one code: start() rejects with the config BioIDError the event reports, not the bare TypeError.
    expect(rejection).to.be.instanceOf(BioIDError);
    expect((rejection as BioIDError).code).to.equal('config');
    expect(shadowText(el)).to.contain('This component is not set up correctly.');
    // The field is named for the developer in bio-error's detail (above), not on the card.
    expect(shadowText(el)).not.to.contain('deviceId');
    expect(net.calls).to.have.length(0);
  });

  it('a missing middleware-url is a config bio-error naming the attribute', async () => {
    const el = await fixture<BioVerify>(`<bio-verify token-endpoint="/token" subject-id="alice"></bio-verify>`);
    const { detail } = await failure(el);
    expect(detail.code).to.equal('config');
    expect(detail.message).to.contain('middleware-url');
    expect(shadowText(el)).to.contain('This component is not set up correctly.');
  });

  it('a missing token-endpoint (and no getToken) is a config bio-error naming it', async () => {
    const el = await fixture<BioVerify>(`<bio-verify middleware-url="${MIDDLEWARE}" subject-id="alice"></bio-verify>`);
    const { detail } = await failure(el);
    expect(detail).to.include({ code: 'config' });
    expect(detail.message).to.contain('token-endpoint');
  });

  it('a missing subject-id is a config bio-error before any network call', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS}></bio-verify>`);
    const { detail } = await failure(el);
    expect(detail).to.include({ code: 'config' });
    expect(detail.message).to.contain('subject-id');
    expect(net.calls).to.have.length(0);
  });

  it('spec 7: a pinned workstation that is offline (503) says so in words, the middleware text in the detail only', async () => {
    net.on('POST', `${MIDDLEWARE}/orchestrator/verify`, () => json({ error: WORKSTATION_OFFLINE_TEXT }, 503));
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} workstation-id="ws-1" device-id="d-1" subject-id="alice"></bio-verify>`);
    const { detail } = await failure(el);
    expect(detail).to.include({ code: 'workstation-offline', status: 503, retryable: true });
    expect(shadowText(el)).to.contain('The workstation is offline.');
    expect(detail.message).to.contain(WORKSTATION_OFFLINE_TEXT);
    expect(shadowText(el)).not.to.contain(WORKSTATION_OFFLINE_TEXT);
    expect(net.callsTo(`${LOCAL}/status`)).to.have.length(0);
  });

  const sessionGone: [string, () => Response][] = [
    ['401', () => json({ error: 'no session' }, 401)],
    ['403 (missing X-CSRF or foreign origin)', () => json({ error: 'forbidden' }, 403)],
    ['a redirect (to a login page, whatever it answers)', () => redirected(text('', 200))],
    ['an HTML login page served in place', () => text('<html><body><form>Sign in</form></body></html>', 200, 'text/html')],
  ];
  /** A first operation that gets a token: from then on this page has had a session. */
  async function signedInOnce() {
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
    await el.start();
    clearBrokerTokens();
    net.calls.splice(0);
  }

  for (const [what, reply] of sessionGone) {
    it(`a broker answering ${what} is 'session-expired'`, async () => {
      await signedInOnce();
      net.on('GET', TOKEN_PATH, reply);
      const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
      const { detail } = await failure(el);
      expect(detail.code).to.equal('session-expired');
      expect(detail.retryable).to.equal(false);
      expect(shadowText(el)).to.contain('Your session has ended. Sign in again.');
      expect(net.calls.filter((c) => c.url.startsWith(MIDDLEWARE))).to.have.length(0);
    });
  }

  const brokerFailed: [string, () => Response | Promise<Response>, boolean][] = [
    ['502 (identity provider failure)', () => json({ error: 'idp_unavailable' }, 502), true],
    ['500 with an HTML proxy page', () => text('<html><body>Bad gateway</body></html>', 500, 'text/html'), true],
    ['200 without access_token', () => json({ token: 'x', expires_in: 60 }), false],
  ];
  for (const [what, reply, retryable] of brokerFailed) {
    it(`a broker answering ${what} is 'broker-unavailable'`, async () => {
      net.on('GET', TOKEN_PATH, reply);
      const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
      const { detail } = await failure(el);
      expect(detail.code).to.equal('broker-unavailable');
      expect(detail.retryable).to.equal(retryable);
      expect(shadowText(el)).to.contain('Sign-in service unavailable.');
    });
  }

  it('a broker answering 200 with a body that is not JSON is a config error: nothing that issues tokens answers there', async () => {
    net.on('GET', TOKEN_PATH, () => text('not json', 200));
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
    const { detail } = await failure(el);
    expect(detail).to.include({ code: 'config', retryable: false });
    expect(detail.message).to.match(/\/token \(HTTP 200, not JSON\): check token-endpoint\.$/);
    expect(shadowText(el)).to.contain('This component is not set up correctly.');
  });

  it('an unreachable broker (network failure) is broker-unavailable, retryable', async () => {
    net.on('GET', TOKEN_PATH, refuse);
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
    const { detail } = await failure(el);
    expect(detail).to.include({ code: 'broker-unavailable', retryable: true });
  });

  it('a broker that does not answer within timeout-ms is broker-unavailable', async () => {
    net.on('GET', TOKEN_PATH, hang);
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS} timeout-ms="50"></bio-search>`);
    const { detail } = await failure(el);
    expect(detail.code).to.equal('broker-unavailable');
    expect(detail.message).to.contain('50 ms');
  });

  it('a failed broker call is not cached: the next start asks the broker again', async () => {
    net.on('GET', TOKEN_PATH, (_c, i) => (i === 0 ? json({ error: 'x' }, 502) : json({ access_token: 'good', expires_in: 60 })));
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
    await failure(el);
    await el.start();
    expect(net.callsTo(TOKEN_PATH)).to.have.length(2);
  });

  it('a getToken property replaces token-endpoint; its failure is an auth bio-error without the token', async () => {
    const el = await fixture<BioVerify>(
      `<bio-verify middleware-url="${MIDDLEWARE}" local-service-url="${LOCAL}" subject-id="alice"></bio-verify>`,
    );
    el.getToken = async () => 'own-token';
    await el.start();
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/verify`)[0]!.headers.get('authorization')).to.equal('Bearer own-token');
    el.getToken = async () => {
      throw new Error('session lost (Bearer own-token)');
    };
    const { detail } = await failure(el);
    expect(detail.code).to.equal('auth');
    expect(detail.message).not.to.contain('own-token');
    expect(net.callsTo(TOKEN_PATH)).to.have.length(0);
  });

  it('a getToken property that is not a function is not a token source: token-endpoint gives the token', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const stray = { get: async () => 'stray-token', refresh: async () => 'stray-token' };
    (el as unknown as { getToken: unknown }).getToken = stray;
    await el.start();
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/verify`)[0]!.headers.get('authorization')).to.equal('Bearer token-1');
  });

  it('an unreachable local service is local-service-unreachable with advice', async () => {
    net.on('GET', `${LOCAL}/status`, refuse);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const { detail } = await failure(el);
    expect(detail).to.include({ code: 'local-service-unreachable', retryable: true });
    expect(shadowText(el)).to.contain('The fingerprint service on this computer is not reachable.');
    expect(shadowText(el)).to.contain('Start the fingerprint companion app on this computer.');
  });

  it('removing the element aborts the operation: start() rejects (aborted) and no bio-error follows', async () => {
    net.on('POST', `${MIDDLEWARE}/orchestrator/verify`, hang);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const events: string[] = [];
    for (const type of ['bio-error', 'bio-result']) document.addEventListener(type, () => events.push(type));
    el.addEventListener('bio-error', () => events.push('bio-error on element'));
    const dispatched = oneEvent(el, 'bio-progress');
    const run = el.start();
    await dispatched;
    await new Promise((r) => setTimeout(r, 20));
    el.remove();
    let rejection: unknown;
    await run.catch((e: unknown) => (rejection = e));
    expect(rejection).to.have.property('code', 'aborted');
    await new Promise((r) => setTimeout(r, 10));
    expect(events).to.deep.equal([]);
  });
});
