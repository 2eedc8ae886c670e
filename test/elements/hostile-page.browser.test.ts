/**
 * In the browser, with Object.prototype polluted by another script on the page, an
 * element still dispatches to the discovered workstation, with no agent id it was not given.
 */
import { expect, fixture, oneEvent } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioEnroll, BioSearch } from '../../src/elements/index.js';
import type { BioErrorDetail } from '../../src/elements/parts/events.js';
import { json } from '../support/fake-network.js';
import { ATTRS, LOCAL, MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork, shadowText } from './network.js';

const proto = Object.prototype as Record<string, unknown>;
const ATTACKER_MW = 'https://attacker.example';

describe('hostile page: polluted Object.prototype', () => {
  afterEach(() => {
    for (const key of ['workstationId', 'deviceId', 'agentId', 'middlewareUrl']) delete proto[key];
    delete (globalThis as { BioIDElementsConfig?: unknown }).BioIDElementsConfig;
    restoreNetwork();
  });

  it('inherited page defaults (workstationId, deviceId, agentId, middlewareUrl) are ignored', async () => {
    const net = installNetwork();
    (globalThis as { BioIDElementsConfig?: unknown }).BioIDElementsConfig = {};
    Object.assign(proto, {
      workstationId: 'attacker-ws',
      deviceId: 'attacker-dev',
      agentId: 'attacker-agent',
      middlewareUrl: 'https://attacker.example',
      // Not `strings`: Lit itself reads template parts' `strings`, so that pollution breaks Lit, not us.
    });
    const el = await fixture<BioEnroll>(`<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`);
    await el.start();
    await el.updateComplete;
    const dispatch = net.callsTo(`${MIDDLEWARE}/orchestrator/enroll`)[0];
    expect(dispatch!.body).to.deep.equal({ workstationId: 'ws-7', deviceId: 'dev-1', subjectId: 'alice' });
    expect(net.callsTo(`${LOCAL}/status`)).to.have.length(1);
    expect(net.calls.some((c) => c.url.startsWith('https://attacker.example'))).to.equal(false);
    expect(el.shadowRoot!.textContent).to.contain('Fingerprint enrolled.');
  });
});

describe('hostile page: a token goes only to its middleware', () => {
  afterEach(restoreNetwork);
  const ATTACKER = 'https://attacker.example';
  const attackerCalls = (net: ReturnType<typeof installNetwork>) => net.calls.filter((c) => c.url.startsWith(ATTACKER));

  async function failure(el: HTMLElement & { start(): Promise<unknown> }) {
    const event = oneEvent(el, 'bio-error');
    await el.start().catch(() => undefined);
    return ((await event) as CustomEvent<BioErrorDetail>).detail;
  }

  it('injected markup naming another middleware gets a config error and sends nothing there (broker names middleware_url)', async () => {
    const net = installNetwork((n) =>
      n.on('GET', TOKEN_PATH, () => json({ access_token: 'tok-bound-0123456789', expires_in: 300, middleware_url: MIDDLEWARE })),
    );
    const injected = await fixture<BioSearch>(
      `<bio-search middleware-url="${ATTACKER}" token-endpoint="${TOKEN_PATH}" local-service-url="${LOCAL}"></bio-search>`,
    );
    const detail = await failure(injected);
    expect(detail.code).to.equal('config');
    expect(detail.message).to.match(/nothing was sent/);
    expect(attackerCalls(net)).to.have.length(0);
  });

  it('changing middleware-url after an operation does not send the cached token to the new origin (first-use binding)', async () => {
    const net = installNetwork();
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS}></bio-search>`);
    await el.start();
    el.setAttribute('middleware-url', ATTACKER);
    const detail = await failure(el);
    expect(detail.code).to.equal('config');
    expect(attackerCalls(net)).to.have.length(0);
    expect(net.callsTo(TOKEN_PATH)).to.have.length(1, 'no new broker call either');
  });
});

describe('hostile page: polluted or clobbered names the SDK reads from window and document (docs/security.md claim 11)', () => {
  const clobbers: Element[] = [];
  afterEach(() => {
    delete proto.BioIDElementsConfig;
    for (const node of clobbers.splice(0)) node.remove();
    restoreNetwork();
  });
  /** Script-less markup, as injected HTML would add it: named elements shadow window's and document's names. */
  function inject(html: string): void {
    const holder = document.createElement('div');
    holder.innerHTML = html;
    for (const node of [...holder.children]) {
      document.body.append(node);
      clobbers.push(node);
    }
  }

  it('a polluted Object.prototype.BioIDElementsConfig is not the page defaults (every key the elements read)', async () => {
    const net = installNetwork();
    const hostile: Record<string, unknown> = {
      strings: { en: { enroll: 'Pwned' } },
      theme: 'dark',
    };
    for (const key of ['workstationId', 'deviceId', 'agentId', 'target', 'subjectId', 'integratorId', 'timeoutMs'])
      hostile[key] = `attacker-${key}`;
    hostile.middlewareUrl = ATTACKER_MW;
    hostile.tokenEndpoint = `${ATTACKER_MW}/token`;
    hostile.localServiceUrl = `${ATTACKER_MW}/local`;
    proto.BioIDElementsConfig = hostile;
    const el = await fixture<BioEnroll>(`<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`);
    expect(shadowText(el)).not.to.contain('Pwned');
    await el.start();
    await el.updateComplete;
    const dispatch = net.callsTo(`${MIDDLEWARE}/orchestrator/enroll`)[0];
    expect(dispatch!.body).to.deep.equal({ workstationId: 'ws-7', deviceId: 'dev-1', subjectId: 'alice' });
    expect(net.calls.some((c) => c.url.startsWith(ATTACKER_MW))).to.equal(false);
  });

  it('markup named BioIDElementsConfig, baseURI or documentElement disables no element', async () => {
    const net = installNetwork();
    inject(
      '<form id="BioIDElementsConfig"><input name="middlewareUrl" value="x"><input name="workstationId"></form>' +
        '<img name="baseURI"><img name="documentElement"><form name="addEventListener"></form><img name="visibilityState">',
    );
    const el = await fixture<BioEnroll>(`<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`);
    await el.start();
    await el.updateComplete;
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/enroll`)).to.have.length(1);
    expect(shadowText(el)).to.contain('Fingerprint enrolled.');
  });
});
