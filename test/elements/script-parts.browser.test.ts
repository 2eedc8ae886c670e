/**
 * Files next to the script (docs/elements.md): `dist/bioid-elements.js` defines `<bio-diagnostics>` at once
 * and loads its code, `bioid-diagnostics.js`, from next to itself when one connects. Each case is a page of
 * its own in an iframe (each defines the tags once), served by web-test-runner.config.mjs with the
 * Content-Security-Policy header of docs/cms.md; the script under /__test/parts/<way>/ is dist/ as a site
 * (same), a slow site (slow), a CDN on another origin with Access-Control-Allow-Origin: * (cdn) or a site
 * without the file (missing) serves it. Needs `npm run build` first (npm test builds).
 */
import { expect } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import { de } from '../../src/elements/translations/de.js';
import { en } from '../../src/elements/translations/en.js';

interface Seen {
  violations: string[];
  errors: string[];
  bioErrors: { tag: string; operation: string; code: string; message: string; retryable: boolean }[];
  warnings: string[];
}
type PageWindow = Window & typeof globalThis & { __seen: Seen };

const frames: HTMLIFrameElement[] = [];

/**
 * The page with `csp` serving the script `way`, once its tags are defined; `timeoutMs`, <bio-diagnostics>'
 * timeout-ms; `lang`, the page's language (en unless de).
 */
async function page(way: string, csp: string, timeoutMs?: number, lang = 'en'): Promise<PageWindow> {
  const frame = document.createElement('iframe');
  frames.push(frame);
  frame.src = `/__test/parts/page?way=${way}&csp=${csp}&lang=${lang}${timeoutMs ? `&timeout=${timeoutMs}` : ''}`;
  document.body.append(frame);
  // Not the frame's load event: a browser may hold it back until the file the element loads has come. The
  // state itself, polled, with test/support/wait.ts's bound (the old 1 s bound failed on a busy machine).
  await waitUntil(() => frame.contentDocument?.querySelector('bio-diagnostics')?.shadowRoot, `${way}/${csp}: the script defined no tag`);
  return frame.contentWindow as PageWindow;
}

const diagnostics = (win: PageWindow) =>
  win.document.querySelector('bio-diagnostics')! as HTMLElement & {
    start(): Promise<string>;
    report: string;
    updateComplete: Promise<boolean>;
  };
const shadow = (win: PageWindow, tag: string) => win.document.querySelector(tag)!.shadowRoot!;
/** Requests of the page for the file, from the Resource Timing entries. */
const fetched = (win: PageWindow, file: string) =>
  win.performance
    .getEntriesByType('resource')
    .filter((e) => new URL(e.name).pathname.endsWith(`/${file}`))
    .map((e) => e.name);

/** The checks ran with the loaded code: every row of the report has a status word, and the page saw nothing go wrong. */
async function expectChecksRan(win: PageWindow, chunkUrl: string): Promise<void> {
  const report = await diagnostics(win).start();
  // The rows are read from the shadow root: after the render that start()'s results asked for.
  await diagnostics(win).updateComplete;
  expect(report).to.match(/^local-service: refused /m);
  expect(report).to.match(/^middleware: ok reachable \(HTTP 404 without a token\)$/m);
  expect(shadow(win, 'bio-diagnostics').querySelectorAll('[part="row"]')).to.have.length(6);
  expect(fetched(win, 'bioid-diagnostics.js')).to.deep.equal([chunkUrl]);
  expect(win.__seen.violations, 'CSP violations').to.deep.equal([]);
  expect(win.__seen.errors, 'page errors').to.deep.equal([]);
  expect(win.__seen.bioErrors.filter((e) => e.tag === 'bio-diagnostics')).to.deep.equal([]);
}

/** The bio-error of <bio-diagnostics> on the page, once fired. */
async function diagnosticsError(win: PageWindow) {
  await waitUntil(() => win.__seen.bioErrors.some((e) => e.tag === 'bio-diagnostics'), 'no bio-error');
  return win.__seen.bioErrors.find((e) => e.tag === 'bio-diagnostics')!;
}

