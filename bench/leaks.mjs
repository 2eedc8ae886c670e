// Section 6: 1000 mount/unmount cycles of each element in Chromium → timers still pending, event
// listeners left on live targets, heap difference after GC. setTimeout/setInterval and
// addEventListener/removeEventListener are instrumented by an init script, before the bundle loads.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { browser, definedTags, sendJson, startServer } from './browser.mjs';
import { fmt, notMeasured, row } from './report.mjs';

const SECTION = '6 Leaks';
const CYCLES = 1000;
const WARMUP = 50;
/** Cycles in which the element is removed while its operation waits for the middleware. */
const MID_CYCLES = 200;
const OPERATION_TAGS = ['bio-enroll', 'bio-verify', 'bio-search'];
const TAGS = ['bio-enroll', 'bio-verify', 'bio-search', 'bio-enrolled', 'bio-reader-status'];

/**
 * Pending timers: ids set and neither fired (one-shot) nor cleared. Listeners: each add/remove pair by
 * (target, type, capture, listener), `once` and `signal` honoured; the target is held by a WeakRef, so a
 * listener on an element that was collected does not count, and one that keeps a target alive does.
 */
export const INSTRUMENT = () => {
  const timers = new Map();
  const { setTimeout: st, clearTimeout: ct, setInterval: si, clearInterval: ci } = window;
  window.setTimeout = function (fn, ms, ...args) {
    // The callback forgets its own id: it runs after the call below has returned it.
    const id = st.call(window, typeof fn === 'function' ? (...a) => (timers.delete(id), fn(...a)) : fn, ms, ...args);
    timers.set(id, new Error().stack);
    return id;
  };
  window.setInterval = function (fn, ms, ...args) {
    const id = si.call(window, fn, ms, ...args);
    timers.set(id, new Error().stack);
    return id;
  };
  window.clearTimeout = (id) => (timers.delete(id), ct.call(window, id));
  window.clearInterval = (id) => (timers.delete(id), ci.call(window, id));

  const entries = new Map(); // key -> { target: WeakRef, type }
  const ids = new WeakMap();
  let next = 0;
  const idOf = (o) => {
    if (!ids.has(o)) ids.set(o, ++next);
    return ids.get(o);
  };
  const keyOf = (target, type, listener, options) => {
    const capture = typeof options === 'boolean' ? options : !!options?.capture;
    return `${idOf(target)}|${type}|${capture}|${idOf(listener)}`;
  };
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    add.call(this, type, listener, options);
    if (!listener || (typeof listener !== 'function' && typeof listener !== 'object')) return;
    const key = keyOf(this, type, listener, options);
    if (entries.has(key)) return;
    const signal = typeof options === 'object' ? options?.signal : undefined;
    if (signal?.aborted) return;
    entries.set(key, { target: new WeakRef(this), type });
    const forget = () => entries.delete(key);
    if (typeof options === 'object' && options?.once) add.call(this, type, forget, { once: true, capture: !!options.capture });
    if (signal) add.call(signal, 'abort', forget, { once: true });
  };
  EventTarget.prototype.removeEventListener = function (type, listener, options) {
    remove.call(this, type, listener, options);
    if (listener) entries.delete(keyOf(this, type, listener, options));
  };

  window.__leaks = {
    timers: () => timers.size,
    timerStacks: () => [...timers.values()].slice(-3),
    listeners: () => {
      let live = 0;
      const byType = {};
      for (const [key, e] of entries) {
        if (!e.target.deref()) {
          entries.delete(key);
          continue;
        }
        live += 1;
        byType[e.type] = (byType[e.type] ?? 0) + 1;
      }
      return { live, byType };
    },
  };
};

export const ATTRS = {
  'bio-enroll': { 'middleware-url': '/mw', 'token-endpoint': '/token', 'subject-id': 'alice', 'local-service-url': '/ls' },
  'bio-verify': { 'middleware-url': '/mw', 'token-endpoint': '/token', 'subject-id': 'alice', 'local-service-url': '/ls' },
  'bio-search': { 'middleware-url': '/mw', 'token-endpoint': '/token', 'local-service-url': '/ls' },
  'bio-enrolled': { 'middleware-url': '/mw', 'token-endpoint': '/token', 'subject-id': 'alice' },
  // Unpinned: each mount starts /status polling, each unmount must stop it.
  'bio-reader-status': { 'local-service-url': '/ls' },
};

