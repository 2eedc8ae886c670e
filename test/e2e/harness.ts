/**
 * End-to-end harness: the simulator and the demo app on 127.0.0.1 port 0, and one browser of an engine
 * (Chromium, Firefox or WebKit, through test/support/engines.ts) shared by the tests of a file.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launch, type Browser, type Context, type Engine, type Page } from '../support/engines.js';
import { demoServerOptionsFor, startDemoServer, type RunningDemoServer } from '../../demo/server.js';
import { startSimulator, type RunningSimulator } from '../../simulator/src/simulator.js';

export { runOperation, type Outcome } from './operations.js';

export const CLIENT = { clientId: 'e2e-integrator', clientSecret: 'e2e-secret-0123456789' };
export const USER = { username: 'tester', password: 'correct horse battery staple' };

export interface DemoHarness {
  sim: RunningSimulator;
  demo: RunningDemoServer;
  browser: Browser;
  /** A fresh browser context (its own cookies, caches and service workers) and its page, signed in on `path`. */
  signedIn(path: string): Promise<{ context: Context; page: Page }>;
  /** A request to the demo app from Node with the context's cookies (as the page would send them). */
  request(context: Context, path: string, init?: RequestInit): Promise<Response>;
  /** The simulator control API (as the page's controls use it). */
  control(path: 'finger' | 'device' | 'workstation', body: unknown): Promise<void>;
  /** Content-Security-Policy violations: the pages' report-uri reports, and console lines where the engine gives them. */
  cspViolations(): string[];
  close(): Promise<void>;
}

/** A collector for the demo pages' CSP reports (report-uri), on its own loopback port. */
async function startReportCollector(reports: string[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      reports.push(`report: ${body}`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/csp`, server };
}

export async function startHarness(engine: Engine): Promise<DemoHarness> {
  const reports: string[] = [];
  const collector = await startReportCollector(reports);
  const sim = await startSimulator({ ...CLIENT, captureDelayMs: [0, 30] });
  const demo = await startDemoServer({ ...demoServerOptionsFor(sim, CLIENT, USER), cspReportUri: collector.url }).catch(
    async (error: unknown) => {
      await sim.close();
      throw error;
    },
  );
  const browser = await launch(engine).catch(async (error: unknown) => {
    await demo.close();
    await sim.close();
    throw error;
  });
  const pages: Page[] = [];

  const request = async (context: Context, path: string, init: RequestInit = {}) => {
    const cookie = (await context.cookies(demo.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    const headers = new Headers(init.headers);
    if (cookie) headers.set('Cookie', cookie);
    return fetch(`${demo.url}${path}`, { ...init, headers, redirect: 'manual' });
  };

  return {
    sim,
    demo,
    browser,
    cspViolations: () => [
      ...reports,
      ...pages.flatMap((page) =>
        page.consoleMessages.filter((m) => /Content.Security.Policy/i.test(m.text)).map((m) => `console: ${m.text}`),
      ),
    ],
    request,
    async signedIn(path: string) {
      const context = await browser.newContext();
      const page = await context.newPage();
      pages.push(page);
      await page.goto(`${demo.url}${path}`);
      await page.fill('input[name=username]', USER.username);
      await page.fill('input[name=password]', USER.password);
      await page.clickAndWaitForLoad('form.signin button[type=submit]');
      const at = await page.url();
      if (at !== `${demo.url}${path}`) throw new Error(`signed in, but at ${at}, not ${path}`);
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
      await new Promise((resolve) => collector.server.close(resolve));
    },
  };
}

/** Waits until the element bundle defined the tags. */
export async function elementsReady(page: Page): Promise<void> {
  await page.waitForFunction(() => ['bio-enroll', 'bio-verify', 'bio-search', 'bio-reader-status'].every((t) => customElements.get(t)));
  await page.waitForSelector('#simulator[data-ready]');
}

/** Requests the page made to URLs starting with `prefix`, from its resource timing (every engine has it). */
export function requestsTo(page: Page, prefix: string): Promise<string[]> {
  return page.evaluate(
    (p: string) =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((n) => n.startsWith(p)),
    prefix,
  );
}
