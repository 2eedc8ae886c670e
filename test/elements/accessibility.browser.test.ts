/**
 * WCAG 2.1 A and AA: axe-core's rules of those levels (its tags wcag2a, wcag2aa, wcag21a, wcag21aa) over
 * every element in the states it shows, in the light and the dark theme, and in each built-in language.
 * A violation fails the test with axe's rule, its help and the offending markup. Contrast is axe's own
 * reading of the rendered colours (theme.browser.test.ts computes the ratios itself); the glyph and the
 * reader dot are non-text, which axe does not measure: theme.browser.test.ts holds them to 3:1.
 *
 * Each state is reached as a user reaches it, through the fake network, except the two that need the
 * browser's Local Network Access permission, which a loopback test page never has: the operation's
 * `local-network-blocked` failure and the reader status's prompt and blocked states are set as the
 * element sets them (its failure and view, its status), so their markup is the one a user gets.
 */
import { expect, fixture } from '@open-wc/testing';
import 'axe-core/axe.min.js';
import type { AxeResults, RunOptions } from 'axe-core';
import '../../src/elements/index.js';
import type { BioDiagnostics, BioReaderStatus, BioVerify } from '../../src/elements/index.js';
import type { ReaderStatus } from '../../src/core/status-watch.js';
import { hang, json, refuse } from '../support/fake-network.js';
import { ATTRS, LOCAL, MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork, type Net } from './network.js';

const axe = (globalThis as unknown as { axe: typeof import('axe-core') }).axe;
const WCAG_21_AA: RunOptions = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } };

