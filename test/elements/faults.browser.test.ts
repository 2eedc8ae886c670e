/**
 * Fault matrix of the elements: each fault of the token broker or the middleware ends in a
 * `bio-error` with the right code, and the next attempt succeeds once the peer is back; element
 * lifecycle faults (removal, re-adding, attribute changes mid-operation). For the whole file, no
 * unhandled rejection and no uncaught error reaches the window.
 *
 * Already asserted elsewhere (not repeated here): the broker codes alone in
 * test/elements/errors.browser.test.ts ("a broker answering … is 'session-expired' / 'broker-unavailable'",
 * "an unreachable broker …", "a broker that does not answer within timeout-ms …"); middleware 401 then OK
 * and 401 forever in test/elements/operations.browser.test.ts ("spec 5.3: a middleware 401 gets one broker
 * refresh and one retry …", "a second 401 after the refresh is final …"); a pinned 503 offline and the
 * removal rejection in errors.browser.test.ts.
 */
import { expect, fixture, oneEvent } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import '../../src/elements/index.js';
import type { BioEnroll, BioReaderStatus, BioSearch, BioVerify } from '../../src/elements/index.js';
import type { BioErrorDetail } from '../../src/elements/parts/events.js';
import { WORKSTATION_OFFLINE_TEXT } from '../../src/core/errors.js';
import { deferred, hang, json, refuse, text, tick, type Handler } from '../support/fake-network.js';
import { installFakeClock } from '../support/fake-clock.js';
import { ATTRS, LOCAL, MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork, type Net } from './network.js';

type Operable = HTMLElement & { start(): Promise<unknown>; updateComplete: Promise<unknown> };

/** Starts `el` and resolves with the bio-error detail it emitted (start() must reject). */
async function failure(el: Operable): Promise<BioErrorDetail> {
  const event = oneEvent(el, 'bio-error');
  let rejected = false;
  await el.start().catch(() => (rejected = true));
  expect(rejected, 'start() rejected').to.equal(true);
  return ((await event) as CustomEvent<BioErrorDetail>).detail;
}

/** A Response that looks like the result of a followed redirect (fetch sets `redirected`). */
function redirected(response: Response): Response {
  Object.defineProperty(response, 'redirected', { value: true });
  return response;
}

/** A handler that answers `fault` while `state.down`, else `good`. */
function switchable(state: { down: boolean }, fault: Handler, good: Handler): Handler {
  return (call, i) => (state.down ? fault(call, i) : good(call, i));
}

/** Collects every bio-* event that reaches `document`. */
function recordEvents() {
  const seen: string[] = [];
  const names = ['bio-start', 'bio-progress', 'bio-result', 'bio-error', 'bio-status'];
  const listener = (e: Event) => seen.push(e.type);
  names.forEach((n) => document.addEventListener(n, listener));
  return { seen, stop: () => names.forEach((n) => document.removeEventListener(n, listener)) };
}

const uncaught: unknown[] = [];
const onError = (e: ErrorEvent | PromiseRejectionEvent) => uncaught.push('reason' in e ? e.reason : (e.error ?? e.message));
before(() => {
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onError);
});
after(async () => {
  await tick(20);
  window.removeEventListener('error', onError);
  window.removeEventListener('unhandledrejection', onError);
  expect(uncaught, 'uncaught errors or unhandled rejections in faults.browser.test.ts').to.deep.equal([]);
});

