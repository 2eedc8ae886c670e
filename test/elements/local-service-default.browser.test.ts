import { expect, fixture } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioVerify } from '../../src/elements/index.js';
import { MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork } from './network.js';

// This file runs in a page of its own (web-test-runner): the warning is once per page, so the tests
// run in order and the first warning of the page is the one under test.
const WIRED = `middleware-url="${MIDDLEWARE}" token-endpoint="${TOKEN_PATH}" integrator-id="acme" subject-id="alice"`;

describe('the default local service URL is never used silently', () => {
  const realWarn = console.warn;
  let warnings: string[];
  beforeEach(() => {
    warnings = [];
    console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
    installNetwork((net) =>
      net.on(
        'GET',
        'http://localhost:18065/status',
        () => new Response(JSON.stringify({ workstationId: 'ws-d', devices: [{ deviceId: 'dev-d', connected: true }] })),
      ),
    );
  });
  afterEach(() => {
    console.warn = realWarn;
    restoreNetwork();
  });

  it('an element with local-service-url, or pinned, does not warn', async () => {
    await fixture(`<div>
      <bio-reader-status local-service-url="http://127.0.0.1:18065"></bio-reader-status>
      <bio-reader-status workstation-id="ws-1" device-id="dev-1"></bio-reader-status>
    </div>`);
    const pinned = await fixture<BioVerify>(`<bio-verify ${WIRED} workstation-id="ws-1" device-id="dev-1"></bio-verify>`);
    await pinned.start().catch(() => {});
    expect(warnings).to.deep.equal([]);
  });

  it('the first element that falls back to http://localhost:18065 warns once per page, naming local-service-url', async () => {
    await fixture(`<bio-reader-status></bio-reader-status>`);
    const verify = await fixture<BioVerify>(`<bio-verify ${WIRED}></bio-verify>`);
    await verify.start().catch(() => {});
    await fixture(`<bio-reader-status></bio-reader-status>`);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain('local-service-url').and.to.contain('http://localhost:18065');
  });
});
