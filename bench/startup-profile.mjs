#!/usr/bin/env node
// Where start-up goes: the page of section 4 (bench/startup.mjs: the four tags, then the classic
// script) profiled in headless Chromium, against the same page with four bare Lit elements.
//
//   BIOID_SOURCEMAP=1 npm run build && node bench/startup-profile.mjs [--runs 30] [--interval 50] [--top 12] [--cpu 6] [--write]
//
// --cpu 6 throttles the CPU 6× (CDP Emulation.setCPUThrottlingRate, as section 4b, bench/blocking.mjs) and
// adds a table of the main thread's tasks: what each of ours costs (the longest first), against bare Lit's.
//
// --write puts the tables into docs/performance.md, section "Where start-up goes", between its
// markers (the rest of that section is prose, kept; `npm run bench` keeps the whole section).
//
// Each run is a fresh page (scripts no-store, as in section 4) with a CDP trace (main-thread events
// with their thread time: compile, GC, style and layout, HTML parsing, script) and the V8 sampling
// profiler (Profiler.setSamplingInterval, µs) on at once; both use the same clock. The thread time of
// the main thread's events inside the window (script inserted → every element rendered and laid out)
// is split by the innermost event: compile, GC, style/layout/paint, HTML parsing, script. The script
// time is then split by the samples that fall in it, each by the innermost frame of its stack that a
// rule below names (frames mapped to their sources through dist/bioid-elements.js.map). Figures are
// means over the runs, thread time in ms; tracing and sampling slow the page, so read the shares.
import { readFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browser, closeBrowser, startServer } from './browser.mjs';
import { KEPT_HEADING } from './report.mjs';
import { bareLitBundle } from './size.mjs';
import { OUR_TAGS, page } from './startup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 30);
const INTERVAL_US = arg('interval', 50);
const TOP = arg('top', 12);
const CPU = arg('cpu', 1);
const TAGS = OUR_TAGS.filter((t) => t !== 'bio-enrolled');

// ---------------------------------------------------------------------------------------------
// Source map: the generated (line, column) of a function → its source file and original position.