/** `bioid-sdk/elements` (dist/elements/index.js) bundled with its dependencies for a module script. */
async function elementsModule(root) {
  const { rollup } = await import('rollup');
  const { default: resolve } = await import('@rollup/plugin-node-resolve');
  const build = await rollup({ input: join(root, 'dist/elements/index.js'), plugins: [resolve({ browser: true })], onwarn: () => {} });
  const { output } = await build.generate({ format: 'es', inlineDynamicImports: true });
  await build.close();
  mkdirSync(join(root, '.cache/bench'), { recursive: true });
  writeFileSync(join(root, '.cache/bench/elements-esm.js'), output[0].code);
}

export async function runLeaks(shared) {
  const { defined, why } = await definedTags(shared, TAGS);
  const rows = [];
  if (defined.length === 0) return { rows: [notMeasured(SECTION, 'mount/unmount cycles', why, '0 leaked timers')] };
  // Tags the script-tag bundle leaves out are measured through the ESM entry bioid-sdk/elements.
  let viaModule = TAGS.filter((t) => !defined.includes(t));
  if (viaModule.length && existsSync(join(shared.root, 'dist/elements/index.js'))) {
    await elementsModule(shared.root);
  } else if (viaModule.length) {
    for (const tag of viaModule)
      rows.push(notMeasured(SECTION, `<${tag}> × ${CYCLES}`, `neither the bundle nor dist/elements defines <${tag}>`, '0 leaked timers'));
    viaModule = [];
  }
  const server = await startServer(shared.root, {
    pages: {
      '/': '<!doctype html><html lang="en"><body><script src="/dist/bioid-elements.js"></script></body></html>',
      '/esm': '<!doctype html><html lang="en"><body><script type="module" src="/cache/elements-esm.js"></script></body></html>',
    },
    routes: {
      'GET /ls/status': (_req, res) => sendJson(res, 200, { workstationId: 'ws-1', devices: [{ deviceId: 'reader-1', connected: true }] }),
      'GET /token': (_req, res) => sendJson(res, 200, { access_token: 'bench-token', expires_in: 300 }),
      // The middleware never answers: each operation is still waiting when its element is removed.
      '/mw/orchestrator/enroll': () => {},
      '/mw/orchestrator/verify': () => {},
      '/mw/orchestrator/search': () => {},
    },
  });
  const b = await browser(shared);
  try {
    for (const [path, tags, source] of [
      ['/', TAGS.filter((t) => defined.includes(t)), 'bioid-elements.js'],
      ['/esm', viaModule, 'bioid-sdk/elements'],
    ]) {
      if (tags.length) rows.push(...(await measure(b, `${server.origin}${path}`, tags, source)));
    }
  } finally {
    await server.close();
  }
  return {
    rows,
    methods: [
      `Leaks: the built bundle in headless Chromium (tags it leaves out: the ESM entry dist/elements/index.js bundled with its dependencies as a module script); an init script wraps setTimeout/setInterval/clear* (pending = set, not fired, not cleared) and add/removeEventListener (live = added, not removed, \`once\`/\`signal\` honoured, target still alive after GC, tracked through WeakRef). Per element: ${WARMUP} unmeasured cycles, then ${fmt(CYCLES)} cycles of createElement + attributes + append + updateComplete + remove; 300 ms to settle, two CDP HeapProfiler.collectGarbage, then Runtime.getHeapUsage; figures are after minus before. "Elements alive": of the ${fmt(CYCLES)} removed elements (held by WeakRef), how many survived GC (a leak keeps them). <bio-reader-status> is unpinned (each mount starts /status polling against a local server). "Removed mid-operation": ${MID_CYCLES} cycles of mount, start(), wait for the 'dispatched' phase and 5 ms more while the middleware (a local route that never answers) holds the POST, remove; start() must reject with code 'aborted'.`,
    ],
  };
}

/**
 * Removal while the operation waits for the middleware (a hanging POST): the operation must reject
 * with 'aborted' and leave no timer (the core's per-call timeout) and no listener behind.
 */