describe('fault matrix: the token broker as seen by the elements, with recovery', () => {
  let net: Net;
  afterEach(async () => {
    await tick(0);
    restoreNetwork();
    expect(uncaught, 'uncaught').to.deep.equal([]);
  });

  const good: Handler = (_c, i) => json({ access_token: `token-${i + 1}`, expires_in: 300 });
  const faults: [string, Handler, string, boolean][] = [
    ['401', () => json({ error: 'no session' }, 401), 'session-expired', false],
    ['403', () => json({ error: 'forbidden' }, 403), 'session-expired', false],
    ['502', () => json({ error: 'idp_unavailable' }, 502), 'broker-unavailable', true],
    ['a redirect to a login page', () => redirected(text('<html><body>Sign in</body></html>', 200, 'text/html')), 'session-expired', false],
    ['HTML 200', () => text('<!doctype html><html><body><form>Sign in</form></body></html>', 200, 'text/html'), 'session-expired', false],
    ['a hang past timeout-ms', hang, 'broker-unavailable', true],
    ['a network error', refuse, 'broker-unavailable', true],
  ];
  for (const [what, fault, code, retryable] of faults) {
    it(`fault: broker ${what} → bio-error ${code}, recovered on retry`, async () => {
      const state = { down: true };
      net = installNetwork((n) => n.on('GET', TOKEN_PATH, switchable(state, fault, good)));
      const el = await fixture<BioSearch>(`<bio-search ${ATTRS} timeout-ms="80"></bio-search>`);
      const detail = await failure(el);
      expect(detail).to.include({ operation: 'search', code, retryable });
      expect(
        net.calls.filter((c) => c.url.startsWith(MIDDLEWARE)),
        'no middleware call without a token',
      ).to.have.length(0);
      state.down = false;
      const result = (await el.start()) as { searchId: string };
      expect(result.searchId).to.equal('s-1');
      const search = net.callsTo(`${MIDDLEWARE}/orchestrator/search`);
      expect(search).to.have.length(1);
      expect(search[0]!.headers.get('authorization')).to.match(/^Bearer token-\d+$/);
      expect(net.callsTo(TOKEN_PATH)).to.have.length(2);
    });
  }
});

describe('fault matrix: the middleware as seen by the elements, with recovery', () => {
  let net: Net;
  afterEach(async () => {
    await tick(0);
    restoreNetwork();
    expect(uncaught, 'uncaught').to.deep.equal([]);
  });

  const verified: Handler = (call) =>
    json({ subjectId: (call.body as { subjectId: string }).subjectId, match: true, score: 0.9, verificationId: 'ver-ok' });
  const faults: [string, Handler, Partial<BioErrorDetail>, number][] = [
    ['403 (no refresh)', () => json({ error: 'insufficient_scope' }, 403), { code: 'forbidden', status: 403, retryable: false }, 1],
    ['500', () => json({ error: 'internal' }, 500), { code: 'middleware', status: 500, retryable: true }, 1],
    [
      '503 workstation offline (discovered, not pinned)',
      () => json({ error: WORKSTATION_OFFLINE_TEXT }, 503),
      { code: 'workstation-offline', status: 503, retryable: true },
      1,
    ],
    [
      'HTML error page (502 from a proxy)',
      () => text('<html><body><h1>502 Bad Gateway</h1></body></html>', 502, 'text/html'),
      { code: 'middleware', status: 502, retryable: true },
      1,
    ],
    [
      'HTML 200 (a login page)',
      () => text('<!doctype html><title>Sign in</title>', 200, 'text/html'),
      { code: 'bad-response', status: 200, retryable: false },
      1,
    ],
    [
      'truncated JSON',
      () => text('{"subjectId":"alice","match":tr', 200, 'application/json'),
      { code: 'bad-response', status: 200, retryable: false },
      1,
    ],
    ['a hang past timeout-ms', hang, { code: 'timeout', retryable: true }, 1],
    ['a connection reset', refuse, { code: 'network', retryable: true }, 1],
  ];
  for (const [what, fault, expected, attempts] of faults) {
    it(`fault: middleware ${what} → bio-error ${expected.code}, recovered on retry`, async () => {
      const state = { down: true };
      net = installNetwork((n) => n.on('POST', `${MIDDLEWARE}/orchestrator/verify`, switchable(state, fault, verified)));
      const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice" timeout-ms="80"></bio-verify>`);
      const detail = await failure(el);
      expect(detail).to.include({ operation: 'verify', ...expected });
      expect(detail.message).not.to.contain('token-1');
      expect(net.callsTo(`${MIDDLEWARE}/orchestrator/verify`), 'attempts').to.have.length(attempts);
      expect(net.callsTo(TOKEN_PATH), 'no token refresh').to.have.length(1);
      state.down = false;
      const result = (await el.start()) as { verificationId: string };
      expect(result.verificationId).to.equal('ver-ok');
      expect(net.callsTo(TOKEN_PATH), 'the cached token is reused').to.have.length(1);
    });
  }
});