/** Through Node's own reader (node:module's SourceMap): the source as a package path or src/…, the line (1-based) and name. */
function sourceMap(payload) {
  const map = new SourceMap(payload);
  return (line, column) => {
    const entry = map.findEntry(line, column);
    // A mapping covers its own generated line only.
    if (entry.originalSource === undefined || entry.generatedLine !== line) return undefined;
    return {
      source: entry.originalSource.replace(/^.*node_modules\//, '').replace(/^(\.\.\/)+/, ''),
      line: entry.originalLine + 1,
      name: entry.name,
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Categories.

/** Main-thread trace events by name: the innermost one of these decides where its self time goes. */
function traceCategory(e) {
  const { name, cat } = e;
  if (/v8\.compile/.test(cat) || /^(v8\.compile|V8\.Compile|V8\.Parse|V8\.PreParse)/.test(name)) return 'compile';
  if (/GC|Scavenge|MarkCompact|Sweep/.test(name)) return 'gc';
  if (
    /^(UpdateLayoutTree|RecalculateStyles|Layout|PrePaint|Paint|Layerize|UpdateLayer|Commit|HitTest|ScrollLayer|IntersectionObserverController::computeIntersections)$/.test(
      name,
    )
  )
    return 'render';
  if (name === 'ParseHTML' || name === 'ParseAuthorStyleSheet') return 'html';
  if (
    /^(EvaluateScript|v8\.run|v8\.callFunction|v8\.callAsConstructor|FunctionCall|RunMicrotasks|EventDispatch|TimerFire|FireAnimationFrame|v8\.evaluateModule|V8\.Execute)$/.test(
      name,
    )
  )
    return 'js';
  return undefined;
}

/**
 * A frame's category, or undefined to look further out. `f` is { fn, url, source, name } with
 * `source` the original file (src/…, lit's own files) where the source map knows it.
 */
function frameCategory(f) {
  const s = f.source ?? '';
  const fn = f.name ?? f.fn;
  if (/elements\/(localize|translations\/)/.test(s)) return 'localization';
  if (
    /core\/status-watch/.test(s) ||
    (/elements\//.test(s) && /^(restart|followStatus|report|stop|onPageConfigChange)$/.test(f.fn)) ||
    /statusOptionsFor/.test(fn)
  )
    return 'status watch';
  if (/css-tag\.js/.test(s) || /elements\/(styles|glyph)\.ts/.test(s) || /^(finalizeStyles|createRenderRoot)$/.test(f.fn)) return 'styles';
  if (/lit-html\.js/.test(s) || /^(render|renderResult)$/.test(f.fn) || (/lit-element\.js/.test(s) && /^(update|render)$/.test(f.fn)))
    return 'template render';
  const ctor = f.name === 'constructor' || f.fn === 'constructor';
  if (/reactive-element\.js|lit-element\.js/.test(s) && (ctor || /^(_\$Ev|_\$E_|addController)$/.test(f.fn))) return 'element construction';
  if (/elements\//.test(s) && ctor) return 'element construction';
  if (
    /reactive-element\.js/.test(s) &&
    /^(finalize|createProperty|getPropertyDescriptor|_\$Ei|_\$Eu|observedAttributes|addInitializer)$/.test(f.fn)
  )
    return 'class setup';
  if (/reactive-element\.js|lit-element\.js/.test(s)) return 'Lit update cycle';
  if (/elements\/define\.ts/.test(s) || /^(observedAttributes|define)$/.test(f.fn)) return 'class setup';
  if (
    /elements\//.test(s) &&
    /^(connectedCallback|disconnectedCallback|attributeChangedCallback|willUpdate|updated|firstUpdated|resultChanged)$/.test(f.fn)
  )
    return 'element callbacks';
  if (/elements\//.test(s) && /^(settings|effectiveSettings|pageConfig|checkPageConfig)$/.test(fn)) return 'element callbacks';
  if (f.url && !/\/(dist|cache)\//.test(f.url)) return 'page and harness';
  return undefined;
}

const ORDER = [
  ['compile', 'script compile (lazy, main thread)'],
  ['module evaluation', 'module evaluation (top-level code)'],
  ['class setup', 'class setup (define, properties)'],
  ['element construction', 'element construction (constructors)'],
  ['styles', 'style construction (css``, adopt)'],
  ['template render', 'first template render (lit-html)'],
  ['localization', 'localization'],
  ['status watch', 'status-watch setup'],
  ['element callbacks', 'element callbacks (connect, settings, updated)'],
  ['Lit update cycle', 'Lit update cycle (scheduling, properties)'],
  ['js other', 'other script'],
  ['page and harness', 'page and harness (measuring code)'],
  ['gc', 'garbage collection'],
  ['render', 'style recalc, layout, paint (Blink)'],
  ['html', "HTML parsing (templates' innerHTML)"],
  ['other', 'other (tasks, bindings, CDP)'],
];

// ---------------------------------------------------------------------------------------------
// One run.

async function profileOnce(b, url, mapFor) {
  const p = await b.newPage();
  try {
    const cdp = await p.createCDPSession();
    if (CPU !== 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU });
    await p.goto(url);
    const events = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.start', {
      transferMode: 'ReportEvents',
      traceConfig: {
        includedCategories: [
          'toplevel',
          'devtools.timeline',
          'v8',
          'v8.execute',
          'disabled-by-default-v8.compile',
          'disabled-by-default-v8.gc',
        ],
      },
    });
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: INTERVAL_US });
    await cdp.send('Profiler.start');
    await p.evaluate(() => window.__go());
    const { profile } = await cdp.send('Profiler.stop');
    await cdp.send('Tracing.end');
    await complete;
    return attribute(events, profile, mapFor);
  } finally {
    await p.close();
  }
}

function attribute(events, profile, mapFor) {
  const from = profile.startTime;
  const to = profile.endTime;
  // The renderer's main thread: the one that evaluated the script.
  const evaluate = events.find((e) => e.name === 'EvaluateScript' && /\/(dist|cache)\//.test(e.args?.data?.url ?? ''));
  if (!evaluate) throw new Error('no EvaluateScript of the script in the trace');
  const main = (e) => e.pid === evaluate.pid && e.tid === evaluate.tid;

  // Complete events (X, or B/E pairs) of the main thread inside the window, as a tree.
  const spans = [];
  const open = [];
  for (const e of events.filter(main).sort((a, b) => a.ts - b.ts)) {
    if (e.ph === 'X' && e.dur !== undefined && e.tdur !== undefined) spans.push({ e, start: e.ts, end: e.ts + e.dur, cpu: e.tdur / 1000 });
    else if (e.ph === 'B') open.push(e);
    else if (e.ph === 'E') {
      const i = open.findLastIndex((o) => o.name === e.name);
      if (i >= 0) {
        const [b] = open.splice(i, 1);
        if (b.tts !== undefined && e.tts !== undefined) spans.push({ e: b, start: b.ts, end: e.ts, cpu: (e.tts - b.tts) / 1000 });
      }
    }
  }
  const inWindow = spans.filter((s) => s.start >= from && s.end <= to).sort((a, b) => a.start - b.start || b.end - a.end);
  const totals = Object.fromEntries([...ORDER.map(([key]) => [key, 0]), ['js', 0]]);
  const stack = [];
  const jsIntervals = [];
  for (const s of inWindow) {
    while (stack.length && stack.at(-1).end <= s.start) stack.pop();
    const parent = stack.at(-1);
    s.category = traceCategory(s.e) ?? parent?.category ?? 'other';
    s.self = s.cpu;
    if (parent) parent.self -= s.cpu;
    stack.push(s);
  }
  for (const s of inWindow) {
    totals[s.category] += Math.max(0, s.self);
    if (s.category === 'js') jsIntervals.push(s);
  }
  // The main thread's tasks (RunTask, ThreadControllerImpl::RunTask in newer Chromium; category toplevel) in the window, each with its own split.
  const tasks = inWindow
    .filter((s) => /^(RunTask|ThreadControllerImpl::RunTask)$/.test(s.e.name))
    .map((t) => {
      const own = Object.fromEntries([...ORDER.map(([key]) => [key, 0]), ['js', 0]]);
      for (const s of inWindow) if (s.start >= t.start && s.end <= t.end) own[s.category] += Math.max(0, s.self);
      return { start: t.start, end: t.end, ms: (t.end - t.start) / 1000, totals: own, counts: {} };
    });
  const taskAt = (time) => tasks.find((t) => t.start <= time && time < t.end);
  // The innermost span at time t (for the samples).
  const innermost = (t) => {
    let best;
    for (const s of inWindow) if (s.start <= t && t < s.end && (!best || s.end - s.start <= best.end - best.start)) best = s;
    return best;
  };

  // Samples inside script time, by their stack.
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const frameOf = (n) => {
    const { functionName: fn, url, lineNumber, columnNumber } = n.callFrame;
    const mapped = url && mapFor(url) ? mapFor(url)(lineNumber, columnNumber) : undefined;
    return { fn, url, source: mapped?.source, line: mapped?.line, name: mapped?.name };
  };
  const frameCache = new Map();
  const frame = (id) => frameCache.get(id) ?? frameCache.set(id, frameOf(nodes.get(id))).get(id);
  const counts = {};
  const leaves = {};
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    const span = innermost(t);
    if (span?.category !== 'js') return;
    let category;
    const chain = [];
    for (let n = id; n !== undefined && nodes.get(n).callFrame.functionName !== '(root)'; n = parentOf.get(n)) chain.push(n);
    const leaf = chain[0] !== undefined ? frame(chain[0]) : undefined;
    if (!leaf || /^\((program|idle|garbage collector)\)$/.test(leaf.fn)) category = 'js other';
    else {
      for (const n of chain) {
        category = frameCategory(frame(n));
        if (category) break;
      }
      if (!category) {
        // No rule: constructors of the elements, else the script's own top level.
        const inCtor = chain.some((n) => frame(n).fn === 'constructor' || /^(Bio|_\$Ev|_\$E_)/.test(frame(n).fn));
        const outer = frame(chain.at(-1));
        category = inCtor
          ? 'element construction'
          : outer.fn === '' && /\/(dist|cache)\//.test(outer.url)
            ? 'module evaluation'
            : 'js other';
      }
      const key = `${category} | ${leaf.source ?? leaf.url.replace(/^.*\//, '')}:${leaf.line ?? ''} ${leaf.name ?? leaf.fn ?? ''}`;
      leaves[key] = (leaves[key] ?? 0) + 1;
    }
    counts[category] = (counts[category] ?? 0) + 1;
    const inTask = taskAt(t);
    if (inTask) inTask.counts[category] = (inTask.counts[category] ?? 0) + 1;
  });
  for (const task of tasks) {
    const n = Object.values(task.counts).reduce((a, b) => a + b, 0);
    for (const [key, k] of Object.entries(task.counts)) task.totals[key] += n ? (task.totals.js * k) / n : 0;
    if (!n) task.totals['js other'] += task.totals.js;
    delete task.totals.js;
  }
  // Script time split in proportion to its samples.
  const js = totals.js;
  delete totals.js;
  const sampled = Object.values(counts).reduce((a, b) => a + b, 0);
  for (const [key, n] of Object.entries(counts)) totals[key] += sampled ? (js * n) / sampled : 0;
  if (!sampled) totals['js other'] += js;
  return { totals, leaves, samples: sampled, tasks: tasks.sort((a, b) => b.ms - a.ms) };
}

// ---------------------------------------------------------------------------------------------

export async function runStartupProfile(shared = { root, log: (m) => process.stderr.write(`${m}\n`) }) {
  const bundle = join(root, 'dist/bioid-elements.js');
  if (!existsSync(bundle)) throw new Error('dist/bioid-elements.js is missing (npm run build)');
  if (!existsSync(`${bundle}.map`)) {
    throw new Error('dist/bioid-elements.js.map is missing: the package ships none; build one with BIOID_SOURCEMAP=1 npm run build');
  }
  mkdirSync(join(root, '.cache/bench'), { recursive: true });
  const bare = await bareLitBundle(root, { withMap: true });
  writeFileSync(join(root, '.cache/bench/bare-lit.js'), bare.code);
  const maps = {
    '/dist/bioid-elements.js': sourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8'))),
    '/cache/bare-lit.js': sourceMap(bare.map),
  };
  const mapFor = (url) => maps[new URL(url, 'http://x').pathname];
  const server = await startServer(root, {
    pages: {
      '/ours': page(TAGS, '/dist/bioid-elements.js'),
      '/bare-n': page(
        TAGS.map(() => 'bare-lit'),
        '/cache/bare-lit.js',
      ),
    },
  });
  const loadStart = os.loadavg()[0];
  try {
    const b = await browser(shared);
    const pages = { ours: '/ours', bare: '/bare-n' };
    for (const path of Object.values(pages)) await profileOnce(b, `${server.origin}${path}`, mapFor);
    const sums = { ours: {}, bare: {} };
    const byRank = { ours: [], bare: [] };
    const leaves = {};
    let samples = 0;
    for (let i = 0; i < RUNS; i++) {
      for (const [key, path] of Object.entries(pages)) {
        const r = await profileOnce(b, `${server.origin}${path}`, mapFor);
        for (const [c, ms] of Object.entries(r.totals)) sums[key][c] = (sums[key][c] ?? 0) + ms;
        // The three longest tasks of each run, by rank: their wall time and, for ours, where it goes.
        r.tasks.slice(0, 3).forEach((task, rank) => {
          const into = (byRank[key][rank] ??= { ms: 0, n: 0, totals: {} });
          into.ms += task.ms;
          into.n += 1;
          for (const [c, ms] of Object.entries(task.totals)) into.totals[c] = (into.totals[c] ?? 0) + ms;
        });
        if (key === 'ours') {
          samples += r.samples;
          for (const [k, n] of Object.entries(r.leaves)) leaves[k] = (leaves[k] ?? 0) + n;
        }
      }
    }
    const mean = (key, c) => (sums[key][c] ?? 0) / RUNS;
    const total = (key) => ORDER.reduce((a, [c]) => a + mean(key, c), 0);
    const lines = [];
    lines.push(`| Where | ours ms | share | 4 bare Lit ms | ours − bare ms |`);
    lines.push(`|---|---:|---:|---:|---:|`);
    for (const [c, label] of ORDER) {
      const o = mean('ours', c);
      const bb = mean('bare', c);
      lines.push(`| ${label} | ${o.toFixed(2)} | ${((100 * o) / total('ours')).toFixed(1)}% | ${bb.toFixed(2)} | ${(o - bb).toFixed(2)} |`);
    }
    lines.push(
      `| **main-thread total** | **${total('ours').toFixed(2)}** | 100% | **${total('bare').toFixed(2)}** | **${(total('ours') - total('bare')).toFixed(2)}** (${(total('ours') / total('bare')).toFixed(2)}×) |`,
    );
    const taskLines = [
      `| Task (by length in its run) | ours ms (wall) | where ours goes, thread ms | bare Lit ms (wall) |`,
      `|---|---:|---|---:|`,
    ];
    for (let rank = 0; rank < 3; rank++) {
      const o = byRank.ours[rank];
      const bb = byRank.bare[rank];
      if (!o && !bb) break;
      const parts = o
        ? ORDER.map(([c, label]) => [label, o.totals[c] / o.n])
            .filter(([, ms]) => ms >= 0.5)
            .sort((a, b) => b[1] - a[1])
            .map(([label, ms]) => `${label} ${ms.toFixed(1)}`)
            .join('; ')
        : '';
      taskLines.push(
        `| ${['longest', 'second', 'third'][rank]} | ${o ? (o.ms / o.n).toFixed(1) : '—'} | ${parts} | ${bb ? (bb.ms / bb.n).toFixed(1) : '—'} |`,
      );
    }
    const top = Object.entries(leaves)
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([k, n]) => `| ${k.replace(' | ', ' | `').replace(/$/, '`')} | ${((100 * n) / samples).toFixed(1)}% |`);
    return {
      table: lines.join('\n'),
      tasks: taskLines.join('\n'),
      top: [`| Category \\| innermost frame (source:line name) | share of script samples |`, `|---|---:|`, ...top].join('\n'),
      runs: RUNS,
      interval: INTERVAL_US,
      samples,
      load: `${loadStart.toFixed(1)} → ${os.loadavg()[0].toFixed(1)}`,
      chromium: shared.chromiumVersion,
    };
  } finally {
    await server.close();
  }
}

const BEGIN = '<!-- startup-profile:begin (node bench/startup-profile.mjs --write) -->';
const END = '<!-- startup-profile:end -->';

/** Replaces the generated part of the section (or appends the section) in docs/performance.md. */
function writeSection(generated) {
  const path = join(root, 'docs/performance.md');
  let doc = readFileSync(path, 'utf8');
  if (!doc.includes(KEPT_HEADING)) doc = `${doc.trimEnd()}\n${KEPT_HEADING}\n${BEGIN}\n${END}\n`;
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/performance.md: the section has no ${BEGIN} … ${END} markers`);
  writeFileSync(path, `${doc.slice(0, from + BEGIN.length)}\n${generated}\n${doc.slice(to)}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = performance.now();
  const r = await runStartupProfile();
  await closeBrowser();
  const head = `${new Date().toISOString()}: \`node bench/startup-profile.mjs --runs ${r.runs}${CPU !== 1 ? ` --cpu ${CPU}` : ''}\` on dist/bioid-elements.js as built (${r.runs} runs of each page, sampling every ${r.interval} µs, ${r.samples} script samples of ours); load average ${r.load} on ${os.cpus().length} cores (\`uptime\`), Chromium ${r.chromium}, ${((performance.now() - t0) / 1000).toFixed(0)} s.`;
  const generated = `${head}\n\n${r.table}\n\nThe main thread's longest tasks (means over the runs of the longest, second and third of each run, wall time; the split in thread time):\n\n${r.tasks}\n\nScript time of ours by the innermost frame of each sample (top ${TOP}; the category is the innermost frame a rule names, which may be further out):\n\n${r.top}`;
  console.log(generated);
  if (process.argv.includes('--write')) {
    writeSection(generated);
    console.log('\nWritten to docs/performance.md (Where start-up goes)');
  }
  process.exit(0);
}
