/**
 * End-to-end harness: the simulator and the demo app on 127.0.0.1 port 0, and one headless system
 * Chromium (playwright-core) shared by the tests of a file.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from '../../scripts/chromium.mjs';
import { demoServerOptionsFor, startDemoServer, type RunningDemoServer } from '../../demo/server.js';
import { startSimulator, type RunningSimulator } from '../../demo/sim/simulator.js';

export const CLIENT = { clientId: 'e2e-integrator', clientSecret: 'e2e-secret-0123456789' };
export const USER = { username: 'tester', password: 'correct horse battery staple' };

export interface DemoHarness {
  sim: RunningSimulator;
  demo: RunningDemoServer;
  browser: Browser;
  /** A fresh browser context (its own cookies, caches and service workers), signed in on `path`. */
  signedIn(path: string): Promise<{ context: BrowserContext; page: Page }>;
  /** The simulator control API (as the page's controls use it). */
  control(path: 'finger' | 'device' | 'workstation', body: unknown): Promise<void>;
  /** Console errors about the Content-Security-Policy, from every page opened through `signedIn`. */
  cspViolations: string[];
  close(): Promise<void>;
}

export async function startHarness(): Promise<DemoHarness> {
  const sim = await startSimulator({ ...CLIENT, captureDelayMs: [0, 30] });
  const demo = await startDemoServer(demoServerOptionsFor(sim, CLIENT, USER)).catch(async (error: unknown) => {
    await sim.close();
    throw error;
  });
  const browser = await chromium
    .launch({
      executablePath: chromiumPath(),
      headless: true,
      args: CHROMIUM_ARGS,
    })
    .catch(async (error: unknown) => {
      await demo.close();
      await sim.close();
      throw error;
    });

  const cspViolations: string[] = [];
  return {
    sim,
    demo,
    browser,
    cspViolations,
    async signedIn(path: string) {
      const context = await browser.newContext();
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
      });
      await page.goto(`${demo.url}${path}`);
      await page.fill('input[name=username]', USER.username);
      await page.fill('input[name=password]', USER.password);
      await Promise.all([page.waitForURL(`${demo.url}${path}`), page.click('form.signin button[type=submit]')]);
      return { context, page };
    },
    async control(path, body) {
      const reply = await fetch(`${sim.localService.url}/sim/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!reply.ok) throw new Error(`simulator control ${path} answered ${reply.status}`);
    },
    async close() {
      await browser.close().catch(() => undefined);
      await demo.close();
      await sim.close();
    },
  };
}

export interface Outcome {
  type: 'bio-result' | 'bio-error';
  detail: Record<string, unknown> & { result?: Record<string, unknown>; code?: string; message?: string };
}

/** Clicks the button of the element matched by `selector` and resolves with its bio-result or bio-error. */
export async function runOperation(page: Page, selector: string): Promise<Outcome> {
  // No named inner functions here: tsx would wrap them in a __name() helper that the page lacks.
  const outcome = page.evaluate(
    (sel) =>
      new Promise<{ type: string; detail: unknown }>((resolve) => {
        const el = document.querySelector(sel)!;
        for (const type of ['bio-result', 'bio-error']) {
          el.addEventListener(type, (event) => resolve({ type, detail: JSON.parse(JSON.stringify((event as CustomEvent).detail)) }), { once: true });
        }
      }),
    selector,
  );
  // Make sure the listener is installed before the click.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
  await page.locator(`${selector} button[part~="button"]`).click();
  return (await outcome) as Outcome;
}

/** Waits until the element bundle defined the tags. */
export async function elementsReady(page: Page): Promise<void> {
  await page.waitForFunction(() => ['bio-enroll', 'bio-verify', 'bio-search', 'bio-reader-status'].every((t) => customElements.get(t)));
  await page.waitForSelector('#simulator[data-ready]');
}
