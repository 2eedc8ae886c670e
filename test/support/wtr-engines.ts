// web-test-runner launchers for the three engines (web-test-runner.config.mjs), over the test harness that
// launches them for the Node tests too (test/support/engines.ts): WTR's own Firefox/WebKit launchers need
// Playwright's patched browser builds, which Debian does not ship.
// A test file is one page; its test framework reports back to the dev server by itself, so a session
// is just "open this URL" and "close it".
import type { BrowserLauncher } from '@web/test-runner';
import { ENGINE_NAMES, launch, selectedEngines, type Browser, type Context, type Engine, type Page } from './engines.js';

/** A test file's page: its document opened, and left for about:blank. */
interface Session {
  page: { goto(url: string): Promise<void>; close(): Promise<void> };
  url: string;
}

/** A WTR BrowserLauncher for `engine` ('chromium' | 'firefox' | 'webkit'). */
export function engineLauncher(engine: Engine): BrowserLauncher {
  let browser: Browser | undefined;
  let context: Context | undefined;
  const sessions = new Map<string, Session>();
  let queue: Promise<unknown> = Promise.resolve(); // one page, one test file at a time
  let tab: Page | undefined; // every test file runs in one page, one after the other

  // One page for every file, each a new document in it: a new tab per file cost Chromium and Firefox a
  // second of CPU each (a renderer started and torn down), more than most files' tests. A document
  // starts with its own globals and custom element registry; what an origin keeps across documents
  // (storage, caches) the tests set up and clear themselves, as they must where a file follows another.
  const openPage = async (): Promise<Session['page']> => {
    if (!context) throw new Error(`${ENGINE_NAMES[engine]}: a session before initialize()`);
    const page = (tab ??= await context.newPage());
    return { goto: (url) => page.goto(url), close: () => page.goto('about:blank') };
  };
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
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
    startSession(sessionId: string, url: string) {
      return serially(async () => {
        const page = await openPage();
        sessions.set(sessionId, { page, url });
        await page.goto(url);
      });
    },
    isActive(sessionId: string) {
      return sessions.has(sessionId);
    },
    getBrowserUrl(sessionId: string) {
      return sessions.get(sessionId)?.url;
    },
    startDebugSession() {
      throw new Error(`${ENGINE_NAMES[engine]}: debug sessions are not supported; run a single file with --manual instead.`);
    },
    stopSession(sessionId: string) {
      const session = sessions.get(sessionId);
      sessions.delete(sessionId);
      return serially(async () => {
        await session?.page.close().catch(() => undefined);
        return {};
      });
    },
  };
}

/** A launcher for each engine `npm test` runs (BIOID_ENGINES narrows them: test/support/engines.ts). */
export function selectedLaunchers(): BrowserLauncher[] {
  return selectedEngines().map(engineLauncher);
}
