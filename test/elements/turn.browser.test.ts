/**
 * Start-up never blocks the page (src/elements/parts/turn.ts): elements that connect together render one per
 * task, so the page gets a turn between them; updateComplete resolves after the element's own render, so
 * "await updateComplete, then read" holds; and each host holds its card's size from the moment it
 * connects (src/elements/parts/styles.ts), so nothing around it moves when the card arrives.
 */
import { expect } from '@open-wc/testing';
import '../../src/elements/index.js';
import { ATTRS, installNetwork, restoreNetwork } from './network.js';

type Rendered = HTMLElement & { updateComplete: Promise<boolean>; hasUpdated: boolean };

const element = (tag: string, attrs: Record<string, string>): Rendered => {
  const el = document.createElement(tag) as Rendered;
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  return el;
};
/** The attributes of network.ts's ATTRS, which its fake network answers. */
const common = Object.fromEntries([...ATTRS.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
const operation = { ...common, 'subject-id': 'alice' };
const pinned = { 'workstation-id': 'ws-1', 'device-id': 'reader-1' };

describe('each element renders in a task of its own, in the size it will have', () => {
  let els: Rendered[] = [];
  beforeEach(() => installNetwork());
  afterEach(() => {
    for (const el of els) el.remove();
    els = [];
    restoreNetwork();
  });

  it('of two elements connected together, the second renders in a later task than the first; after its updateComplete each card is there', async () => {
    els = [element('bio-reader-status', pinned), element('bio-reader-status', pinned)];
    document.body.append(...els);
    const [first, second] = els as [Rendered, Rendered];
    await first.updateComplete;
    expect(first.shadowRoot?.textContent).to.contain('ws-1');
    expect(second.hasUpdated, 'the second has not rendered in the first one’s task').to.equal(false);
    await second.updateComplete;
    expect(second.shadowRoot?.textContent).to.contain('reader-1');
  });

  it('each host is as tall before its first render as its card is after it', async () => {
    els = [
      element('bio-verify', operation),
      element('bio-enroll', operation),
      element('bio-search', common),
      element('bio-enrolled', operation),
      element('bio-reader-status', pinned),
      element('bio-reader-status', { 'local-service-url': common['local-service-url']! }),
    ];
    document.body.append(...els);
    const before = els.map((el) => el.getBoundingClientRect().height);
    await Promise.all(els.map((el) => el.updateComplete));
    const after = els.map((el) => (el.shadowRoot!.firstElementChild as HTMLElement).getBoundingClientRect().height);
    // Within a pixel: the reserve sums line heights that an engine may round where it lays out the lines.
    els.forEach((el, i) => expect(before[i], el.localName).to.be.closeTo(after[i]!, 1));
    expect(els.map((el) => el.getBoundingClientRect().height)).to.deep.equal(after.map((h, i) => Math.max(h, before[i]!)));
  });
});