async function midOperation(page, settle, tag) {
  const before = await settle();
  const outcomes = await page.evaluate(
    async ({ tag, n, attrs }) => {
      window.__refs = [];
      const counts = {};
      for (let i = 0; i < n; i++) {
        const el = document.createElement(tag);
        window.__refs.push(new WeakRef(el));
        for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
        document.body.append(el);
        await el.updateComplete;
        const dispatched = new Promise((resolve) =>
          el.addEventListener('bio-progress', (e) => e.detail.phase === 'dispatched' && resolve()),
        );
        const run = el.start().then(
          () => 'resolved',
          (e) => e?.code ?? 'error',
        );
        await Promise.race([dispatched, run]);
        await new Promise((r) => setTimeout(r, 5)); // the POST is on the wire
        el.remove();
        const outcome = await run;
        counts[outcome] = (counts[outcome] ?? 0) + 1;
      }
      return counts;
    },
    { tag, n: MID_CYCLES, attrs: ATTRS[tag] },
  );
  const after = await settle();
  const timers = after.timers - before.timers;
  const listeners = after.listeners.live - before.listeners.live;
  const aborted = outcomes.aborted ?? 0;
  const ok = timers <= 0 && aborted === MID_CYCLES;
  return row(
    SECTION,
    `<${tag}> × ${MID_CYCLES} removed mid-operation`,
    `${timers} timers, ${listeners} listeners, ${after.alive} elements alive, ${aborted}/${MID_CYCLES} aborted`,
    '0 leaked timers',
    ok ? 'pass' : 'MISS',
    [
      timers > 0 ? `${timers} timer(s) left pending` : '',
      aborted !== MID_CYCLES ? `outcomes ${JSON.stringify(outcomes)}` : '',
      after.alive ? `${after.alive} removed elements still reachable` : '',
    ]
      .filter(Boolean)
      .join('; '),
  );
}

export async function measure(b, url, tags, source) {
  const rows = [];
  const context = await b.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.evaluateOnNewDocument(INSTRUMENT);
    await page.goto(url);
    await page.waitForFunction((t) => t.every((tag) => customElements.get(tag)), { timeout: 5000 }, tags);
    const cdp = await page.createCDPSession();
    const settle = async () => {
      // In-flight /status requests aborted by unmounting settle asynchronously; then a full GC.
      await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.send('HeapProfiler.collectGarbage');
      // Counting drops the records of collected targets, so the instrument's own records are not in the heap figure.
      const listeners = await page.evaluate(() => window.__leaks.listeners());
      await cdp.send('HeapProfiler.collectGarbage');
      return {
        heap: (await cdp.send('Runtime.getHeapUsage')).usedSize,
        timers: await page.evaluate(() => window.__leaks.timers()),
        listeners,
        alive: await page.evaluate(() => (window.__refs ?? []).filter((r) => r.deref()).length),
      };
    };
    const cycles = (tag, n) =>
      page.evaluate(
        async ({ tag, n, attrs }) => {
          window.__refs = [];
          for (let i = 0; i < n; i++) {
            const el = document.createElement(tag);
            window.__refs.push(new WeakRef(el));
            for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
            document.body.append(el);
            await el.updateComplete;
            el.remove();
          }
        },
        { tag, n, attrs: ATTRS[tag] },
      );
    for (const tag of tags) {
      await cycles(tag, WARMUP);
      const before = await settle();
      const t0 = performance.now();
      await cycles(tag, CYCLES);
      const seconds = (performance.now() - t0) / 1000;
      const after = await settle();
      const timers = after.timers - before.timers;
      const listeners = after.listeners.live - before.listeners.live;
      const heapKiB = (after.heap - before.heap) / 1024;
      const grew = Object.entries(after.listeners.byType)
        .filter(([type, n]) => n > (before.listeners.byType[type] ?? 0))
        .map(([type, n]) => `${type} +${n - (before.listeners.byType[type] ?? 0)}`);
      let stacks = '';
      if (timers > 0) {
        const s = await page.evaluate(() => window.__leaks.timerStacks());
        stacks = `; a pending timer was set at ${s[s.length - 1]?.split('\n')[2]?.trim() ?? '?'}`;
      }
      rows.push(
        row(
          SECTION,
          `<${tag}> × ${fmt(CYCLES)} mount/unmount${source === 'bioid-elements.js' ? '' : ` (${source})`}`,
          `${timers} timers, ${listeners} listeners, ${after.alive} elements alive, ${heapKiB >= 0 ? '+' : ''}${fmt(heapKiB, 1)} KiB heap`,
          '0 leaked timers',
          timers <= 0 ? 'pass' : 'MISS',
          [
            timers > 0 ? `${timers} timer(s) left pending${stacks}` : '',
            after.alive ? `${after.alive} removed elements still reachable` : '',
            grew.length ? `listeners left: ${grew.join(', ')}` : '',
            `${seconds.toFixed(1)} s`,
          ]
            .filter(Boolean)
            .join('; '),
        ),
      );
      if (OPERATION_TAGS.includes(tag)) rows.push(await midOperation(page, settle, tag));
    }
  } finally {
    await context.close();
  }
  return rows;
}
