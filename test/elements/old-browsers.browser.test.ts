/**
 * The browser baseline (docs/elements.md, "Browsers"): Chrome and Edge 109, Firefox 115, Safari 16.4. Each
 * case is a page of its own in an iframe, served by web-test-runner.config.mjs, whose first script
 * (test/elements/old-browser-page.js) takes away every API newer than the baseline and makes CSS light-dark()
 * unknown before dist/bioid-elements.js loads: the script meets an engine as old as the baseline allows.
 * There the elements enroll and verify against the fake network of the other element tests
 * (test/elements/network.ts) with readable colours; where something the SDK needs and has no fallback for is
 * missing too (below the baseline), they say the browser is too old and name it. Needs `npm run build` first.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { BioEnroll, BioVerify } from '../../src/elements/index.js';
import type { BioErrorDetail } from '../../src/elements/parts/events.js';
import { ATTRS, MIDDLEWARE, installNetwork, restoreNetwork, shadowText, type Net } from './network.js';

interface Seen {
  removed: string[];
  errors: string[];
  bioErrors: (BioErrorDetail & { tag: string })[];
}
type PageWindow = Window & typeof globalThis & { __seen: Seen };

// waitUntil gives up after 1 s by default; the iframe's page and the 70 kB script load in a browser that
// shares two cores with other test runs, which can take longer on a loaded machine. A state that never comes
// still fails, after 8 s.
const LOADED = { interval: 10, timeout: 8000 };

const frames: HTMLIFrameElement[] = [];

/** The page of an old browser (`?without=reason`: below the baseline) once the script has defined its tags, on the fake network. */
async function oldBrowser(query = ''): Promise<{ win: PageWindow; net: Net }> {
  const frame = document.createElement('iframe');
  frames.push(frame);
  frame.src = `/__test/old-browser${query}`;
  document.body.append(frame);
  // The script defines the tags from the page's head, before the parser has reached its body.
  await waitUntil(
    () => frame.contentDocument?.readyState !== 'loading' && (frame.contentWindow as PageWindow).customElements.get('bio-verify'),
    'the page did not load or the script defined no tag',
    LOADED,
  );
  const win = frame.contentWindow as PageWindow;
  // The fake network of the other element tests, answering the page's fetch.
  const net = installNetwork();
  win.fetch = ((input: RequestInfo | URL, init?: RequestInit) => net.fetch(String(input), init)) as typeof fetch;
  return { win, net };
}

/** An element of the page, added to its body. */
function add<E extends HTMLElement>(win: PageWindow, markup: string): E {
  const holder = win.document.createElement('div');
  holder.innerHTML = markup;
  return win.document.body.appendChild(holder.firstElementChild as E);
}

/** [r, g, b] of a computed colour. */
const rgb = (color: string) => (/^rgba?\((\d+)[, ]+(\d+)[, ]+(\d+)/.exec(color) ?? []).slice(1).map(Number);

describe('a browser as old as the baseline', function () {
  this.timeout(20000);
  afterEach(() => {
    frames.splice(0).forEach((frame) => frame.remove());
    restoreNetwork();
  });

  it('without AbortSignal.any, AbortSignal.timeout, Promise.withResolvers, Array.prototype.toSorted, Object.groupBy and light-dark(): enroll and verify work, the cards keep their colours', async () => {
    const { win, net } = await oldBrowser();
    // Taken away before the script ran (where the engine had them: all of these are in each engine under test).
    expect(win.__seen.removed).to.include.members([
      'AbortSignal.any',
      'AbortSignal.timeout',
      'Promise.withResolvers',
      'Array.prototype.toSorted',
      'Object.groupBy',
    ]);
    expect(win.AbortSignal.any).to.equal(undefined);

    const enroll = add<BioEnroll>(win, `<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`);
    expect(await enroll.start()).to.deep.equal({ subjectId: 'alice', enrollmentId: 'enr-1', quality: 88 });
    const verify = add<BioVerify>(win, `<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    expect(await verify.start()).to.deep.equal({ subjectId: 'alice', match: true, score: 0.97, verificationId: 'ver-42' });
    await verify.updateComplete;
    expect(shadowText(enroll)).to.contain('Fingerprint enrolled.');
    expect(shadowText(verify)).to.contain('Fingerprint verified.');
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/enroll`)).to.have.length(1);
    expect(net.callsTo(`${MIDDLEWARE}/orchestrator/verify`)).to.have.length(1);

    // An operation still ends when its element leaves the page (the combined signal's fallback).
    net.on('POST', `${MIDDLEWARE}/orchestrator/verify`, () => new Promise<Response>(() => {}));
    const running = verify.start();
    await waitUntil(() => net.callsTo(`${MIDDLEWARE}/orchestrator/verify`).length === 2, 'the second verify was not sent', LOADED);
    verify.remove();
    const aborted = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(aborted).to.have.property('code', 'aborted');

    // The fallback palette (light: the page declares no colour scheme): a white card, its text dark, the
    // success in its green, the button white on blue.
    const colour = (selector: string, property: 'color' | 'backgroundColor') =>
      rgb(win.getComputedStyle(enroll.shadowRoot!.querySelector(selector)!)[property]);
    expect(colour('[part="base"]', 'backgroundColor')).to.deep.equal([255, 255, 255]);
    expect(colour('[part="base"]', 'color')).to.deep.equal([31, 31, 31]);
    expect(colour('[part="status"]', 'color')).to.deep.equal([20, 108, 46]);
    expect(colour('[part="button"]', 'color')).to.deep.equal([255, 255, 255]);
    expect(colour('[part="button"]', 'backgroundColor')).to.deep.equal([11, 87, 208]);
    expect(win.__seen.bioErrors).to.deep.equal([]);
    expect(win.__seen.errors, 'page errors').to.deep.equal([]);
  });

  it('below the baseline (no AbortSignal.reason): the element fails with browser-too-old, naming the feature, and says the browser is too old', async () => {
    const { win, net } = await oldBrowser('?without=reason');
    expect(win.__seen.removed).to.include('AbortSignal.prototype.reason');
    const verify = add<BioVerify>(win, `<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const error = await verify.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.include({ code: 'browser-too-old', retryable: false });
    expect((error as Error).message).to.contain('AbortSignal.reason');
    expect(win.__seen.bioErrors.map(({ tag, operation, code }) => ({ tag, operation, code }))).to.deep.equal([
      { tag: 'bio-verify', operation: 'verify', code: 'browser-too-old' },
    ]);
    await verify.updateComplete;
    // The feature is named for the developer (the error above), not on the card.
    expect(shadowText(verify)).to.contain('This browser is too old. Update it.').and.not.contain('AbortSignal.reason');
    expect(shadowText(verify)).not.to.contain('not set up correctly');
    // Nothing was sent: the check comes before the token and the dispatch.
    expect(net.calls).to.have.length(0);
  });
});
