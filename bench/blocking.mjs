// Section 4b: start-up on a low-end CPU. The four-tag page of section 4 (bench/startup.mjs) and the
// same page with four bare Lit elements, in headless Chromium with the CPU throttled 6× (CDP
// Emulation.setCPUThrottlingRate, the usual stand-in for a low-end phone or kiosk), runs alternating.
// What a person feels is the longest main-thread task (the page answers no tap while it runs): from
// the page's own PerformanceObserver 'longtask' entries (tasks of 50 ms and more), else, when no task
// reached 50 ms, from the trace's RunTask events (CDP Tracing, category toplevel). Beside it the total
// blocking time (the sum over tasks of their time past 50 ms) and the cumulative layout shift from
// the script's insertion on (PerformanceObserver 'layout-shift': only our elements move on this page).
import os from 'node:os';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STARTUP_BUDGET } from './budgets.mjs';
import { browser, definedTags, startServer } from './browser.mjs';
import { atMost, fmt, notMeasured, row } from './report.mjs';
import { bareLitBundle } from './size.mjs';
import { OUR_TAGS, page } from './startup.mjs';

const SECTION = '4b Start-up, 6× CPU';
const RUNS = 21;
const RATE = 6;
/** A task of 50 ms or more is a long task (the Long Tasks API's threshold; total blocking time counts past it). */
const LONG = 50;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/**
 * The renderer main threads' tasks, from RunTask events (ThreadControllerImpl::RunTask in newer Chromium):
 * wall ms, or with `field` 'tdur' the thread's CPU ms, which does not grow while the task waits for a core.
 */
function traceTasks(events, field = 'dur') {
  const renderer = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  return events
    .filter((e) => e.ph === 'X' && /^(RunTask|ThreadControllerImpl::RunTask)$/.test(e.name) && renderer.has(`${e.pid}:${e.tid}`))
    .map((e) => (e[field] ?? 0) / 1000);
}

/** One run in a fresh page at RATE× CPU: { longest, tbt, cls, source }. */
async function once(b, url) {
  const p = await b.newPage();
  try {
    const cdp = await p.createCDPSession();
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
    await p.goto(url);
    const events = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: ['toplevel'] } });
    const r = await p.evaluate(async () => {
      const t0 = performance.now();
      await window.__go();
      // Entries are delivered after their task or frame: two frames and a task later they are in.
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0))));
      const { tasks, shifts } = window.__perf;
      return {
        tasks: tasks?.filter((t) => t.startTime >= t0).map((t) => t.duration),
        cls: shifts?.filter((s) => s.startTime >= t0 && !s.hadRecentInput).reduce((a, s) => a + s.value, 0),
      };
    });
    await cdp.send('Tracing.end');
    await complete;
    if (!r.tasks) throw new Error('this Chromium reports no longtask entries');
    if (r.cls === undefined) throw new Error('this Chromium reports no layout-shift entries');
    let tasks = r.tasks;
    let source = 'longtask';
    if (!tasks.length) {
      tasks = traceTasks(events);
      source = 'trace';
    }
    return {
      longest: Math.max(0, ...tasks),
      longestCpu: Math.max(0, ...traceTasks(events, 'tdur')),
      tbt: tasks.reduce((a, d) => a + Math.max(0, d - LONG), 0),
      cls: r.cls,
      source,
    };
  } finally {
    await p.close();
  }
}