/** Runs axe's WCAG 2.1 A/AA rules over `el` (its shadow root included); the violations as readable lines. */
async function violations(el: Element): Promise<string[]> {
  el.scrollIntoView({ block: 'center' });
  const results: AxeResults = await axe.run(el, WCAG_21_AA);
  return results.violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} — ${n.html} — ${n.failureSummary ?? ''}`));
}

type Operation = 'verify' | 'enroll' | 'search' | 'enrolled';

interface State {
  tag: string;
  state: string;
  /** Puts a new element (in `holder`) in its state; resolves with it. */
  reach(holder: HTMLElement, net: Net): Promise<Element>;
}

const VERIFY_URL = `${MIDDLEWARE}/orchestrator/verify`;
const STATUS_URL = `${LOCAL}/status`;

function add<T extends Element>(holder: HTMLElement, markup: string): T {
  holder.insertAdjacentHTML('beforeend', markup);
  return holder.lastElementChild as T;
}

const rendered = async <T extends Element>(el: T): Promise<T> => {
  await (el as unknown as { updateComplete: Promise<boolean> }).updateComplete;
  return el;
};

/** An operation element run to its end (a result or a failure). */
async function settled(holder: HTMLElement, op: Operation, extra = 'subject-id="alice"'): Promise<Element> {
  const el = add<BioVerify>(holder, `<bio-${op} ${ATTRS} ${extra}></bio-${op}>`);
  await el.updateComplete;
  await el.start().catch(() => {});
  return rendered(el);
}

/** A reader status element once it reports `state`. */
async function reporting(holder: HTMLElement, state: string, extra = ''): Promise<Element> {
  const el = add<BioReaderStatus>(holder, `<bio-reader-status local-service-url="${LOCAL}" ${extra}></bio-reader-status>`);
  await new Promise<void>((resolve) => {
    if (el.status?.state === state) resolve();
    el.addEventListener('bio-status', (e) => e.detail.state === state && resolve());
  });
  return rendered(el);
}

/** A reader status element showing `status` as the status watch would report it (a local service that never answers). */
async function showing(holder: HTMLElement, net: Net, status: ReaderStatus): Promise<Element> {
  net.on('GET', STATUS_URL, hang);
  const el = add<BioReaderStatus>(holder, `<bio-reader-status local-service-url="${LOCAL}"></bio-reader-status>`);
  await el.updateComplete;
  el.status = status;
  return rendered(el);
}

const STATES: State[] = [
  { tag: 'bio-verify', state: 'idle', reach: (h) => rendered(add(h, `<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`)) },
  {
    tag: 'bio-verify',
    state: 'working (progress)',
    reach: async (h, net) => {
      net.on('POST', VERIFY_URL, hang);
      const el = add<BioVerify>(h, `<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
      await el.updateComplete;
      const dispatched = new Promise<void>((resolve) =>
        el.addEventListener('bio-progress', (e) => e.detail.phase === 'dispatched' && resolve()),
      );
      el.start().catch(() => {});
      await dispatched;
      return rendered(el);
    },
  },
  { tag: 'bio-verify', state: 'success', reach: (h) => settled(h, 'verify') },
  {
    tag: 'bio-verify',
    state: 'no match',
    reach: (h, net) => {
      net.on('POST', VERIFY_URL, () => json({ subjectId: 'alice', match: false, score: 0.1, verificationId: 'v-2' }));
      return settled(h, 'verify');
    },
  },
  { tag: 'bio-verify', state: 'config error', reach: (h) => settled(h, 'verify', '') },
  {
    tag: 'bio-verify',
    state: 'local service unreachable',
    reach: (h, net) => {
      net.on('GET', STATUS_URL, refuse);
      return settled(h, 'verify');
    },
  },
  {
    tag: 'bio-verify',
    state: 'blocked (local network access)',
    reach: async (h) => {
      const el = add<BioVerify>(h, `<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
      await el.updateComplete;
      const message =
        'The browser blocks this page from reaching the local hardware service: allow local network access in the site settings, then reload.';
      Object.assign(el, {
        failure: { operation: 'verify', code: 'local-network-blocked', message, retryable: false },
        view: { kind: 'failed', key: 'local-network-blocked', step: 0 },
      });
      return rendered(el);
    },
  },
  {
    tag: 'bio-verify',
    state: 'failed',
    reach: (h, net) => {
      net.on('POST', VERIFY_URL, () => json({ error: 'workstation_offline', message: 'Target workstation is not currently live.' }, 503));
      return settled(h, 'verify');
    },
  },
  {
    tag: 'bio-verify',
    state: 'session expired with a sign-in link',
    reach: (h, net) => {
      net.on('GET', TOKEN_PATH, () => json({ error: 'no session' }, 401));
      return settled(h, 'verify', 'subject-id="alice" login-url="/signin"');
    },
  },
  { tag: 'bio-enroll', state: 'success', reach: (h) => settled(h, 'enroll') },
  { tag: 'bio-search', state: 'success (candidates)', reach: (h) => settled(h, 'search', '') },
  { tag: 'bio-enrolled', state: 'success (records)', reach: (h) => settled(h, 'enrolled') },
  { tag: 'bio-reader-status', state: 'ready', reach: (h) => reporting(h, 'ready') },
  {
    tag: 'bio-reader-status',
    state: 'no-device',
    reach: (h, net) => {
      net.on('GET', STATUS_URL, () => json({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: false }] }));
      return reporting(h, 'no-device');
    },
  },
  {
    tag: 'bio-reader-status',
    state: 'unreachable',
    reach: (h, net) => {
      net.on('GET', STATUS_URL, refuse);
      return reporting(h, 'unreachable');
    },
  },
  { tag: 'bio-reader-status', state: 'prompt', reach: (h, net) => showing(h, net, { state: 'prompt', pinned: false }) },
  { tag: 'bio-reader-status', state: 'blocked', reach: (h, net) => showing(h, net, { state: 'blocked', pinned: false }) },
  { tag: 'bio-reader-status', state: 'pinned', reach: (h) => reporting(h, 'pinned', 'workstation-id="ws-pin" device-id="dev-pin"') },
  {
    tag: 'bio-reader-status',
    state: 'config error',
    reach: (h) => rendered(add(h, '<bio-reader-status local-service-url="not a url"></bio-reader-status>')),
  },
  {
    tag: 'bio-diagnostics',
    state: 'report',
    reach: async (h, net) => {
      net.on('POST', `${LOCAL}/test-capture`, () =>
        json({ deviceId: 'dev-1', quality: 92, image: 'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg"/%3E' }),
      );
      net.on('GET', `${MIDDLEWARE}/`, () => json({}, 404));
      const el = add<BioDiagnostics>(h, `<bio-diagnostics ${ATTRS}></bio-diagnostics>`);
      await el.start();
      return rendered(el);
    },
  },
];

describe('accessibility: axe-core, WCAG 2.1 A and AA', () => {
  let net: Net;
  beforeEach(() => {
    net = installNetwork();
  });
  afterEach(restoreNetwork);

  for (const theme of ['light', 'dark'] as const) {
    for (const { tag, state, reach } of STATES) {
      it(`WCAG 2.1 AA: <${tag}> ${state} in ${theme} theme has no axe violation`, async () => {
        const holder = await fixture<HTMLDivElement>(`<div></div>`);
        const el = await reach(holder, net);
        el.setAttribute('theme', theme);
        await rendered(el);
        expect(await violations(el)).to.deep.equal([]);
      });
    }
  }

  for (const lang of ['en', 'de', 'fr', 'es']) {
    it(`WCAG 2.1 AA: the elements in lang="${lang}" (failures, the reader's advice, the diagnostics report) have no axe violation, and at 320px nothing overflows (1.4.10)`, async () => {
      net.on('GET', STATUS_URL, refuse);
      // 320 CSS px: a 1280px window zoomed to 400%.
      const holder = await fixture<HTMLDivElement>(`<div lang="${lang}" style="inline-size: 320px"></div>`);
      await settled(holder, 'verify');
      await reporting(holder, 'unreachable');
      const diagnostics = add<BioDiagnostics>(holder, `<bio-diagnostics ${ATTRS}></bio-diagnostics>`);
      await diagnostics.start();
      await rendered(diagnostics);
      expect(await violations(holder)).to.deep.equal([]);
      const overflowing = [...holder.children].flatMap((el) => {
        const base = el.shadowRoot!.querySelector<HTMLElement>('[part~="base"]')!;
        return base.scrollWidth > base.clientWidth ? [`<${el.localName}>: ${base.scrollWidth}px of content in ${base.clientWidth}px`] : [];
      });
      expect(overflowing).to.deep.equal([]);
    });
  }

  it('forced colours (Windows high contrast): the reader dot is a border, which forced colours keep, not a background, which they drop', async () => {
    const holder = await fixture<HTMLDivElement>(`<div></div>`);
    const el = await reporting(holder, 'ready');
    const dot = getComputedStyle(el.shadowRoot!.querySelector('[part="indicator"]')!);
    expect(dot.backgroundColor).to.equal('rgba(0, 0, 0, 0)');
    expect(parseFloat(dot.borderTopWidth)).to.be.greaterThan(4);
    expect(dot.borderTopStyle).to.equal('solid');
  });
});
