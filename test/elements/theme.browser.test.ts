/**
 * Light and dark themes: the colour scheme the page declares (light where it declares none), the
 * system's where the page declares both or the `theme` attribute is `auto`, and the `theme` attribute. The contrast ratios (WCAG 2.x relative luminance) are computed from the colours the
 * engine renders, against the element's own surface: at least 4.5:1 for text (AA), 3:1 for the glyph
 * and the reader dot (non-text, WCAG 1.4.11). That axe finds nothing in either theme, in these states and
 * more, is accessibility.browser.test.ts's to hold.
 */
import { expect, fixture, waitUntil } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioElement } from '../../src/elements/base/bio-element.js';
import type { BioReaderStatus, BioVerify } from '../../src/elements/index.js';
import { clearBrokerTokens } from '../../src/index.js';
import { deferred, json, refuse } from '../support/fake-network.js';
import { ATTRS, LOCAL, MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork } from './network.js';

const VERIFY_URL = `${MIDDLEWARE}/orchestrator/verify`;

/** [r, g, b] of a computed colour (`rgb(…)` or `rgba(…)`, as every engine serialises a computed colour). */
function rgb(color: string): [number, number, number] {
  const m = /^rgba?\((\d+(?:\.\d+)?)[, ]+(\d+(?:\.\d+)?)[, ]+(\d+(?:\.\d+)?)/.exec(color);
  if (!m) throw new Error(`not an rgb() colour: ${color}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** WCAG 2.x relative luminance. */
function luminance(color: string): number {
  const [r, g, b] = rgb(color).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const part = (el: Element, name: string) => el.shadowRoot!.querySelector(`[part~="${name}"]`)!;
/** The text colour of a part, or of an element's card (its base part), where the palette applies. */
const colorOf = (el: Element) => getComputedStyle(el.shadowRoot ? part(el, 'base') : el).color;
const surfaceOf = (el: Element) => getComputedStyle(part(el, 'base')).backgroundColor;

/** The colour pairs of an element in its current state, each with the ratio it needs. */
function pairs(el: Element, state: string): { pair: string; fg: string; bg: string; min: number }[] {
  const surface = surfaceOf(el);
  const button = part(el, 'button');
  const found = [
    { pair: `${state}: status text / surface`, fg: colorOf(part(el, 'status')), bg: surface, min: 4.5 },
    { pair: `${state}: button text / button`, fg: colorOf(button), bg: getComputedStyle(button).backgroundColor, min: 4.5 },
    { pair: `${state}: glyph / surface`, fg: colorOf(part(el, 'glyph')), bg: surface, min: 3 },
  ];
  const detail = el.shadowRoot!.querySelector('.detail');
  if (detail) found.push({ pair: `${state}: detail / surface`, fg: colorOf(detail), bg: surface, min: 4.5 });
  return found;
}

/**
 * Gives `el` its stylesheets as an engine without light-dark() (Chrome 123, Firefox 120, Safari 17.5 brought
 * it) reads them: the function unknown wherever it stands, in declarations and in the @supports condition that
 * tests for it. Returns what puts the element's own sheets back.
 */
function withoutLightDark(el: Element): () => void {
  const root = el.shadowRoot!;
  const sheets = root.adoptedStyleSheets;
  expect(sheets.length, 'the element adopts its stylesheets').to.be.greaterThan(0);
  const texts = sheets.map((sheet) => [...sheet.cssRules].map((rule) => rule.cssText).join('\n'));
  expect(texts.join('\n')).to.contain('light-dark(');
  root.adoptedStyleSheets = texts.map((text) => {
    const old = new CSSStyleSheet();
    old.replaceSync(text.replaceAll('light-dark(', 'no-light-dark('));
    return old;
  });
  return () => (root.adoptedStyleSheets = sheets);
}

describe('themes', function () {
  // A bound for a hang, not a pace: each theme's test walks eight states, seconds on a busy 2-core machine.
  this.timeout(30000);
  afterEach(restoreNetwork);

  for (const theme of ['light', 'dark'] as const) {
    it(`theme="${theme}": every text colour has at least 4.5:1 against the surface, the glyph and the reader dot 3:1`, async () => {
      let answer = deferred<Response>();
      const net = installNetwork((n) => n.on('POST', VERIFY_URL, () => answer.promise));
      const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice" theme="${theme}"></bio-verify>`);
      const checked: ReturnType<typeof pairs> = [];
      const check = async (state: string) => {
        await el.updateComplete;
        checked.push(...pairs(el, state));
      };
      await check('idle');
      let run = el.start().catch(() => {});
      await new Promise<void>((resolve) => el.addEventListener('bio-progress', (e) => e.detail.phase === 'dispatched' && resolve()));
      await check('waiting');
      answer.resolve(json({ subjectId: 'alice', match: true, score: 0.97, verificationId: 'v-1' }));
      await run;
      await check('match');
      answer = deferred<Response>();
      run = el.start().catch(() => {});
      answer.resolve(json({ subjectId: 'alice', match: false, score: 0.1, verificationId: 'v-2' }));
      await run;
      await check('no match');
      net.on('POST', VERIFY_URL, () => json({ error: 'workstation_offline', message: 'Target workstation is not currently live.' }, 503));
      await el.start().catch(() => {});
      await check('error');
      // A session that ended, with login-url: the sign-in link is text too.
      el.setAttribute('login-url', '/signin');
      net.on('GET', TOKEN_PATH, () => json({ error: 'no session' }, 401));
      clearBrokerTokens();
      await el.start().catch(() => {});
      await check('session expired');
      checked.push({ pair: 'sign-in link / surface', fg: colorOf(part(el, 'login')), bg: surfaceOf(el), min: 4.5 });

      for (const [state, route] of [
        ['ready', () => json({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: true }] })],
        ['unreachable', refuse],
      ] as const) {
        net.on('GET', `${LOCAL}/status`, route);
        const status = await fixture<BioReaderStatus>(
          `<bio-reader-status local-service-url="${LOCAL}" theme="${theme}"></bio-reader-status>`,
        );
        await new Promise<void>((resolve) => {
          if (status.status?.state === state) resolve();
          status.addEventListener('bio-status', (e) => e.detail.state === state && resolve());
        });
        await status.updateComplete;
        const surface = surfaceOf(status);
        checked.push(
          { pair: `reader ${state}: state text / surface`, fg: colorOf(part(status, 'state')), bg: surface, min: 4.5 },
          { pair: `reader ${state}: dot / surface`, fg: getComputedStyle(part(status, 'indicator')).borderTopColor, bg: surface, min: 3 },
        );
      }

      const failing = checked
        .filter((c) => contrast(c.fg, c.bg) < c.min)
        .map((c) => `${c.pair}: ${c.fg} on ${c.bg} is ${contrast(c.fg, c.bg).toFixed(2)}:1, needs ${c.min}:1`);
      expect(failing).to.deep.equal([]);
      expect(checked.length).to.be.greaterThan(20);
    });
  }

  it('the two themes differ (dark is a dark surface with light text), and without the attribute on a page that declares no colour scheme the element is light', async () => {
    installNetwork();
    const holder = await fixture<HTMLDivElement>(
      `<div><bio-verify ${ATTRS} theme="light"></bio-verify><bio-verify ${ATTRS} theme="dark"></bio-verify><bio-verify ${ATTRS}></bio-verify></div>`,
    );
    const [light, dark, page] = [...holder.children] as BioVerify[];
    // The fixture awaits the holder only; each element's first render is in a task of its own (src/elements/parts/turn.ts).
    await Promise.all([light, dark, page].map((el) => el!.updateComplete));
    expect(luminance(surfaceOf(light!))).to.be.greaterThan(0.9);
    expect(luminance(surfaceOf(dark!))).to.be.lessThan(0.05);
    expect(luminance(colorOf(dark!))).to.be.greaterThan(luminance(colorOf(light!)));
    expect(surfaceOf(page!)).to.equal(surfaceOf(light!));
    expect(colorOf(page!)).to.equal(colorOf(light!));
  });

  describe('the page’s colour scheme, on a light or a dark system', () => {
    /**
     * A page in a frame, its elements from the sources. The frame's own `color-scheme` is the system's
     * preference its page sees (prefers-color-scheme follows the embedding element's colour scheme in
     * Chromium and Firefox); WebKit's frames keep the real system's, so there the rendered colours are
     * checked against what the frame's system says, and the card's colour scheme in every engine.
     */
    async function framed(system: 'light' | 'dark', head: string, body: string, root = '') {
      const frame = document.createElement('iframe');
      frame.style.colorScheme = system;
      frame.srcdoc = `<!doctype html><html${root}><head>${head}<script type="module" src="/src/elements/tags.ts"></script></head><body>${body}</body></html>`;
      document.body.append(frame);
      const win = frame.contentWindow as Window & typeof globalThis;
      await waitUntil(() => win.document?.readyState === 'complete' && win.customElements?.get('bio-verify'), 'the page did not load', {
        interval: 10,
        timeout: 8000,
      });
      const card = win.document.querySelector('bio-verify') as BioVerify;
      await card.updateComplete;
      const base = card.shadowRoot!.querySelector('[part="base"]')!;
      return {
        scheme: win.getComputedStyle(base).colorScheme,
        dark: luminance(win.getComputedStyle(base).backgroundColor) < 0.05,
        systemDark: win.matchMedia('(prefers-color-scheme: dark)').matches,
        remove: () => frame.remove(),
      };
    }
    const CARD = `<bio-verify ${ATTRS}></bio-verify>`;

    for (const [name, head, root, theme, expected] of [
      ['a page that declares nothing is light', '', '', '', 'light'],
      ['a page that declares light (meta) is light', '<meta name="color-scheme" content="light">', '', '', 'light'],
      ['a page that declares dark on its root is dark', '', ' style="color-scheme: dark"', '', 'dark'],
      ['a page that declares dark (meta, any case) is dark', '<meta name="COLOR-SCHEME" content="only dark">', '', '', 'dark'],
      ['a page that declares light dark (meta) follows the system', '<meta name="color-scheme" content="light dark">', '', '', 'system'],
      ['a page that declares light dark on its root follows the system', '', ' style="color-scheme: light dark"', '', 'system'],
      ['theme="auto" follows the system on a light page', '<meta name="color-scheme" content="light">', '', ' theme="auto"', 'system'],
      ['theme="light" is light on a dark page', '<meta name="color-scheme" content="dark">', '', ' theme="light"', 'light'],
      ['theme="Dark" is dark on a light page', '', ' style="color-scheme: light"', ' theme="Dark"', 'dark'],
    ] as const) {
      it(`${name}, on a light and on a dark system`, async () => {
        for (const system of ['light', 'dark'] as const) {
          const page = await framed(system, head, CARD.replace('<bio-verify', `<bio-verify${theme}`), root);
          page.remove();
          const scheme = { light: 'light', dark: 'dark', system: 'light dark' }[expected];
          expect(page.scheme, `${system} system: the card's colour scheme`).to.equal(scheme);
          const dark = expected === 'system' ? page.systemDark : expected === 'dark';
          expect(page.dark, `${system} system (the frame's reads ${page.systemDark ? 'dark' : 'light'}): a dark card`).to.equal(dark);
        }
      });
    }
  });

  it('where the engine has no light-dark(), each theme (in any case) shows the same colours, from the plain ones of the fallback, and the page can still set them', async () => {
    installNetwork((n) =>
      n.on('POST', VERIFY_URL, () => json({ error: 'workstation_offline', message: 'Target workstation is not currently live.' }, 503)),
    );
    const holder = await fixture<HTMLDivElement>(
      `<div><bio-verify ${ATTRS} subject-id="alice" theme="light"></bio-verify><bio-verify ${ATTRS} subject-id="alice" theme="dark"></bio-verify><bio-verify ${ATTRS} subject-id="alice"></bio-verify><bio-verify ${ATTRS} subject-id="alice" theme="DARK"></bio-verify></div>`,
    );
    // theme="DARK" too: the fallback matches the attribute in any ASCII case, as the modern rules do.
    for (const el of [...holder.children] as BioVerify[]) {
      const theme = el.getAttribute('theme') ?? 'system';
      // Idle (the text colour), then failed (the error colour and the muted detail line).
      for (const state of ['idle', 'failed']) {
        if (state === 'failed') await el.start().catch(() => {});
        await el.updateComplete;
        const modern = pairs(el, `${theme} ${state}`);
        const restore = withoutLightDark(el);
        const old = pairs(el, `${theme} ${state}`);
        restore();
        expect(old).to.deep.equal(modern);
        expect(old.filter((c) => contrast(c.fg, c.bg) < c.min)).to.deep.equal([]);
      }
      const restore = withoutLightDark(el);
      el.style.setProperty('--bio-surface', 'rgb(1, 2, 3)');
      el.style.setProperty('--bio-color', 'rgb(7, 8, 9)');
      expect(surfaceOf(el)).to.equal('rgb(1, 2, 3)');
      expect(colorOf(el)).to.equal('rgb(7, 8, 9)');
      restore();
    }
  });

  it('the theme property reflects to the attribute, and the page can still set every documented colour', async () => {
    installNetwork();
    const el = await fixture<BioElement>(`<bio-verify ${ATTRS}></bio-verify>`);
    el.theme = 'dark';
    await el.updateComplete;
    expect(el.getAttribute('theme')).to.equal('dark');
    el.style.setProperty('--bio-surface', 'rgb(1, 2, 3)');
    el.style.setProperty('--bio-accent', 'rgb(4, 5, 6)');
    expect(surfaceOf(el)).to.equal('rgb(1, 2, 3)');
    expect(getComputedStyle(part(el, 'button')).backgroundColor).to.equal('rgb(4, 5, 6)');
  });
});
