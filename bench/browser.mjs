// Shared by the Chromium sections: one headless Chromium (puppeteer-core, launched by the test harness
// test/support/engines.ts with the system browser scripts/browsers.mjs finds) and a small HTTP server on
// 127.0.0.1 port 0 that serves pages, dist/ files and per-section JSON routes, and counts every request
// by path.
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

let enginePromise;

/**
 * One browser for the whole bench: the puppeteer-core Browser of test/support/engines.ts's Chromium, loaded
 * through tsx (it is TypeScript, and `node bench/startup-profile.mjs` runs without tsx registered).
 * `shared.chromiumVersion` is filled in for the report.
 */
export async function browser(shared) {
  enginePromise ??= tsImport('../test/support/engines.ts', import.meta.url).then(({ launch }) => launch('chromium'));
  const engine = await enginePromise;
  // "HeadlessChrome/156.0.8078.108": the number is what the report shows.
  shared.chromiumVersion = (await engine.version()).replace(/^\D*\//, '');
  return engine.puppeteer;
}

export async function closeBrowser() {
  if (enginePromise) {
    const engine = await enginePromise;
    enginePromise = undefined;
    await engine.close();
  }
}

/**
 * A server for one section. `routes` maps `METHOD /path` (or `/path` for any method) to a handler
 * `(req, res, url) => void`; `pages` maps paths to HTML; `/dist/*` and `/cache/*` serve files of the
 * project. `hits` counts requests per path.
 */
export async function startServer(root, { routes = {}, pages = {} } = {}) {
  const hits = new Map();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const route = routes[`${req.method} ${url.pathname}`] ?? routes[url.pathname];
    if (route) return route(req, res, url);
    if (pages[url.pathname] !== undefined) return send(res, 200, 'text/html; charset=utf-8', pages[url.pathname]);
    const file = url.pathname.startsWith('/dist/')
      ? join(root, url.pathname)
      : url.pathname.startsWith('/cache/')
        ? join(root, '.cache/bench', url.pathname.slice('/cache/'.length))
        : undefined;
    if (file && !file.includes('..') && existsSync(file)) {
      return send(res, 200, 'text/javascript; charset=utf-8', readFileSync(file));
    }
    send(res, 404, 'text/plain', 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    count: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

export function send(res, status, type, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

export const sendJson = (res, status, body, headers = {}) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);

/**
 * Time-bounded wait for a page-side condition; resolves false instead of throwing on timeout. Polled
 * from Node, so it works on pages whose timers are fake (bench/polling.mjs).
 */
export async function waitFor(page, fn, arg, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(fn, arg).catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const ELEMENT_TAGS = ['bio-enroll', 'bio-verify', 'bio-search', 'bio-reader-status'];

/**
 * Which of the tags the built bundle defines (a page loads it and waits up to 3 s). Lets the
 * element-dependent parts say "not measured" while the elements are not built yet.
 */
export async function definedTags(shared, tags = ELEMENT_TAGS) {
  const bundle = join(shared.root, 'dist/bioid-elements.js');
  if (!existsSync(bundle)) return { defined: [], why: 'dist/bioid-elements.js is missing (npm run build)' };
  const server = await startServer(shared.root, {
    pages: { '/': '<!doctype html><script src="/dist/bioid-elements.js"></script>' },
  });
  const b = await browser(shared);
  const page = await b.newPage();
  try {
    await page.goto(`${server.origin}/`);
    await waitFor(page, (t) => t.every((tag) => customElements.get(tag)), tags, 3000);
    const defined = await page.evaluate((t) => t.filter((tag) => customElements.get(tag)), tags);
    const missing = tags.filter((t) => !defined.includes(t));
    return { defined, why: missing.length ? `the bundle does not define ${missing.map((t) => `<${t}>`).join(', ')} yet` : '' };
  } finally {
    await page.close();
    await server.close();
  }
}
