import { expect } from '@open-wc/testing';
import { BioVerify } from '../../src/elements/tags/bio-verify.js';

// This file runs in a page of its own (web-test-runner), so no other import has defined a tag here.
describe('one entry per tag', () => {
  it('importing bioid-sdk/elements/bio-verify.js defines <bio-verify> and no other tag', () => {
    expect(customElements.get('bio-verify')).to.equal(BioVerify);
    for (const tag of ['bio-enroll', 'bio-search', 'bio-enrolled', 'bio-reader-status', 'bio-diagnostics']) {
      expect(customElements.get(tag), tag).to.equal(undefined);
    }
  });
});
