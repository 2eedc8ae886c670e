/**
 * The fingerprint glyph (a shape of its own in each state, not colour alone;
 * decoration beside a live region that keeps saying it in words) and the steady layout (the element
 * keeps its size whatever phase or answer it shows, so its neighbours stay where they are).
 */
import { expect, fixture } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioVerify } from '../../src/elements/index.js';
import { deferred, json } from '../support/fake-network.js';
import { ATTRS, LOCAL, MIDDLEWARE, installNetwork, restoreNetwork } from './network.js';

const VERIFY_URL = `${MIDDLEWARE}/orchestrator/verify`;

/** What the glyph draws: the scan bar, the badge and its mark (geometry, not colour), and its colour class. */
function glyph(el: Element) {
  const svg = el.shadowRoot!.querySelector('[part="glyph"]')!;
  const [, scan, mark] = [...svg.querySelectorAll('path')];
  return {
    shape: JSON.stringify([scan!.getAttribute('d'), svg.querySelector('circle')!.getAttribute('r'), mark!.getAttribute('d')]),
    tone: svg.getAttribute('class'),
    color: getComputedStyle(svg).color,
  };
}

const statusLine = (el: Element) => el.shadowRoot!.querySelector('[role="status"]')!.textContent!.trim();

describe('the fingerprint glyph', () => {
  afterEach(restoreNetwork);

  it('idle, waiting, success, no match and error each draw their own shape and colour, and the live region says each in words', async () => {
    const answer = deferred<Response>();
    const net = installNetwork((n) => n.on('POST', VERIFY_URL, () => answer.promise));
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const seen: Record<string, ReturnType<typeof glyph> & { text: string }> = {};
    const look = async (state: string) => {
      await el.updateComplete;
      seen[state] = { ...glyph(el), text: statusLine(el) };
    };
    await look('idle');
    let run = el.start().catch(() => {});
    await new Promise<void>((resolve) => el.addEventListener('bio-progress', (e) => e.detail.phase === 'dispatched' && resolve()));
    await look('waiting');
    answer.resolve(json({ subjectId: 'alice', match: true, score: 0.97, verificationId: 'v-1' }));
    await run;
    await look('success');
    net.on('POST', VERIFY_URL, () => json({ subjectId: 'alice', match: false, score: 0.1, verificationId: 'v-2' }));
    await el.start();
    await look('no match');
    net.on('POST', VERIFY_URL, () => json({ error: 'internal' }, 500));
    run = el.start().catch(() => {});
    await run;
    await look('error');

    const shapes = Object.values(seen).map((s) => s.shape);
    expect(new Set(shapes).size, JSON.stringify(seen, null, 1)).to.equal(5);
    expect(seen.idle!.text).to.equal('');
    expect(seen.waiting!.text).to.equal('Sent to workstation ws-7. Place your finger on the reader.');
    expect(seen.success!.text).to.equal('Fingerprint verified.');
    expect(seen['no match']!.text).to.equal('Fingerprint does not match.');
    expect(seen.error!.text).to.equal('Service problem');
    // Colour as well as shape: success and failure differ from each other and from the idle accent.
    expect(new Set([seen.idle!.color, seen.success!.color, seen['no match']!.color]).size).to.equal(3);
    expect(seen['no match']!.color).to.equal(seen.error!.color);
  });

  it('the glyph is decoration (aria-hidden, no text, not focusable) drawn once per element', async () => {
    installNetwork();
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const glyphs = el.shadowRoot!.querySelectorAll('svg');
    expect(glyphs).to.have.length(1);
    expect(glyphs[0]!.getAttribute('part')).to.equal('glyph');
    expect(glyphs[0]!.getAttribute('aria-hidden')).to.equal('true');
    expect(glyphs[0]!.textContent!.trim()).to.equal('');
    await expect(el).to.be.accessible();
  });

  it('the scan bar moves only where the user has not asked for reduced motion', async () => {
    const answer = deferred<Response>();
    installNetwork((n) => n.on('POST', VERIFY_URL, () => answer.promise));
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    expect(el.shadowRoot!.getAnimations(), 'idle: still').to.have.length(0);
    const run = el.start().catch(() => {});
    await el.updateComplete;
    const moving = matchMedia('(prefers-reduced-motion: no-preference)').matches;
    // Chromium with reduced motion emulated is pictured by the screenshot tests (verify-waiting.png).
    expect(el.shadowRoot!.getAnimations().map((a) => (a as CSSAnimation).animationName)).to.deep.equal(moving ? ['bio-scan'] : []);
    answer.resolve(json({ subjectId: 'alice', match: true, score: 1, verificationId: 'v' }));
    await run;
    await el.updateComplete;
    expect(el.shadowRoot!.getAnimations(), 'done: still').to.have.length(0);
  });
});

