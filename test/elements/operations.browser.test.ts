import { expect, fixture, oneEvent } from '@open-wc/testing';
import $ from 'jquery';
import '../../src/elements/index.js';
import type { BioEnroll, BioEnrolled, BioSearch, BioVerify } from '../../src/elements/index.js';
import type { BioErrorDetail, BioResultDetail } from '../../src/elements/parts/events.js';
import { json } from '../support/fake-network.js';
import { ATTRS, MIDDLEWARE, TOKEN_PATH, everythingVisible, installNetwork, restoreNetwork, shadowText, type Net } from './network.js';

/** Collects every bio-* event that reaches `document`. */
function recordEvents() {
  const seen: CustomEvent[] = [];
  const names = ['bio-start', 'bio-progress', 'bio-result', 'bio-error', 'bio-status'];
  const listener = (e: Event) => seen.push(e as CustomEvent);
  names.forEach((n) => document.addEventListener(n, listener));
  return { seen, stop: () => names.forEach((n) => document.removeEventListener(n, listener)) };
}

describe('operation elements: happy paths', () => {
  let net: Net;
  beforeEach(() => {
    net = installNetwork();
  });
  afterEach(restoreNetwork);

  it('bio-verify: broker token, discovery, dispatch to the middleware orchestrator, bio-result with the target', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice" agent-id="clerk-9"></bio-verify>`);
    const events = recordEvents();
    const resultEvent = oneEvent(el, 'bio-result');
    el.shadowRoot!.querySelector<HTMLButtonElement>('button[part="button"]')!.click();
    const { detail } = (await resultEvent) as CustomEvent<BioResultDetail>;
    events.stop();
    expect(detail).to.deep.equal({
      operation: 'verify',
      result: { subjectId: 'alice', match: true, score: 0.97, verificationId: 'ver-42' },
      workstationId: 'ws-7',
      deviceId: 'dev-1',
    });
    const broker = net.callsTo(TOKEN_PATH);
    expect(broker).to.have.length(1);
    expect(broker[0]!.headers.get('x-csrf')).to.equal('1');
    expect(broker[0]!.headers.get('accept')).to.equal('application/json');
    const [dispatch] = net.callsTo(`${MIDDLEWARE}/orchestrator/verify`);
    expect(dispatch!.headers.get('authorization')).to.equal('Bearer token-1');
    expect(dispatch!.headers.get('x-integrator-id')).to.equal('acme');
    expect(dispatch!.body).to.deep.equal({ workstationId: 'ws-7', deviceId: 'dev-1', subjectId: 'alice', agentId: 'clerk-9' });
    // Discovery once per operation: the dispatch names the target the status line showed.
    expect(net.callsTo('http://127.0.0.1:18065/status')).to.have.length(1);
    expect(events.seen.map((e) => `${e.type}:${(e.detail as { phase?: string }).phase ?? ''}`)).to.deep.equal([
      'bio-start:',
      'bio-progress:token',
      'bio-progress:locating',
      'bio-progress:dispatched',
      'bio-result:',
    ]);
    await el.updateComplete;
    expect(shadowText(el)).to.contain('Fingerprint verified.');
  });

  it('the broker call carries the session cookie (credentials: include) and is never cached by the browser', async () => {
    const inits: RequestInit[] = [];
    const fake = globalThis.fetch;
    globalThis.fetch = ((input: string, init: RequestInit) => {
      inits.push(init);
      return fake(input, init);
    }) as typeof fetch;
    const el = await fixture<BioEnroll>(`<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`);
    await el.start();
    expect(inits[0]!.credentials).to.equal('include');
    expect(inits[0]!.cache).to.equal('no-store');
  });

  it('bio-enroll: start() resolves with the enrollment and the status says so', async () => {
    const el = await fixture<BioEnroll>(`<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`);
    const result = await el.start();
    expect(result.enrollmentId).to.equal('enr-1');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[role="status"]')!.textContent).to.contain('Fingerprint enrolled.');
  });

  it('bio-search: lists the candidates as text (markup from the middleware is never parsed)', async () => {
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
    await el.start();
    await el.updateComplete;
    const items = [...el.shadowRoot!.querySelectorAll('[part="result"]')];
    expect(items.map((li) => li.textContent!.replace(/\s+/g, ' '))).to.deep.equal(['alice (score 0.91)', '<b>bob</b> (score 0.4)']);
    expect(el.shadowRoot!.querySelector('b')).to.equal(null);
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/search`)[0]!.body).to.deep.equal({ workstationId: 'ws-7', deviceId: 'dev-1' });
  });

  it('bio-enrolled: lists the records of subject-id (fetchEnrolled; no discovery)', async () => {
    const el = await fixture<BioEnrolled>(`<bio-enrolled ${ATTRS} subject-id="alice"></bio-enrolled>`);
    const result = await el.start();
    expect(result.records).to.have.length(1);
    await el.updateComplete;
    expect(shadowText(el)).to.contain('Enrolled fingerprints: 1');
    // Each record says what its number is: "quality 88", never a bare "(88)".
    expect(el.shadowRoot!.querySelector('[part="result"]')!.textContent).to.match(/^enr-1: .+ \(quality 88\)$/);
    expect(net.callsTo('http://127.0.0.1:18065/status')).to.have.length(0);
  });

  it('three elements naming the same token endpoint share one broker call', async () => {
    const root = await fixture(`<div>
      <bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>
      <bio-verify ${ATTRS} subject-id="alice"></bio-verify>
      <bio-search ${ATTRS}></bio-search>
    </div>`);
    const [enroll, verify, search] = [...root.children] as [BioEnroll, BioVerify, BioSearch];
    await Promise.all([enroll.start(), verify.start(), search.start()]);
    await search.start();
    expect(net.callsTo(TOKEN_PATH)).to.have.length(1);
    const tokens = net.calls.filter((c) => c.url.startsWith(MIDDLEWARE)).map((c) => c.headers.get('authorization'));
    expect(tokens).to.deep.equal(Array(4).fill('Bearer token-1'));
  });

  it('spec 5.6: the broker token is reused until just under expires_in, then fetched anew before it expires', async () => {
    const realNow = Date.now;
    let now = realNow();
    Date.now = () => now;
    try {
      net = installNetwork((n) => n.on('GET', TOKEN_PATH, (_c, i) => json({ access_token: `short-${i + 1}`, expires_in: 20 })));
      const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
      await el.start();
      now += 17_000;
      await el.start();
      expect(net.callsTo(TOKEN_PATH)).to.have.length(1);
      // Clamped leeway: a 20 s token is replaced after 18 s, before it expires (not on every call).
      now += 2_000;
      await el.start();
      expect(net.callsTo(TOKEN_PATH)).to.have.length(2);
      const used = net.callsTo(`${MIDDLEWARE}/orchestrator/search`).map((c) => c.headers.get('authorization'));
      expect(used).to.deep.equal(['Bearer short-1', 'Bearer short-1', 'Bearer short-2']);
    } finally {
      Date.now = realNow;
    }
  });

  it('start() on an element that is not in the document rejects without events or network', async () => {
    const el = document.createElement('bio-verify');
    el.setAttribute('subject-id', 'alice');
    let rejection: unknown;
    await el.start().catch((e: unknown) => (rejection = e));
    expect(rejection).to.have.property('code', 'aborted');
    expect(net.calls).to.have.length(0);
  });

  it('spec 5.3: a middleware 401 gets one broker refresh and one retry with the new token', async () => {
    net = installNetwork((n) =>
      n.on('POST', `${MIDDLEWARE}/orchestrator/verify`, (call) =>
        call.headers.get('authorization') === 'Bearer token-1'
          ? json({ error: 'invalid_token' }, 401)
          : json({ subjectId: 'alice', match: true, score: 0.9, verificationId: 'ver-2' }),
      ),
    );
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const result = await el.start();
    expect(result.verificationId).to.equal('ver-2');
    expect(net.callsTo(TOKEN_PATH)).to.have.length(2);
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/verify`).map((c) => c.headers.get('authorization'))).to.deep.equal([
      'Bearer token-1',
      'Bearer token-2',
    ]);
    // The refreshed token is the page's token now: the next operation uses it without a broker call.
    await el.start();
    expect(net.callsTo(TOKEN_PATH)).to.have.length(2);
  });

  it('a second 401 after the refresh is final: bio-error unauthorized, no third attempt', async () => {
    net = installNetwork((n) => n.on('POST', `${MIDDLEWARE}/orchestrator/verify`, () => json({ error: 'invalid_token' }, 401)));
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const failed = oneEvent(el, 'bio-error');
    await el.start().catch(() => {});
    expect(((await failed) as CustomEvent<BioErrorDetail>).detail.code).to.equal('unauthorized');
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/verify`)).to.have.length(2);
  });

  it('bio-start is cancelable: a cancelled start does no work and emits no result', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const events = recordEvents();
    el.addEventListener('bio-start', (e) => e.preventDefault(), { once: true });
    let rejected: unknown;
    await el.start().catch((e: unknown) => (rejected = e));
    events.stop();
    expect(rejected).to.have.property('code', 'aborted');
    expect(net.calls).to.have.length(0);
    expect(events.seen.map((e) => e.type)).to.deep.equal(['bio-start']);
  });

  it('events bubble out of the shadow DOM: a jQuery delegated handler on document sees bio-result', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const seen: string[] = [];
    $(document).on('bio-result', 'bio-verify', function (this: Element, e) {
      seen.push(`${this.localName}:${((e.originalEvent as CustomEvent).detail as BioResultDetail).operation}`);
    });
    try {
      await el.start();
    } finally {
      $(document).off('bio-result');
    }
    expect(seen).to.deep.equal(['bio-verify:verify']);
  });

  it('relative middleware-url and token-endpoint resolve against the page', async () => {
    const page = new URL('/mw', document.baseURI).href;
    net = installNetwork((n) => n.on('POST', `${page}/orchestrator/enroll`, () => json({ subjectId: 'alice', enrollmentId: 'rel-1' })));
    const el = await fixture<BioEnroll>(
      `<bio-enroll middleware-url="/mw" token-endpoint="token" workstation-id="ws-1" device-id="d-1" subject-id="alice"></bio-enroll>`,
    );
    const result = await el.start();
    expect(result.enrollmentId).to.equal('rel-1');
    expect(net.calls[0]!.url).to.equal(new URL('token', document.baseURI).href);
  });

  it('page defaults (window.BioIDElementsConfig) fill attributes an element does not set', async () => {
    const host = globalThis as { BioIDElementsConfig?: object };
    host.BioIDElementsConfig = { middlewareUrl: MIDDLEWARE, tokenEndpoint: TOKEN_PATH, localServiceUrl: 'http://127.0.0.1:18065' };
    try {
      const el = await fixture<BioVerify>(`<bio-verify subject-id="alice"></bio-verify>`);
      const result = await el.start();
      expect(result.verificationId).to.equal('ver-42');
    } finally {
      delete host.BioIDElementsConfig;
    }
  });

  it('no token appears in the DOM, the attributes or any event detail', async () => {
    const root = await fixture(`<div>
      <bio-verify ${ATTRS} subject-id="alice"></bio-verify>
      <bio-search ${ATTRS}></bio-search>
    </div>`);
    const events = recordEvents();
    const [verify, search] = [...root.children] as [BioVerify, BioSearch];
    await verify.start();
    await search.start();
    events.stop();
    await verify.updateComplete;
    const everything = everythingVisible(root) + JSON.stringify(events.seen.map((e) => e.detail));
    expect(everything).not.to.contain('token-1');
  });
});

describe('operation elements: accessibility', () => {
  beforeEach(() => installNetwork());
  afterEach(restoreNetwork);

  for (const tag of ['bio-enroll', 'bio-verify', 'bio-search', 'bio-enrolled']) {
    it(`${tag} is accessible idle, and after a result`, async () => {
      const el = await fixture<BioVerify>(`<${tag} ${ATTRS} subject-id="alice"></${tag}>`);
      await expect(el).to.be.accessible();
      const button = el.shadowRoot!.querySelector('button')!;
      expect(button.textContent!.trim()).not.to.equal('');
      expect(el.shadowRoot!.querySelector('[role="status"]')).to.exist;
      await el.start();
      await el.updateComplete;
      await expect(el).to.be.accessible();
    });
  }

  it('the progress bar is labelled and shows the phase while running', async () => {
    let release!: () => void;
    installNetwork((n) =>
      n.on('GET', TOKEN_PATH, () => new Promise<Response>((r) => (release = () => r(json({ access_token: 't', expires_in: 60 }))))),
    );
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const run = el.start().catch(() => {});
    await el.updateComplete;
    const progress = el.shadowRoot!.querySelector('progress')!;
    expect(progress.value).to.equal(1);
    expect(progress.getAttribute('aria-label')).to.equal('Verify fingerprint');
    expect(el.shadowRoot!.querySelector('button')!.getAttribute('aria-disabled')).to.equal('true');
    await expect(el).to.be.accessible();
    release();
    await run;
  });

  it('keyboard: the button is focusable and Enter starts the operation', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const button = el.shadowRoot!.querySelector('button')!;
    button.focus();
    expect(el.shadowRoot!.activeElement).to.equal(button);
    // A native <button> turns Enter/Space into click; the element needs no key handling of its own.
    const started = oneEvent(el, 'bio-start');
    button.click();
    await started;
  });
});