export async function runBlocking(shared) {
  const { root } = shared;
  const item = `longest main-thread task at ${RATE}× CPU, 4 tags vs 4 bare Lit elements (median of ${RUNS}, alternating)`;
  const { defined, why } = await definedTags(
    shared,
    OUR_TAGS.filter((t) => t !== 'bio-enrolled'),
  );
  if (why) return { rows: [notMeasured(SECTION, item, why, `≤ ${STARTUP_BUDGET}× bare Lit`)] };
  const tags = [...defined];
  mkdirSync(join(root, '.cache/bench'), { recursive: true });
  if (!existsSync(join(root, '.cache/bench/bare-lit.js'))) writeFileSync(join(root, '.cache/bench/bare-lit.js'), await bareLitBundle(root));
  const server = await startServer(root, {
    pages: {
      '/ours': page(tags, '/dist/bioid-elements.js', { observe: true }),
      '/bare-n': page(
        tags.map(() => 'bare-lit'),
        '/cache/bare-lit.js',
        { observe: true },
      ),
    },
  });
  try {
    const b = await browser(shared);
    const pages = { ours: '/ours', bare: '/bare-n' };
    for (const path of Object.values(pages)) await once(b, `${server.origin}${path}`);
    const runs = { ours: [], bare: [] };
    const loads = [];
    for (let i = 0; i < RUNS; i++) {
      for (const [key, path] of Object.entries(pages)) runs[key].push(await once(b, `${server.origin}${path}`));
      loads.push(os.loadavg()[0]);
    }
    const stat = (key, field) => median(runs[key].map((r) => r[field]));
    const spread = (key, field) => {
      const xs = runs[key].map((r) => r[field]);
      return `${fmt(Math.min(...xs), 1)}–${fmt(Math.max(...xs), 1)} ms`;
    };
    const fromTrace = (key) => runs[key].filter((r) => r.source === 'trace').length;
    const ratio = stat('ours', 'longest') / stat('bare', 'longest');
    const verdict = atMost(ratio, STARTUP_BUDGET, '×');
    const load = `load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} during the runs on ${os.cpus().length} cores`;
    return {
      rows: [
        row(
          SECTION,
          `${item} (${tags.join(', ')})`,
          `${ratio.toFixed(2)}× (${fmt(stat('ours', 'longest'), 1)} ms vs ${fmt(stat('bare', 'longest'), 1)} ms)`,
          `≤ ${STARTUP_BUDGET}× 4 bare Lit`,
          verdict.verdict,
          [
            verdict.note,
            `ours ${spread('ours', 'longest')}, bare ${spread('bare', 'longest')}`,
            `runs with no task of ${LONG} ms (longest from the trace): ours ${fromTrace('ours')}, bare ${fromTrace('bare')}`,
            load,
          ]
            .filter(Boolean)
            .join('; '),
        ),
        row(
          SECTION,
          `longest task in the main thread's CPU time at ${RATE}× CPU, 4 tags vs 4 bare Lit elements (median of ${RUNS}; context, load-independent)`,
          `${(stat('ours', 'longestCpu') / stat('bare', 'longestCpu')).toFixed(2)}× (${fmt(stat('ours', 'longestCpu'), 1)} ms vs ${fmt(stat('bare', 'longestCpu'), 1)} ms)`,
          '',
          '—',
          `the same tasks from the trace (RunTask's thread time): on a busy machine a task's wall time includes the time it waited for a core, its thread time does not; ours ${spread('ours', 'longestCpu')}, bare ${spread('bare', 'longestCpu')}`,
        ),
        row(
          SECTION,
          `total blocking time at ${RATE}× CPU, 4 tags vs 4 bare Lit elements (median of ${RUNS}; context)`,
          `${fmt(stat('ours', 'tbt'), 1)} ms vs ${fmt(stat('bare', 'tbt'), 1)} ms`,
          '',
          '—',
          `ours ${spread('ours', 'tbt')}, bare ${spread('bare', 'tbt')}; ${load}`,
        ),
        row(
          SECTION,
          `cumulative layout shift from the script's insertion, 4 tags at ${RATE}× CPU (largest of ${RUNS})`,
          fmt(Math.max(...runs.ours.map((r) => r.cls)), 4),
          '0',
          Math.max(...runs.ours.map((r) => r.cls)) === 0 ? 'pass' : 'MISS',
          `bare Lit ${fmt(Math.max(...runs.bare.map((r) => r.cls)), 4)}`,
        ),
      ],
      methods: [
        `Start-up at ${RATE}× CPU: the page of section 4 (bench/startup.mjs) with, in its head, a PerformanceObserver for 'longtask' and 'layout-shift' entries (buffered); each run is a fresh page with CDP Emulation.setCPUThrottlingRate ${RATE}, ${RUNS} runs of ours and of the page with ${tags.length} <bare-lit> alternating after one warm-up each. The longest task is the longest 'longtask' entry from the script's insertion until every element has rendered and two frames more; when no task reached ${LONG} ms, the longest RunTask of the main thread in a CDP trace (category toplevel) of the same span. Total blocking time is the sum of each task's time past ${LONG} ms. The load-independent row takes the longest RunTask of the same trace by its thread time (tdur). Layout shift sums the 'layout-shift' entries' values over the same span (no input on the page). Figures are medians (layout shift: the largest run); the ratio is the budget (bench/budgets.json, "startup").`,
      ],
    };
  } finally {
    await server.close();
  }
}