describe('a steady layout', () => {
  afterEach(restoreNetwork);

  it("the workstation's id in the waiting message stays on one line at any width it fits (never broken after a hyphen)", async () => {
    const id = 'ws-demo-left-1';
    installNetwork((n) =>
      n
        .on('GET', `${LOCAL}/status`, () => json({ workstationId: id, devices: [{ deviceId: 'dev-1', connected: true }] }))
        .on('POST', VERIFY_URL, () => deferred<Response>().promise),
    );
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const dispatched = new Promise<void>((resolve) =>
      el.addEventListener('bio-progress', (e) => e.detail.phase === 'dispatched' && resolve()),
    );
    el.start().catch(() => {});
    await dispatched;
    await el.updateComplete;
    const line = el.shadowRoot!.querySelector('[role="status"]')!;
    expect(line.textContent).to.equal(`Sent to workstation ${id}. Place your finger on the reader.`);
    const text = [...line.querySelectorAll('*'), line].flatMap((node) => [...node.childNodes]).find((n) => n.nodeValue?.includes(id))!;
    const range = document.createRange();
    range.setStart(text, text.nodeValue!.indexOf(id));
    range.setEnd(text, text.nodeValue!.indexOf(id) + id.length);
    // Every width from a desktop's card down to the narrowest whose status line still holds the id, 2px apart:
    // wherever the line breaks, not inside the id.
    const idWidth = range.getBoundingClientRect().width;
    let checked = 0;
    for (let width = 420; ; width -= 2, checked += 1) {
      el.style.inlineSize = `${width}px`;
      if (line.getBoundingClientRect().width < idWidth + 1) break;
      const lines = [...range.getClientRects()].filter((r) => r.width > 0);
      expect(lines, `at ${width}px`).to.have.length(1);
    }
    expect(checked, 'widths checked').to.be.greaterThan(50);
  });

  it('idle, waiting for a finger, a match and a no-match take the same box: the neighbours beside and below stay put', async () => {
    let answer = deferred<Response>();
    installNetwork((n) => n.on('POST', VERIFY_URL, () => answer.promise));
    // A row of two elements and a line below, as a page lays them out.
    const page = await fixture<HTMLDivElement>(`
      <div>
        <div style="display: flex; gap: 8px; align-items: flex-start">
          <bio-verify ${ATTRS} subject-id="alice"></bio-verify><bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>
        </div>
        <p id="below">below</p>
      </div>`);
    const el = page.querySelector('bio-verify')!;
    const boxes = () => {
      const r = (e: Element) => e.getBoundingClientRect();
      return JSON.stringify([r(el), r(page.querySelector('bio-enroll')!).x, r(page.querySelector('#below')!).y]);
    };
    const idle = boxes();
    const shows: string[] = [];
    for (const reply of [
      { subjectId: 'alice', match: true, score: 0.97, verificationId: 'v-1' },
      { subjectId: 'alice', match: false, score: 0.12, verificationId: 'v-2' },
    ]) {
      const run = el.start().catch(() => {});
      await new Promise<void>((resolve) => el.addEventListener('bio-progress', (e) => e.detail.phase === 'dispatched' && resolve()));
      await el.updateComplete;
      shows.push(statusLine(el));
      expect(boxes(), 'waiting for the finger').to.equal(idle);
      answer.resolve(json(reply));
      await run;
      await el.updateComplete;
      shows.push(statusLine(el));
      expect(boxes(), statusLine(el)).to.equal(idle);
      answer = deferred<Response>();
    }
    expect(shows).to.deep.equal([
      'Sent to workstation ws-7. Place your finger on the reader.',
      'Fingerprint verified.',
      'Sent to workstation ws-7. Place your finger on the reader.',
      'Fingerprint does not match.',
    ]);
  });

  it('a failure keeps the width, so the neighbour beside stays put (only its technical detail may add lines)', async () => {
    installNetwork((n) =>
      n.on('POST', VERIFY_URL, () => json({ error: 'workstation_offline', message: 'Target workstation is not currently live.' }, 503)),
    );
    const row = await fixture<HTMLDivElement>(
      `<div style="display: flex; gap: 8px; align-items: flex-start"><bio-verify ${ATTRS} subject-id="alice"></bio-verify><span>beside</span></div>`,
    );
    const [el, beside] = [...row.children] as [BioVerify, HTMLElement];
    const before = [el.getBoundingClientRect().width, beside.getBoundingClientRect().x];
    await el.start().catch(() => {});
    await el.updateComplete;
    expect(statusLine(el)).to.equal('Workstation offline');
    expect([el.getBoundingClientRect().width, beside.getBoundingClientRect().x]).to.deep.equal(before);
  });
});
