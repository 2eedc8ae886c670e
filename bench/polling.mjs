// Section 5: /status polling of <bio-reader-status> (the core's watchStatus) per minute while the page
// is visible, hidden, pinned, with five tabs of one origin, and with the local service down. Real
// Chromium (puppeteer-core) and the built bundle; virtual minutes on sinon's fake timers, put into each
// page before its scripts (page timers and Date are fake, the network is real). The bench advances every
// tab's clock in 100 ms steps and, after each step, waits (in real time) until no fetch of any tab is in
// flight: each poll's answer is in before the clock moves on, so the counts are exact and repeatable
// (docs/testing.md, "Browser automation").
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { browser, definedTags, sendJson, startServer, waitFor } from './browser.mjs';
import { fmt, notMeasured, row } from './report.mjs';

const SECTION = '5 Polling';
const STEP_MS = 100;
const START = Date.parse('2026-01-01T00:00:01Z');

/** sinon's browser build (global `sinon`), whose useFakeTimers is @sinonjs/fake-timers. */
const SINON = readFileSync(createRequire(import.meta.url).resolve('sinon/pkg/sinon.js'), 'utf8');

/**
 * Runs in each page before its scripts, after SINON. The clock: sinon's fake timers at `start`, paused
 * (they move only when the bench calls `__bench.advance`). Visibility: headless Chromium cannot hide a
 * page (every page is "visible"), so document.visibilityState is overridden and visibilitychange
 * dispatched. In flight: each fetch counts until its answer's body is in (read from a copy) or it fails,
 * and one real task more, so whatever the page does with the answer (the next poll's timer) is done.
 */
const PAGE_SETUP = (start) => {
  const realSetTimeout = window.setTimeout.bind(window);
  const clock = window.sinon.useFakeTimers({
    now: start,
    toFake: [
      'Date',
      'setTimeout',
      'clearTimeout',
      'setInterval',
      'clearInterval',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'performance',
    ],
  });

  let hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });

  let inFlight = 0;
  const realFetch = window.fetch;
  window.fetch = function (...args) {
    inFlight += 1;
    const done = () => realSetTimeout(() => (inFlight -= 1));
    const answer = realFetch.apply(this, args);
    answer.then((response) => response.clone().arrayBuffer().then(done, done), done);
    return answer;
  };
  const settled = () =>
    new Promise((resolve) => {
      const check = () => (inFlight === 0 ? resolve() : realSetTimeout(check, 1));
      realSetTimeout(check);
    });

  window.__bench = {
    settled,
    /** Moves the clock on by `ms` (timers due fire in order), then waits until no fetch is in flight. */
    async advance(ms) {
      await clock.tickAsync(ms);
      await settled();
    },
    setHidden(value) {
      hidden = value;
      document.dispatchEvent(new Event('visibilitychange'));
    },
  };
};

async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Advances every tab's clock together, one step at a time, each step settled in every tab. */
async function advance(pages, ms) {
  for (let t = 0; t < ms; t += STEP_MS) {
    await Promise.all(pages.map((page) => page.evaluate((step) => window.__bench.advance(step), STEP_MS)));
  }
}

/**
 * A tab of the status page, its element's first status in (its first poll answered, or pinned).
 * `watch(page)` runs before the page loads (a request listener).
 */
async function openTab(context, url, watch = () => {}) {
  const page = await context.newPage();
  watch(page);
  await page.evaluateOnNewDocument(SINON);
  await page.evaluateOnNewDocument(PAGE_SETUP, START);
  await page.goto(url);
  const ready = await waitFor(
    page,
    () => !['checking', undefined].includes(document.querySelector('bio-reader-status')?.status?.state),
    undefined,
    5000,
  );
  if (!ready) throw new Error('<bio-reader-status> gave no first status within 5 s');
  await page.evaluate(() => window.__bench.settled());
  return page;
}

/** One scenario in a fresh context; returns /status requests seen in the measured virtual minute. */
async function scenario(shared, server, attrs, { hideAfterMs, countRequestsTo, secondMinuteToo = false, tabs = 1 } = {}) {
  const b = await browser(shared);
  const context = await b.createBrowserContext();
  try {
    const url = `${server.origin}/status-page?${encodeURIComponent(attrs)}`;
    let browserRequests = 0;
    const countRequests = (page) =>
      page.on('request', (r) => {
        if (countRequestsTo && r.url().startsWith(countRequestsTo)) browserRequests += 1;
      });
    server.hits.clear();
    const pages = [await openTab(context, url, countRequests)];
    // More tabs of the same origin, opened one after the other: one of them leads and polls (docs/core.md).
    for (let i = 1; i < tabs; i += 1) pages.push(await openTab(context, url));
    const [page] = pages;
    const counted = () => (countRequestsTo ? browserRequests : server.count('/ls/status'));
    if (hideAfterMs !== undefined) {
      await advance(pages, hideAfterMs);
      const beforeHide = counted();
      await page.evaluate(() => window.__bench.setHidden(true));
      await advance(pages, 60_000 - STEP_MS);
      const hidden = counted() - beforeHide;
      // Counted from before it shows again: the poll it makes as it becomes visible is in.
      const beforeShow = counted();
      await page.evaluate(() => window.__bench.setHidden(false));
      await advance(pages, 10_000);
      const state = await page.evaluate(() => document.querySelector('bio-reader-status')?.status?.state);
      return { perMinute: hidden, resumed: counted() - beforeShow, state };
    }
    // [0, 60 s): a poll at exactly 60 s belongs to the next minute.
    await advance(pages, 60_000 - STEP_MS);
    const perMinute = counted();
    let secondMinute;
    if (secondMinuteToo) {
      await advance(pages, 60_000);
      secondMinute = counted() - perMinute;
    }
    const state = await page.evaluate(() => document.querySelector('bio-reader-status')?.status?.state);
    return { perMinute, secondMinute, state };
  } finally {
    await context.close();
  }
}

