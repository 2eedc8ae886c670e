import { expect } from '@open-wc/testing';
import { BioVerify, defineElement } from '../../src/elements/index.js';
import { version } from '../../src/version.js';

describe('version-aware define guard', () => {
  const realWarn = console.warn;
  let warnings: unknown[][];
  beforeEach(() => {
    warnings = [];
    console.warn = (...args: unknown[]) => warnings.push(args);
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('bioid-sdk.elements.version-warned')];
  });
  afterEach(() => {
    console.warn = realWarn;
  });

  it('importing the elements module a second time does not throw', async () => {
    await import('../../src/elements/index.js');
    const again = (await import('../../src/elements/tags.js')).BioVerify;
    expect(again).to.equal(BioVerify);
    expect(customElements.get('bio-verify')).to.equal(BioVerify);
    expect(warnings).to.deep.equal([]);
  });

  it('a second copy of the same version defines nothing and stays silent', () => {
    class SecondCopy extends HTMLElement {
      static readonly sdkVersion = version;
    }
    expect(() => defineElement('bio-verify', SecondCopy)).not.to.throw();
    expect(customElements.get('bio-verify')).to.equal(BioVerify);
    expect(warnings).to.deep.equal([]);
  });

  it('a different version never throws and warns once per page', () => {
    class OtherVersion extends HTMLElement {
      static readonly sdkVersion = '0.0.1-other';
    }
    class OtherVersionToo extends HTMLElement {
      static readonly sdkVersion = '0.0.1-other';
    }
    expect(() => defineElement('bio-verify', OtherVersion)).not.to.throw();
    expect(() => defineElement('bio-search', OtherVersionToo)).not.to.throw();
    expect(customElements.get('bio-verify')).to.equal(BioVerify);
    expect(warnings).to.have.length(1);
    expect(String(warnings[0]![0])).to.contain('already defined');
  });
});