describe('<bio-diagnostics> loads its code from next to the script', function () {
  this.timeout(20000);
  afterEach(() => frames.splice(0).forEach((frame) => frame.remove()));

  it("shows the status word loading until bioid-diagnostics.js arrives, then its rows; the file is fetched once, with the script's ?ver=", async () => {
    const win = await page('slow', 'none');
    await waitUntil(() => shadow(win, 'bio-diagnostics')?.querySelector('[part="word"][data-status="loading"]'), 'no loading state');
    expect(fetched(win, 'bioid-elements.js')).to.have.length(1);
    await expectChecksRan(win, `${location.origin}/__test/parts/slow/bioid-diagnostics.js?ver=0.1.0`);
    // A second element uses the same code: no second request.
    const second = win.document.createElement('bio-diagnostics') as HTMLElement & { start(): Promise<string> };
    second.setAttribute('middleware-url', '/__test/none');
    win.document.body.append(second);
    expect(await second.start()).to.match(/^middleware: ok reachable \(HTTP 404 without a token\)$/m);
    expect(fetched(win, 'bioid-diagnostics.js')).to.have.length(1);
  });

  it("CSP with a nonce and 'strict-dynamic' (docs/cms.md): the file loads without a violation", async () => {
    await expectChecksRan(await page('same', 'nonce'), `${location.origin}/__test/parts/same/bioid-diagnostics.js?ver=0.1.0`);
  });

  it("CSP with a nonce alone (no host, no 'strict-dynamic'): the import carries the script's nonce", async () => {
    await expectChecksRan(await page('same', 'nonce-only'), `${location.origin}/__test/parts/same/bioid-diagnostics.js?ver=0.1.0`);
  });

  it("CSP script-src 'self': the file loads without a violation", async () => {
    await expectChecksRan(await page('same', 'self'), `${location.origin}/__test/parts/same/bioid-diagnostics.js?ver=0.1.0`);
  });

  it("Trusted Types (require-trusted-types-for 'script'): the file loads with no policy of the SDK's, without a violation", async function () {
    if (!('trustedTypes' in window)) this.skip(); // an engine without Trusted Types enforces nothing here
    const win = await page('same', 'trusted-types');
    await expectChecksRan(win, `${location.origin}/__test/parts/same/bioid-diagnostics.js?ver=0.1.0`);
  });

  it("from a CDN on another origin (Access-Control-Allow-Origin: *, the host in script-src): the file comes from the script's origin", async () => {
    const { origin } = (await (await fetch('/__test/second-origin')).json()) as { origin: string };
    await expectChecksRan(await page('cdn', 'cdn'), `${origin}/__test/parts/cdn/bioid-diagnostics.js?ver=0.1.0`);
  });

  it('a missing file (404): bio-error config naming its URL and the fix, shown in the element; the other elements work', async () => {
    const win = await page('missing', 'self');
    const url = `${location.origin}/__test/parts/missing/bioid-diagnostics.js?ver=0.1.0`;
    const error = await diagnosticsError(win);
    expect(error).to.include({ operation: 'diagnostics', code: 'config', retryable: false });
    expect(error!.message).to.contain(url).and.contain('next to it');
    const root = shadow(win, 'bio-diagnostics');
    await waitUntil(() => root.querySelector('[part="error"]'), 'the failure is not shown');
    expect(root.querySelector('[part="error"]')!.textContent).to.contain(url);
    expect(root.textContent).to.contain('This component is not set up correctly.');
    // start() rejects with the same error; it asks again, and the page keeps working.
    let rejected: unknown;
    await diagnostics(win)
      .start()
      .catch((e: unknown) => (rejected = e));
    expect(rejected).to.have.property('code', 'config');
    expect(diagnostics(win).report).to.equal('');
    await waitUntil(() => shadow(win, 'bio-reader-status')?.querySelector('[part="state"]'), 'bio-reader-status did not render');
    expect(win.__seen.errors, 'page errors').to.deep.equal([]);
    expect(win.__seen.violations, 'CSP violations').to.deep.equal([]);
  });

  it('a file that has not come within timeout-ms (a server that never answers): bio-error timeout naming the file, shown instead of loading', async () => {
    const win = await page('hang', 'self', 300);
    const error = await diagnosticsError(win);
    expect(error).to.include({ operation: 'diagnostics', code: 'timeout', retryable: true });
    expect(error.message).to.contain('bioid-diagnostics.js').and.contain('300 ms');
    const root = shadow(win, 'bio-diagnostics');
    await waitUntil(() => root.querySelector('[part="error"]'), 'the failure is not shown');
    expect(root.querySelector('[part="error"]')!.textContent).to.contain('bioid-diagnostics.js');
    expect(root.textContent).to.contain('Connection failed. Try again.');
    expect(root.querySelector('[part="word"]'), 'the loading word').to.equal(null);
    expect(win.__seen.errors, 'page errors').to.deep.equal([]);
  });

  it('a file from another build (a cached copy of the version before) is refused as config, not run', async () => {
    const win = await page('stale', 'self');
    const error = await diagnosticsError(win);
    expect(error).to.include({ operation: 'diagnostics', code: 'config' });
    expect(error.message).to.contain('/__test/parts/stale/bioid-diagnostics.js').and.contain('from another build');
    expect(win.__seen.errors, 'page errors').to.deep.equal([]);
  });
});

