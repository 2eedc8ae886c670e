/**
 * The built script-tag bundle (run `npm run build` first; `npm test` does): loaded as a classic
 * <script src> (no type=module, no import map) into this page, which imports no element module itself.
 */
import { expect } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import { version } from '../../src/version.js';
import { fakeNetwork, json } from '../support/fake-network.js';

interface BundleGlobal {
  BioIDSDK?: {
    version: string;
    BioID: unknown;
    createFingerprintReader: unknown;
    BioIDError: unknown;
    ReaderAuthError: unknown;
    clearBrokerTokens(): void;
  };
}

function loadClassicScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`${src} did not load: run npm run build first`));
    document.head.append(script);
  });
}

describe('dist/bioid-elements.js as a classic script', () => {
  const errors: unknown[] = [];
  const onError = (e: ErrorEvent) => errors.push(e.error ?? e.message);
  before(() => window.addEventListener('error', onError));
  after(() => window.removeEventListener('error', onError));

  it('defines the tags and exposes window.BioIDSDK, even where markup named BioIDSDK shadows the name', async () => {
    expect(customElements.get('bio-verify')).to.equal(undefined);
    // Script-less injected markup: window.BioIDSDK reads as this element until the SDK defines its own.
    const clobber = Object.assign(document.createElement('a'), { id: 'BioIDSDK' });
    document.body.append(clobber);
    await loadClassicScript('/dist/bioid-elements.js');
    clobber.remove();
    const sdk = (window as BundleGlobal).BioIDSDK!;
    expect(sdk).not.to.be.instanceOf(Element);
    expect(sdk.version).to.equal(version);
    for (const name of ['BioID', 'createFingerprintReader', 'BioIDError', 'ReaderAuthError']) {
      expect(sdk, name).to.have.property(name).that.is.a('function');
    }
    for (const tag of ['bio-enroll', 'bio-verify', 'bio-search', 'bio-enrolled', 'bio-reader-status', 'bio-diagnostics']) {
      expect(customElements.get(tag), tag).to.be.a('function');
    }
    expect(errors).to.deep.equal([]);
  });

  it('<bio-diagnostics> is defined at once, and its code (bioid-diagnostics.js, next to the script) is fetched only when one connects', async () => {
    const requested = () => performance.getEntriesByType('resource').filter((e) => e.name.includes('/dist/bioid-diagnostics.js')).length;
    expect(requested(), 'before any <bio-diagnostics>').to.equal(0);
    const el = document.createElement('bio-diagnostics') as HTMLElement & { start(): Promise<string> };
    el.setAttribute('middleware-url', '/__test/none');
    document.body.append(el);
    try {
      expect(await el.start()).to.match(/^middleware: ok reachable \(HTTP 404 without a token\)$/m);
      expect(requested()).to.equal(1);
      expect(errors).to.deep.equal([]);
    } finally {
      el.remove();
    }
  });

  it('a second load of the same script (a snippet pasted twice) does not throw and keeps the globals', async () => {
    const first = (window as BundleGlobal).BioIDSDK;
    const verify = customElements.get('bio-verify');
    await loadClassicScript('/dist/bioid-elements.js');
    expect(errors).to.deep.equal([]);
    expect((window as BundleGlobal).BioIDSDK).to.equal(first);
    expect(customElements.get('bio-verify')).to.equal(verify);
  });

  it('a bundled element runs an operation end to end, with no inline style attribute anywhere', async () => {
    const net = fakeNetwork()
      .on('GET', '/token', () => json({ access_token: 'bundle-token', expires_in: 60 }))
      .on('POST', 'https://mw.example.test/orchestrator/verify', () =>
        json({ subjectId: 'alice', match: true, score: 1, verificationId: 'v-b' }),
      );
    const realFetch = globalThis.fetch;
    globalThis.fetch = net.fetch as typeof fetch;
    const el = document.createElement('bio-verify');
    try {
      el.setAttribute('middleware-url', 'https://mw.example.test');
      el.setAttribute('token-endpoint', '/token');
      el.setAttribute('workstation-id', 'ws');
      el.setAttribute('device-id', 'dev');
      el.setAttribute('subject-id', 'alice');
      document.body.append(el);
      const results: CustomEvent[] = [];
      document.addEventListener('bio-result', (e) => results.push(e as CustomEvent), { once: true });
      await waitUntil(() => el.shadowRoot?.querySelector('button'));
      el.shadowRoot!.querySelector('button')!.click();
      await waitUntil(() => results.length === 1, 'no bio-result');
      expect(results[0]!.detail.result.verificationId).to.equal('v-b');
      expect(el.shadowRoot!.querySelectorAll('[style]')).to.have.length(0);
      expect(el.shadowRoot!.adoptedStyleSheets.length).to.be.greaterThan(0);
    } finally {
      el.remove();
      globalThis.fetch = realFetch;
      (window as BundleGlobal).BioIDSDK!.clearBrokerTokens();
    }
  });
});