export async function runPolling(shared) {
  const { defined, why } = await definedTags(shared, ['bio-reader-status']);
  const items = ['visible', 'five tabs of one origin', 'hidden', 'pinned', 'local service down'];
  if (defined.length === 0) return { rows: items.map((i) => notMeasured(SECTION, `/status per minute: ${i}`, why)) };

  const server = await startServer(shared.root, {
    routes: {
      'GET /ls/status': (_req, res) => sendJson(res, 200, { workstationId: 'ws-1', devices: [{ deviceId: 'reader-1', connected: true }] }),
      '/status-page': (req, res) => {
        const attrs = decodeURIComponent(new URL(req.url, 'http://x').search.slice(1));
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(
          `<!doctype html><html lang="en"><body><bio-reader-status ${attrs}></bio-reader-status><script src="/dist/bioid-elements.js"></script></body></html>`,
        );
      },
    },
  });
  const rows = [];
  try {
    const local = `local-service-url="${server.origin}/ls"`;
    const visible = await scenario(shared, server, local);
    rows.push(
      row(
        SECTION,
        '/status per minute: visible (default 3 s interval)',
        fmt(visible.perMinute),
        '',
        '—',
        `20 expected at one poll per 3 s; state ${visible.state}`,
      ),
    );

    const five = await scenario(shared, server, local, { tabs: 5, secondMinuteToo: true });
    rows.push(
      row(
        SECTION,
        '/status per minute: five tabs of one origin (first minute, second minute)',
        `${fmt(five.perMinute)}, ${fmt(five.secondMinute)}`,
        '≤ 20 from the second minute',
        five.secondMinute <= 20 ? 'pass' : 'MISS',
        `one tab's worth: the tabs elect one poller (Web Locks) and share its statuses (BroadcastChannel); each tab asks once as it opens, before it hears the leader; a poller per tab would make 100; state ${five.state}`,
      ),
    );

    const hidden = await scenario(shared, server, local, { hideAfterMs: 5_000 });
    rows.push(
      row(
        SECTION,
        '/status per minute: hidden',
        fmt(hidden.perMinute),
        '= 0',
        hidden.perMinute === 0 ? 'pass' : 'MISS',
        [
          hidden.perMinute ? `${hidden.perMinute} polls while hidden` : '',
          `hidden after 5 s visible; ${hidden.resumed} poll(s) in the 10 s after it became visible again`,
        ]
          .filter(Boolean)
          .join('; '),
      ),
    );

    const pinned = await scenario(shared, server, `${local} workstation-id="ws-1" device-id="reader-1"`);
    rows.push(
      row(
        SECTION,
        '/status per minute: pinned',
        fmt(pinned.perMinute),
        '= 0',
        pinned.perMinute === 0 ? 'pass' : 'MISS',
        `state ${pinned.state}`,
      ),
    );

    const port = await closedPort();
    const downUrl = `http://127.0.0.1:${port}`;
    const down = await scenario(shared, server, `local-service-url="${downUrl}"`, {
      countRequestsTo: `${downUrl}/status`,
      secondMinuteToo: true,
    });
    rows.push(
      row(
        SECTION,
        '/status per minute: local service down (first minute, second minute)',
        `${fmt(down.perMinute)}, ${fmt(down.secondMinute)}`,
        '',
        '—',
        `connection refused; the wait doubles from 6 s up to 60 s (polls at 0, 6, 18, 42, 90 s, then every 60 s: 4 in the first minute, 1 in the second); state ${down.state}; counted as browser requests`,
      ),
    );
  } finally {
    await server.close();
  }
  return {
    rows,
    methods: [
      `Polling: <bio-reader-status> from the built bundle in headless Chromium (puppeteer-core); /status served by a local server that counts requests (the down case: a closed port on 127.0.0.1, requests counted by puppeteer's request event). Virtual minutes on sinon's fake timers (sinon/pkg/sinon.js, which bundles @sinonjs/fake-timers, put into each page before its scripts: timers, Date and performance faked, the network real). Every tab's clock is advanced in ${STEP_MS} ms steps (clock.tickAsync); after each step the bench waits in real time until no fetch of any tab is in flight (its answer read and handled), so every poll starts on time and the counts are exact and repeatable. Hidden: headless Chromium cannot hide a page, so document.visibilityState is overridden before the page's scripts run and visibilitychange dispatched (the core listens to exactly that).`,
    ],
  };
}