describe('German, French and Spanish load on use, from next to the script', function () {
  this.timeout(20000);
  afterEach(() => frames.splice(0).forEach((frame) => frame.remove()));

  /** <bio-reader-status>' state word once rendered, and the language its text is marked with. */
  async function readerState(win: PageWindow): Promise<{ text: string; lang: string }> {
    const root = () => shadow(win, 'bio-reader-status');
    await waitUntil(() => root()?.querySelector('[part="state"]')?.textContent?.trim(), 'bio-reader-status did not render');
    return { text: root().querySelector('[part="state"]')!.textContent!.trim(), lang: (root().firstElementChild as HTMLElement).lang };
  }
  const languageFiles = (win: PageWindow) => ['bioid-de.js', 'bioid-fr.js', 'bioid-es.js'].flatMap((file) => fetched(win, file));

  it("a German page shows German words once bioid-de.js has loaded (fetched once, with the script's ?ver=); an English page requests no language file", async () => {
    const english = await page('same', 'none');
    const shown = await readerState(english);
    expect(shown.lang).to.equal('en');
    expect(Object.values(en), `"${shown.text}" is a word of en.ts`).to.include(shown.text);
    expect(languageFiles(english), 'language files of an English page').to.deep.equal([]);

    const german = await page('same', 'none', undefined, 'de');
    await waitUntil(async () => (await readerState(german)).lang === 'de', 'the German page stays in English');
    // Any of the state's words, in German: the state moves on by itself (the reader's service here answers 404).
    const { text } = await readerState(german);
    expect(Object.values(de), `"${text}" is a word of de.ts`).to.include(text);
    // Two elements in German, one request.
    expect(languageFiles(german)).to.deep.equal([`${location.origin}/__test/parts/same/bioid-de.js?ver=0.1.0`]);
    expect(german.__seen.errors, 'page errors').to.deep.equal([]);
    expect(german.__seen.warnings, 'console warnings').to.deep.equal([]);
  });

  it('a German page whose bioid-de.js is missing keeps English words, says so once in the console, and fires no bio-error for it', async () => {
    const win = await page('missing', 'self', undefined, 'de');
    await waitUntil(() => win.__seen.warnings.length, 'no console warning');
    // Another element in German later: the file is not asked for again, nor reported again.
    const later = win.document.createElement('bio-reader-status');
    later.setAttribute('local-service-url', '/__test/none');
    win.document.body.append(later);
    await waitUntil(() => later.shadowRoot?.querySelector('[part="state"]'), 'the later element did not render');
    const shown = await readerState(win);
    expect(shown.lang).to.equal('en');
    expect(Object.values(en)).to.include(shown.text);
    expect(win.__seen.warnings).to.have.length(1);
    expect(win.__seen.warnings[0]).to.contain('/__test/parts/missing/bioid-de.js').and.contain('English');
    expect(fetched(win, 'bioid-de.js')).to.have.length(1);
    // <bio-diagnostics>' own file is missing too: its bio-error is the only one.
    expect(win.__seen.bioErrors.filter((e) => e.tag !== 'bio-diagnostics')).to.deep.equal([]);
    expect(win.__seen.errors, 'page errors').to.deep.equal([]);
  });
});
