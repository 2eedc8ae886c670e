// Section 4: start-up in headless Chromium. A page holds the elements, then the classic script; an
// inline script just before the script tag takes t0, and the page reports when every tag is defined,
// every element has rendered (Lit's updateComplete) and layout is done. The same page shape with the
// bare Lit element is the floor. Fresh page per run, scripts served `no-store` (no HTTP or code cache),
// runs alternate; the ratio of the medians.
import { existsSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { bareLitBundle } from './size.mjs';
import { browser, definedTags, startServer } from './browser.mjs';
import { fmt, notMeasured, row } from './report.mjs';

const SECTION = '4 Start-up';
const RUNS = 21;
export const OUR_TAGS = ['bio-enroll', 'bio-verify', 'bio-search', 'bio-enrolled', 'bio-reader-status'];

const ATTRS = {
  'bio-enroll': 'middleware-url="/mw" token-endpoint="/token" subject-id="alice"',
  'bio-verify': 'middleware-url="/mw" token-endpoint="/token" subject-id="alice"',
  'bio-search': 'middleware-url="/mw" token-endpoint="/token"',
  'bio-enrolled': 'middleware-url="/mw" token-endpoint="/token" subject-id="alice"',
  // Pinned: the start-up figure must not depend on a local service answering.
  'bio-reader-status': 'workstation-id="ws-1" device-id="reader-1"',
};

/**
 * For bench/blocking.mjs: long tasks and layout shifts from the page's start, kept in `window.__perf`
 * (buffered, so entries queued before the observer's first callback are there too).
 */
const OBSERVE = `<script>
window.__perf = { tasks: [], shifts: [] };
for (const [type, into] of [['longtask', 'tasks'], ['layout-shift', 'shifts']]) {
  try { new PerformanceObserver((list) => window.__perf[into].push(...list.getEntries())).observe({ type, buffered: true }); }
  catch { window.__perf[into] = undefined; }
}
</script>`;

/**
 * The elements are in the page; `__go()` takes t0, inserts the classic script and resolves with the
 * wall time once every tag is defined, every element rendered (updateComplete) and laid out.
 */
export function page(tags, script, { observe = false } = {}) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>start-up</title>${observe ? OBSERVE : ''}</head><body>
${tags.map((t) => `<${t} ${ATTRS[t] ?? ''}></${t}>`).join('\n')}
<script>
window.__go = () => new Promise((resolve, reject) => {
  const tags = ${JSON.stringify([...new Set(tags)])};
  const t0 = performance.now();
  const script = document.createElement('script');
  script.src = ${JSON.stringify(script)};
  script.onerror = () => reject(new Error('script failed to load'));
  script.onload = async () => {
    await Promise.all(tags.map((t) => customElements.whenDefined(t)));
    const els = tags.flatMap((t) => [...document.querySelectorAll(t)]);
    await Promise.all(els.map((el) => el.updateComplete));
    for (const el of els) el.shadowRoot.firstElementChild.getBoundingClientRect();
    resolve(performance.now() - t0);
  };
  document.body.append(script);
});
</script></body></html>`;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/**
 * One run in a fresh page: wall time (performance.now) and the renderer main thread's CPU time
 * (CDP Performance metrics ThreadTime, read before the script is inserted and after the elements
 * rendered), which does not grow when the machine is busy.
 */
async function once(b, url) {
  const p = await b.newPage();
  try {
    const cdp = await p.createCDPSession();
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    await p.goto(url);
    const threadTime = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime').value * 1000;
    const before = await threadTime();
    const wall = await p.evaluate(() => window.__go());
    const cpu = (await threadTime()) - before;
    return { wall, cpu };
  } finally {
    await p.close();
  }
}

export async function runStartup(shared) {
  const { root } = shared;
  const item = `time to all tags defined + first render (median of ${RUNS}), vs bare Lit`;
  // The same page whatever the bundle defines (four tags), so figures compare across steps.
  const { defined, why } = await definedTags(
    shared,
    OUR_TAGS.filter((t) => t !== 'bio-enrolled'),
  );
  if (why) return { rows: [notMeasured(SECTION, item, why)] };
  const tags = [...defined];
  if (!existsSync(join(root, '.cache/bench/bare-lit.js'))) {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(join(root, '.cache/bench'), { recursive: true });
    writeFileSync(join(root, '.cache/bench/bare-lit.js'), await bareLitBundle(root));
  }
  const server = await startServer(root, {
    pages: {
      '/ours': page(tags, '/dist/bioid-elements.js'),
      '/ours-one': page(['bio-verify'], '/dist/bioid-elements.js'),
      // No element: what the script costs by itself (parse, evaluation, the tags defined).
      '/ours-none': page([], '/dist/bioid-elements.js'),
      '/bare-none': page([], '/cache/bare-lit.js'),
      '/bare': page(['bare-lit'], '/cache/bare-lit.js'),
      '/bare-n': page(
        tags.map(() => 'bare-lit'),
        '/cache/bare-lit.js',
      ),
    },
  });
  try {
    const b = await browser(shared);
    // One unmeasured load of each warms the browser process itself (not the scripts: no-store).
    const pages = { ours: '/ours', bare: '/bare', one: '/ours-one', bareN: '/bare-n', none: '/ours-none', bareNone: '/bare-none' };
    for (const path of Object.values(pages)) await once(b, `${server.origin}${path}`);
    const runs = Object.fromEntries(Object.keys(pages).map((key) => [key, []]));
    for (let i = 0; i < RUNS; i++) {
      for (const [key, path] of Object.entries(pages)) runs[key].push(await once(b, `${server.origin}${path}`));
    }
    const load = os.loadavg()[0].toFixed(1);
    const stat = (key, field) => median(runs[key].map((r) => r[field]));
    const ratioOf = (key, field, floor = 'bare') => stat(key, field) / stat(floor, field);
    const spread = (key, field) => {
      const xs = runs[key].map((r) => r[field]);
      return `${fmt(Math.min(...xs), 1)}–${fmt(Math.max(...xs), 1)} ms`;
    };
    const figure = (key, field, floor = 'bare') =>
      `${ratioOf(key, field, floor).toFixed(2)}× (${fmt(stat(key, field), 1)} ms vs ${fmt(stat(floor, field), 1)} ms)`;
    // ours − bare of one step of the page, in CPU ms: from `from` to `to` (differences of medians).
    const step = (to, from, bareTo, bareFrom) => ({
      ours: stat(to, 'cpu') - (from ? stat(from, 'cpu') : 0),
      bare: stat(bareTo, 'cpu') - (bareFrom ? stat(bareFrom, 'cpu') : 0),
    });
    const further = tags.length - 1;
    const rest = step('ours', 'one', 'bareN', 'bare');
    const steps = [
      ['a page with the script and no element (the measuring included)', step('none', undefined, 'bareNone')],
      ['the first element (<bio-verify>; a <bare-lit>)', step('one', 'none', 'bare', 'bareNone')],
      [`each further tag, of ${further}`, { ours: rest.ours / further, bare: rest.bare / further }],
    ];
    // Context, no budget: the work may be the same, what counts is that it does not sit in one task
    // (section 4b, bench/blocking.mjs). Compared with the same number of elements; one bare element is context too.
    return {
      rows: [
        row(
          SECTION,
          `${item} elements, wall clock (${tags.length} tags: ${tags.join(', ')})`,
          figure('ours', 'wall', 'bareN'),
          '',
          '—',
          [
            `ours ${spread('ours', 'wall')}, ${tags.length} bare ${spread('bareN', 'wall')}`,
            `vs one bare Lit element ${figure('ours', 'wall')}`,
            `load average ${load} on ${os.cpus().length} cores: wall times wait for a core`,
          ]
            .filter(Boolean)
            .join('; '),
        ),
        row(
          SECTION,
          `start-up main-thread CPU time, ${tags.length} tags vs ${tags.length} bare Lit elements (median of ${RUNS}; load-independent)`,
          figure('ours', 'cpu', 'bareN'),
          '',
          '—',
          [
            `ours ${spread('ours', 'cpu')}, ${tags.length} bare ${spread('bareN', 'cpu')}`,
            `vs one bare Lit element ${figure('ours', 'cpu')}`,
          ]
            .filter(Boolean)
            .join('; '),
        ),
        row(
          SECTION,
          'one <bio-verify> only vs one bare Lit element, main-thread CPU (context)',
          figure('one', 'cpu'),
          '',
          '—',
          `the script's own cost without the other elements; wall clock ${figure('one', 'wall')}`,
        ),
        row(
          SECTION,
          `where the ${tags.length}-tag page's CPU goes, ours vs bare Lit (context): the script alone, the first element, each further tag`,
          steps.map(([, { ours, bare }]) => `${fmt(ours, 1)} vs ${fmt(bare, 1)} ms`).join(' · '),
          '',
          '—',
          `${steps.map(([what, { ours, bare }]) => `${what}: ours ${fmt(ours, 1)} ms, bare ${fmt(bare, 1)} ms (+${fmt(ours - bare, 1)})`).join('; ')}; differences of the medians of pages with no element, one, and all ${tags.length}`,
        ),
      ],
      methods: [
        `Start-up: headless system Chromium (puppeteer-core through test/support/engines.ts, the path from scripts/browsers.mjs, --disable-gpu …). The page holds the elements (${tags.join(', ')}; reader status pinned so no network is involved); a page function takes t0 = performance.now(), inserts the classic script, and resolves when customElements.whenDefined of every tag, every element's updateComplete and a layout of each shadow root are done (wall clock: includes fetching the script from 127.0.0.1, parsing and running it). The renderer main thread's CPU time over the same span comes from CDP Performance.getMetrics (ThreadTime with timeDomain threadTicks) read before and after. The floor page is the same with one <bare-lit> (context rows: one of our elements; as many <bare-lit> as our tags; each script on a page with no element, so the script's own cost, the first element's and each further tag's can be told apart). Scripts are served no-store, each run is a fresh page, ${RUNS} runs of each page interleaved after one warm-up each; figures are ratios of medians. On a loaded machine the wall-clock medians move by tens of percent between runs; the CPU figure does not.`,
      ],
    };
  } finally {
    await server.close();
  }
}