describe('element lifecycle', () => {
  let net: Net;
  afterEach(async () => {
    await tick(0);
    restoreNetwork();
    expect(uncaught, 'uncaught').to.deep.equal([]);
  });

  /** Records the AbortSignal of every fetch to `url` that goes through the fake network. */
  function spySignals(url: string): AbortSignal[] {
    const signals: AbortSignal[] = [];
    const inner = globalThis.fetch;
    globalThis.fetch = ((input: string, init?: RequestInit) => {
      if (new URL(input, document.baseURI).href === url && init?.signal) signals.push(init.signal);
      return inner(input, init);
    }) as typeof fetch;
    return signals;
  }

  it('lifecycle: removed mid-dispatch → the pending middleware fetch sees its AbortSignal fire, no event after removal', async () => {
    net = installNetwork((n) => n.on('POST', `${MIDDLEWARE}/orchestrator/verify`, hang));
    const signals = spySignals(`${MIDDLEWARE}/orchestrator/verify`);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const run = el.start();
    await waitUntil(() => signals.length === 1, 'the verify call was not sent');
    expect(signals[0]!.aborted).to.equal(false);
    const events = recordEvents();
    el.remove();
    expect(signals[0]!.aborted, 'aborted synchronously on removal').to.equal(true);
    let rejection: unknown;
    await run.catch((e: unknown) => (rejection = e));
    await tick(20);
    events.stop();
    expect(rejection).to.have.property('code', 'aborted');
    expect(events.seen).to.deep.equal([]);
  });

  it('lifecycle: removed while locating the reader → the /status fetch is aborted, no event after removal', async () => {
    net = installNetwork((n) => n.on('GET', `${LOCAL}/status`, hang));
    const signals = spySignals(`${LOCAL}/status`);
    const el = await fixture<BioEnroll>(`<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`);
    const run = el.start();
    await waitUntil(() => signals.length === 1, 'discovery did not start');
    const events = recordEvents();
    el.remove();
    expect(signals[0]!.aborted).to.equal(true);
    await run.catch(() => undefined);
    await tick(20);
    events.stop();
    expect(events.seen).to.deep.equal([]);
    expect(net.calls.filter((c) => c.url.startsWith(MIDDLEWARE))).to.have.length(0);
  });

  it('lifecycle: removed while the broker call is pending → start() rejects aborted at once, no event; the shared broker call still serves others', async () => {
    const broker = deferred<Response>();
    net = installNetwork((n) => n.on('GET', TOKEN_PATH, () => broker.promise));
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
    const run = el.start();
    await waitUntil(() => net.callsTo(TOKEN_PATH).length === 1);
    const events = recordEvents();
    el.remove();
    let rejection: unknown;
    await run.catch((e: unknown) => (rejection = e));
    expect(rejection).to.have.property('code', 'aborted');
    broker.resolve(json({ access_token: 'late-token', expires_in: 300 }));
    await tick(20);
    events.stop();
    expect(events.seen).to.deep.equal([]);
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/search`)).to.have.length(0);
    // The page-wide cache kept the late token: another element gets it without a second broker call.
    const other = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
    await other.start();
    expect(net.callsTo(TOKEN_PATH)).to.have.length(1);
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/search`)[0]!.headers.get('authorization')).to.equal('Bearer late-token');
  });

  it('lifecycle: removed then re-added → the element works again', async () => {
    const state = { down: true };
    net = installNetwork((n) =>
      n.on(
        'POST',
        `${MIDDLEWARE}/orchestrator/verify`,
        switchable(state, hang, (call) =>
          json({ subjectId: (call.body as { subjectId: string }).subjectId, match: true, score: 1, verificationId: 'ver-back' }),
        ),
      ),
    );
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const parent = el.parentElement!;
    const run = el.start();
    await waitUntil(() => net.callsTo(`${MIDDLEWARE}/orchestrator/verify`).length === 1);
    el.remove();
    await run.catch(() => undefined);
    state.down = false;
    parent.append(el);
    await el.updateComplete;
    const results: CustomEvent[] = [];
    el.addEventListener('bio-result', (e) => results.push(e as CustomEvent));
    const result = await el.start();
    expect(result.verificationId).to.equal('ver-back');
    expect(results).to.have.length(1);
    expect(el.shadowRoot!.querySelector('[part="status"]')!.textContent).to.contain('Fingerprint verified.');
  });

  it('lifecycle: attributes changed mid-operation → the running operation keeps its configuration, the next one uses the new one', async () => {
    const OTHER = 'https://mw2.example.test';
    const broker = deferred<Response>();
    net = installNetwork((n) => {
      n.on('GET', TOKEN_PATH, (_c, i) => (i === 0 ? broker.promise : json({ access_token: `token-${i + 1}`, expires_in: 300 })));
      n.on('POST', `${OTHER}/orchestrator/verify`, (call) =>
        json({ subjectId: (call.body as { subjectId: string }).subjectId, match: true, score: 1, verificationId: 'ver-other' }),
      );
      // Another middleware comes with its own broker: a token is bound to its middleware.
      n.on('GET', '/token-other', () => json({ access_token: 'token-other', expires_in: 300 }));
    });
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice" agent-id="clerk-1"></bio-verify>`);
    const run = el.start();
    await waitUntil(() => net.callsTo(TOKEN_PATH).length === 1);
    // While the operation waits for its token, the page rewires the element.
    el.setAttribute('middleware-url', OTHER);
    el.setAttribute('token-endpoint', '/token-other');
    el.setAttribute('subject-id', 'bob');
    el.setAttribute('agent-id', 'clerk-2');
    el.setAttribute('workstation-id', 'ws-pinned');
    el.setAttribute('device-id', 'dev-pinned');
    await el.updateComplete;
    broker.resolve(json({ access_token: 'token-1', expires_in: 300 }));
    const first = await run;
    expect(first.verificationId).to.equal('ver-42');
    const [running] = net.callsTo(`${MIDDLEWARE}/orchestrator/verify`);
    expect(running!.body).to.deep.include({ subjectId: 'alice', agentId: 'clerk-1', workstationId: 'ws-7', deviceId: 'dev-1' });
    expect(net.callsTo(`${LOCAL}/status`)).to.have.length(1);

    const second = await el.start();
    expect(second.verificationId).to.equal('ver-other');
    const [next] = net.callsTo(`${OTHER}/orchestrator/verify`);
    expect(next!.body).to.deep.include({ subjectId: 'bob', agentId: 'clerk-2', workstationId: 'ws-pinned', deviceId: 'dev-pinned' });
    expect(net.callsTo(`${LOCAL}/status`), 'pinned now: no discovery').to.have.length(1);
  });

  it('lifecycle: bio-reader-status removed while polling stops polling (no /status request afterwards)', async () => {
    net = installNetwork();
    const clock = installFakeClock();
    try {
      const el = await fixture<BioReaderStatus>(`<bio-reader-status local-service-url="${LOCAL}"></bio-reader-status>`);
      await clock.tickAsync(0);
      expect(el.status?.state).to.equal('ready');
      expect(net.callsTo(`${LOCAL}/status`)).to.have.length(1);
      expect(clock.countTimers(), 'the next poll is scheduled').to.equal(1);
      const events = recordEvents();
      el.remove();
      expect(clock.countTimers(), 'and cancelled on removal').to.equal(0);
      // The core polls every 3 s; a minute passes.
      await clock.tickAsync(60_000);
      events.stop();
      expect(net.callsTo(`${LOCAL}/status`)).to.have.length(1);
      expect(events.seen).to.deep.equal([]);
    } finally {
      clock.uninstall();
    }
  });
});
