// Section 5: /status polling of <bio-reader-status> (the core's watchStatus) per minute while the page
// is visible, hidden, pinned, and with the local service down. Real Chromium and the built bundle; a
// virtual minute with Playwright's clock (page timers and Date are fake, the network is real):
// the clock is advanced in 100 ms steps with a few real milliseconds between steps for each fetch to
// come back, so a poll can start up to one step late (a visible minute then shows 19–20 polls for 20).
import { createServer } from 'node:net';
import { browser, definedTags, sendJson, startServer } from './browser.mjs';
import { fmt, notMeasured, row } from './report.mjs';

const SECTION = '5 Polling';
const STEP_MS = 100;
const REAL_WAIT_MS = 4;

/** Visibility cannot be switched in headless Chromium (every page is "visible"); the page's
 * document.visibilityState is overridden before the bundle loads and visibilitychange dispatched. */
const VISIBILITY_SHIM = () => {
  window.__hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (window.__hidden ? 'hidden' : 'visible') });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => window.__hidden });
  window.__setHidden = (hidden) => {
    window.__hidden = hidden;
    document.dispatchEvent(new Event('visibilitychange'));
  };
};

async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function advance(page, ms) {
  for (let t = 0; t < ms; t += STEP_MS) {
    await page.clock.runFor(STEP_MS);
    await new Promise((r) => setTimeout(r, REAL_WAIT_MS));
  }
}

/** One scenario in a fresh context; returns /status requests seen in the measured virtual minute. */
async function scenario(shared, server, attrs, { hideAfterMs, countRequestsTo, secondMinuteToo = false, tabs = 1 } = {}) {
  const b = await browser(shared);
  const context = await b.newContext();
  try {
    await context.addInitScript(VISIBILITY_SHIM);
    // Installed, Playwright's clock still follows real time; paused, it moves only when advanced.
    await context.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
    await context.clock.pauseAt(new Date('2026-01-01T00:00:01Z'));
    const page = await context.newPage();
    let browserRequests = 0;
    page.on('request', (r) => {
      if (countRequestsTo && r.url().startsWith(countRequestsTo)) browserRequests += 1;
    });
    server.hits.clear();
    await page.goto(`${server.origin}/status-page?${encodeURIComponent(attrs)}`);
    await page.waitForFunction(() => customElements.get('bio-reader-status') !== undefined, null, { timeout: 5000 });
    // More tabs of the same origin, opened one after the other: one of them leads and polls (docs/core.md).
    for (let i = 1; i < tabs; i += 1) {
      const tab = await context.newPage();
      await tab.goto(`${server.origin}/status-page?${encodeURIComponent(attrs)}`);
      await tab.waitForFunction(() => customElements.get('bio-reader-status') !== undefined, null, { timeout: 5000 });
    }
    const counted = () => (countRequestsTo ? browserRequests : server.count('/ls/status'));
    if (hideAfterMs !== undefined) {
      await advance(page, hideAfterMs);
      const beforeHide = counted();
      await page.evaluate(() => window.__setHidden(true));
      await advance(page, 60_000 - STEP_MS);
      const hidden = counted() - beforeHide;
      await page.evaluate(() => window.__setHidden(false));
      const beforeShow = counted();
      await advance(page, 10_000);
      const state = await page.evaluate(() => document.querySelector('bio-reader-status')?.status?.state);
      return { perMinute: hidden, resumed: counted() - beforeShow, state };
    }
    // [0, 60 s): a poll at exactly 60 s belongs to the next minute.
    await advance(page, 60_000 - STEP_MS);
    const perMinute = counted();
    let secondMinute;
    if (secondMinuteToo) {
      await advance(page, 60_000);
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
      `Polling: <bio-reader-status> from the built bundle in headless Chromium; /status served by a local server that counts requests (the down case: a closed port on 127.0.0.1, requests counted by Playwright's request event). One virtual minute per case with Playwright's clock (timers and Date faked, network real), advanced in ${STEP_MS} ms steps with ${REAL_WAIT_MS} ms of real time between steps, so each poll may start up to one step late. Hidden: headless Chromium cannot hide a page, so document.visibilityState is overridden by an init script and visibilitychange dispatched (the core listens to exactly that).`,
    ],
  };
}
