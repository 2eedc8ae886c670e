// web-test-runner launchers for the three engines, over the one helper (scripts/engines.mjs): WTR's own
// Firefox/WebKit launchers need Playwright's patched browser builds, which Debian does not ship.
// A test file is one page; its test framework reports back to the dev server by itself, so a session
// is just "open this URL" and "close it".
import { ENGINE_NAMES, launch } from './engines.mjs';

/** A WTR BrowserLauncher for `engine` ('chromium' | 'firefox' | 'webkit'). */
export function engineLauncher(engine) {
  let browser;
  let context;
  const sessions = new Map(); // sessionId -> { page, url }
  let queue = Promise.resolve(); // one page, one test file at a time
  let tab; // every test file runs in one page, one after the other

  // One page for every file, each a new document in it: a new tab per file cost Chromium and Firefox a
  // second of CPU each (a renderer started and torn down), more than most files' tests. A document
  // starts with its own globals and custom element registry; what an origin keeps across documents
  // (storage, caches) the tests set up and clear themselves, as they must where a file follows another.
  const openPage = async () => {
    tab ??= await context.newPage();
    return { goto: (url) => tab.goto(url), close: () => tab.goto('about:blank') };
  };
  const serially = (work) => {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };

  return {
    name: ENGINE_NAMES[engine],
    type: `bioid-${engine}`,
    // One file at a time per engine: the three engines already run side by side on 2 cores.
    concurrency: 1,
    async initialize() {
      browser = await launch(engine);
      context = await browser.newContext();
    },
    async stop() {
      await Promise.all([...sessions.values()].map((s) => s.page.close().catch(() => undefined)));
      sessions.clear();
      await context?.close();
      await browser?.close();
    },
    startSession(sessionId, url) {
      return serially(async () => {
        const page = await openPage();
        sessions.set(sessionId, { page, url });
        await page.goto(url);
      });
    },
    isActive(sessionId) {
      return sessions.has(sessionId);
    },
    getBrowserUrl(sessionId) {
      return sessions.get(sessionId)?.url;
    },
    startDebugSession() {
      throw new Error(`${ENGINE_NAMES[engine]}: debug sessions are not supported; run a single file with --manual instead.`);
    },
    stopSession(sessionId) {
      const session = sessions.get(sessionId);
      sessions.delete(sessionId);
      return serially(async () => {
        await session?.page.close().catch(() => undefined);
        return {};
      });
    },
  };
}
