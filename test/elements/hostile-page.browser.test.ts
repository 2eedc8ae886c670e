/**
 * Issue 12, item 4, in the browser: with Object.prototype polluted by another script on the page, an
 * element still dispatches to the discovered workstation, with no agent id it was not given.
 */
import { expect, fixture } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioEnroll } from '../../src/elements/index.js';
import { ATTRS, LOCAL, MIDDLEWARE, installNetwork, restoreNetwork } from './network.js';

const proto = Object.prototype as Record<string, unknown>;

describe('hostile page: polluted Object.prototype (issue 12, item 4)', () => {
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
