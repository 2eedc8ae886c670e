/**
 * Any placement, every tag (docs/elements.md, "Where the script goes"): the built `dist/bioid-elements.js`
 * wherever a page puts it, before or after the markup, and with the tags inserted by script before or after
 * it runs. Each placement is a page of its own in an iframe (web-test-runner.config.mjs serves
 * /__test/placement/<placement>), so each defines the tags once, and the script upgrades elements that
 * were parsed before it ran. Every tag must reach a state with an end: `<bio-diagnostics>` its rows, which
 * needs its code from bioid-diagnostics.js; `<bio-reader-status>` a status; each operation element its
 * button, and a start() that runs to the token broker. Needs `npm run build` first (npm test builds).
 */
import { expect, waitUntil } from '@open-wc/testing';

interface Seen {
  errors: string[];
  bioErrors: { tag: string; code: string; message: string }[];
}
type PageWindow = Window & typeof globalThis & { __seen: Seen; insertTags(): void };
type Operation = HTMLElement & { start(): Promise<unknown>; updateComplete: Promise<unknown> };

/**
 * How long a page may take to load and settle. @open-wc/testing's waitUntil gives up after 1000 ms by
 * default, which a page, the script and bioid-diagnostics.js can take on a busy two-core machine that
 * runs three browsers at once; 8 s is far beyond what a settled page needs, and an element that never
 * leaves a state still fails.
 */
const SETTLES = { timeout: 8000, interval: 20 };

const PLACEMENTS: Record<string, string> = {
  head: 'in <head>, before the markup',
  defer: 'in <head> with defer: it runs after the markup is parsed',
  async: 'in <head> with async: it runs whenever it arrives',
  'body-end': 'at the end of <body>, after the markup',
  injected: 'added after the markup by another script, as a tag manager adds it',
  'inserted-before': 'after tags that a page script inserted before it ran',
  'inserted-after': 'before tags inserted after it ran, as a framework renders them later',
};

const OPERATIONS = {
  'bio-enroll': 'Enroll fingerprint',
  'bio-verify': 'Verify fingerprint',
  'bio-search': 'Identify fingerprint',
  'bio-enrolled': 'Show enrolled fingerprints',
};

const frames: HTMLIFrameElement[] = [];

/** The page of `placement`, once it is parsed and its script has defined the tags (and, for inserted-after, the tags inserted). */
async function page(placement: string): Promise<PageWindow> {
  const frame = document.createElement('iframe');
  frames.push(frame);
  const path = `/__test/placement/${placement}`;
  frame.src = path;
  document.body.append(frame);
  const win = () => frame.contentWindow as PageWindow;
  // Not the frame's load event: a browser may hold it back until the file an element loads has come.
  await waitUntil(
    () => win().location.pathname === path && win().document.readyState !== 'loading' && win().customElements.get('bio-diagnostics'),
    `${placement}: the script defined no tag`,
    SETTLES,
  );
  if (placement === 'inserted-after') win().insertTags();
  return win();
}

describe('the script wherever a page puts it: every tag renders and works', function () {
  // Seven pages, each waiting for its elements' checks and operations.
  this.timeout(30000);
  afterEach(() => frames.splice(0).forEach((frame) => frame.remove()));

  for (const [placement, where] of Object.entries(PLACEMENTS)) {
    it(`the script ${where} (${placement})`, async () => {
      const win = await page(placement);
      const doc = win.document;

      const diagnostics = doc.querySelector('bio-diagnostics') as HTMLElement & { report: string };
      const words = () => [...(diagnostics.shadowRoot?.querySelectorAll<HTMLElement>('[part="word"]') ?? [])].map((w) => w.dataset.status);
      await waitUntil(
        () => words().length === 4 && !words().includes('checking'),
        `${placement}: <bio-diagnostics> did not reach its rows (status words: ${words().join(', ')})`,
        SETTLES,
      );
      expect(diagnostics.shadowRoot!.querySelectorAll('[part="row"]')).to.have.length(6);
      expect(diagnostics.report).to.match(/^middleware: ok reachable \(HTTP 404 without a token\)$/m);

      const status = doc.querySelector('bio-reader-status')!;
      const state = () => status.shadowRoot?.querySelector('[part="indicator"]')?.classList[1];
      await waitUntil(() => state() && state() !== 'checking', `${placement}: <bio-reader-status> shows no status (${state()})`, SETTLES);
      expect(status.shadowRoot!.querySelector('[part="state"]')!.textContent).not.to.equal('');

      for (const [tag, label] of Object.entries(OPERATIONS)) {
        const el = doc.querySelector(tag) as Operation;
        await el.updateComplete;
        expect(el.shadowRoot!.querySelector('[part="button"]')!.textContent!.trim(), tag).to.equal(label);
        // The page's token endpoint is a 404: the operation got as far as asking it for a token.
        const error = await el.start().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, tag).to.include({ code: 'config' });
        expect((error as Error).message, tag).to.contain('/__test/none');
      }

      expect(win.__seen.errors, 'page errors').to.deep.equal([]);
      expect(win.__seen.bioErrors.filter((e) => !(e.tag in OPERATIONS))).to.deep.equal([]);
    });
  }
});
