// The test harness that drives the three engines, with the executables from scripts/browsers.mjs (the
// Node tests' browsers, web-test-runner's through test/support/wtr-engines.ts; the bench and
// scripts/screenshot.mjs launch their Chromium here too, through tsx):
//  - Chromium: puppeteer-core (CDP: the security test reads Chromium's network console lines);
//  - Firefox (firefox-esr): puppeteer-core over WebDriver BiDi, prefs that keep it off the network;
//  - WebKit (WebKitGTK MiniBrowser): webdriverio against WebKitWebDriver on a loopback port, in an Xvfb
//    display this module starts (MiniBrowser has no headless mode); one WebKitWebDriver per context,
//    since it holds one session at a time.
// It gives tests a small page API (goto, fill, click, waitFor a selector, text or function, evaluate,
// console messages, cookies, the same API inside an iframe); a selector may pierce one open shadow root with
// `host >>> inner`.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type NetConnectOpts } from 'node:net';
import type {
  Browser as PuppeteerBrowser,
  BrowserContext as PuppeteerBrowserContext,
  CDPSession,
  ElementHandle,
  Frame as PuppeteerFrame,
  Page as PuppeteerTab,
} from 'puppeteer-core';
import type { remote as wdioRemote } from 'webdriverio';
import {
  CHROMIUM_ARGS,
  FIREFOX_PREFS,
  chromiumLaunch,
  firefoxPath,
  miniBrowserPath,
  webkitDriverPath,
  xvfbPath,
} from '../../scripts/browsers.mjs';

export type Engine = 'chromium' | 'firefox' | 'webkit';

export const ENGINES: Engine[] = ['chromium', 'firefox', 'webkit'];

export interface ConsoleMessage {
  type: string;
  text: string;
}

export interface Cookie {
  name: string;
  value: string;
  httpOnly: boolean;
  sameSite: string;
}

/** A function run in the page, or its source: see "Page-side helpers" below for why the harness sends source. */
type PageFunction<A, R> = ((arg: A) => R | Promise<R>) | string;

export interface Page {
  /** Console messages and uncaught errors (Chromium and Firefox; WebDriver classic has none for WebKit). */
  consoleMessages: ConsoleMessage[];
  timeout: number;
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  url(): Promise<string>;
  evaluate<R, A = undefined>(fn: PageFunction<A, R>, arg?: A): Promise<R>;
  waitForFunction<R, A = undefined>(fn: PageFunction<A, R>, arg?: A, options?: { timeout?: number }): Promise<R>;
  waitForSelector(selector: string, options?: { timeout?: number }): Promise<void>;
  waitForText(selector: string, pattern: RegExp | string, options?: { timeout?: number }): Promise<string>;
  text(selector: string): Promise<string>;
  attribute(selector: string, name: string): Promise<string | null>;
  count(selector: string): Promise<number>;
  fill(selector: string, value: string): Promise<void>;
  select(selector: string, value: string): Promise<void>;
  setChecked(selector: string, checked: boolean): Promise<void>;
  click(selector: string): Promise<void>;
  clickAndWaitForLoad(selector: string): Promise<void>;
  /** The same API inside the iframe `selector` of this page (its document as it is when each call runs). */
  frame(selector: string): Promise<Page>;
  close(): Promise<void>;
}

/** A permission as Chromium's CDP Browser.setPermission takes it. */
export interface PermissionSetting {
  permission: { name: string };
  setting: 'granted' | 'denied' | 'prompt';
  origin?: string;
  embeddedOrigin?: string;
}

export interface Context {
  newPage(): Promise<Page>;
  cookies(url: string): Promise<Cookie[]>;
  /** Chromium only: a permission of this context set as the user would (CDP Browser.setPermission). */
  setPermission?(options: PermissionSetting): Promise<void>;
  close(): Promise<void>;
}

export interface Browser {
  engine: Engine;
  name: string;
  /** Chromium and Firefox: the puppeteer-core browser itself (screenshots, media emulation). */
  puppeteer?: PuppeteerBrowser;
  version(): Promise<string> | string;
  newContext(): Promise<Context>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Preferences Firefox starts with besides FIREFOX_PREFS (the other engines ignore them). */
  firefoxPrefs?: Record<string, unknown>;
}

/** The engines `npm test` runs, narrowed with BIOID_ENGINES=chromium,firefox (comma list) when set. */
export function selectedEngines(env: Record<string, string | undefined> = process.env): Engine[] {
  const wanted = (env.BIOID_ENGINES ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const known = (e: string): e is Engine => (ENGINES as string[]).includes(e);
  const unknown = wanted.filter((e) => !known(e));
  if (unknown.length) throw new Error(`BIOID_ENGINES: unknown engine ${unknown.join(', ')} (known: ${ENGINES.join(', ')})`);
  return wanted.length ? wanted.filter(known) : ENGINES;
}

export const ENGINE_NAMES: Record<Engine, string> = { chromium: 'Chromium', firefox: 'Firefox', webkit: 'WebKit' };

const DEFAULT_TIMEOUT = 10_000;
/**
 * The bound on a page load (goto, reload, a click that loads a new document): a bound for a hang, not a pace.
 * WordPress's block editor took over 10 s to load on a 2-core machine loaded to 20.
 */
const LOAD_TIMEOUT = 30_000;

// ---------------------------------------------------------------------------------------------------
// Page-side helpers, sent as source: this file runs through tsx (esbuild with keepNames), which wraps every
// named function in __name(), a helper of this module that the page does not have; a function's String()
// would carry the call into the page. Source strings reach the page as written. A test's own page function
// passes as a function when it names none inside it (an inline arrow gets no __name()).

const DEEP = `(sel) => {
  const parts = sel.split('>>>').map((p) => p.trim());
  let root = document;
  let el = null;
  for (let i = 0; i < parts.length; i++) {
    el = root.querySelector(parts[i]);
    if (!el) return null;
    if (i < parts.length - 1) {
      root = el.shadowRoot;
      if (!root) return null;
    }
  }
  return el;
}`;

const DEEP_ALL = `(sel) => {
  const parts = sel.split('>>>').map((p) => p.trim());
  let roots = [document];
  for (let i = 0; i < parts.length - 1; i++) {
    roots = roots.flatMap((r) => [...r.querySelectorAll(parts[i])]).map((e) => e.shadowRoot).filter(Boolean);
  }
  return roots.flatMap((r) => [...r.querySelectorAll(parts[parts.length - 1])]);
}`;

/** The body of a function run in the page: `fn` (source) applied to `arg`, awaited. */
const call = (fn: string, arg: unknown) => `return (async () => (${fn})(${JSON.stringify(arg)}))()`;

// ---------------------------------------------------------------------------------------------------
// Page API shared by the engines; each engine supplies `run(body)`, `clickElement(selector)`, navigation.

type WaitOptions = { timeout?: number };

/** An error's message (what a rejection carries is unknown to TypeScript). */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

abstract class BasePage implements Page {
  consoleMessages: ConsoleMessage[] = [];
  timeout = DEFAULT_TIMEOUT;

  /** Runs `body` (a function body, as WebDriver's execute takes it) in the page; resolves to its result. */
  protected abstract run(body: string): Promise<unknown>;
  /** Clicks the element `selector` (found with DEEP) as the user would. */
  protected abstract clickElement(selector: string): Promise<void>;
  abstract goto(url: string): Promise<void>;
  abstract reload(): Promise<void>;
  abstract frame(selector: string): Promise<Page>;
  abstract close(): Promise<void>;

  /** Runs `fn(arg)` in the page (a function or its source) and returns its JSON-able result. */
  evaluate<R, A = undefined>(fn: PageFunction<A, R>, arg?: A): Promise<R> {
    return this.run(call(String(fn), arg === undefined ? null : arg)) as Promise<R>;
  }

  async waitForFunction<R, A = undefined>(fn: PageFunction<A, R>, arg?: A, { timeout = this.timeout }: WaitOptions = {}): Promise<R> {
    const deadline = Date.now() + timeout;
    let last: unknown;
    for (;;) {
      try {
        const value = await this.evaluate(fn, arg);
        if (value) return value;
      } catch (error) {
        last = error; // navigation in progress, say
      }
      if (Date.now() > deadline)
        throw new Error(`waitForFunction timed out after ${timeout} ms: ${String(fn).slice(0, 200)}${last ? ` (${messageOf(last)})` : ''}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  waitForSelector(selector: string, options?: WaitOptions): Promise<void> {
    return this.waitForFunction(
      `(sel) => { const el = (${DEEP})(sel); return Boolean(el && el.isConnected && el.getClientRects().length); }`,
      selector,
      options,
    ).then(
      () => undefined,
      (error: unknown) => {
        throw new Error(`waitForSelector ${selector}: ${messageOf(error)}`);
      },
    );
  }

  /** Waits until the text of `selector` matches `pattern` (a RegExp or a substring); returns the text. */
  waitForText(selector: string, pattern: RegExp | string, options?: WaitOptions): Promise<string> {
    const source = pattern instanceof RegExp ? { re: pattern.source, flags: pattern.flags } : { sub: String(pattern) };
    return this.waitForFunction<string, object>(
      `({ sel, re, flags, sub }) => { const el = (${DEEP})(sel); if (!el) return false; const t = el.innerText ?? el.textContent ?? ''; return (re !== undefined ? new RegExp(re, flags).test(t) : t.includes(sub)) ? t : false; }`,
      { sel: selector, ...source },
      options,
    ).catch((error: unknown) => {
      throw new Error(`waitForText ${selector} ${String(pattern)}: ${messageOf(error)}`);
    });
  }

  async text(selector: string): Promise<string> {
    await this.waitForSelector(selector);
    return this.evaluate<string, string>(`(sel) => { const el = (${DEEP})(sel); return el.innerText ?? el.textContent; }`, selector);
  }

  attribute(selector: string, name: string): Promise<string | null> {
    return this.evaluate<string | null, object>(
      `({ sel, name }) => { const el = (${DEEP})(sel); return el ? el.getAttribute(name) : null; }`,
      {
        sel: selector,
        name,
      },
    );
  }

  count(selector: string): Promise<number> {
    return this.evaluate<number, string>(`(sel) => (${DEEP_ALL})(sel).length`, selector);
  }

  /** Sets the value of an input or select and fires input and change, as typing or choosing would. */
  async fill(selector: string, value: string): Promise<void> {
    await this.waitForSelector(selector);
    await this.evaluate(
      `({ sel, value }) => { const el = (${DEEP})(sel); el.focus(); el.value = value; el.dispatchEvent(new Event('input', { bubbles: true, composed: true })); el.dispatchEvent(new Event('change', { bubbles: true })); }`,
      { sel: selector, value },
    );
  }

  select(selector: string, value: string): Promise<void> {
    return this.fill(selector, value);
  }

  /** Checks or unchecks a checkbox with a real click when it is not in that state yet. */
  async setChecked(selector: string, checked: boolean): Promise<void> {
    await this.waitForSelector(selector);
    if ((await this.evaluate<boolean, string>(`(sel) => (${DEEP})(sel).checked`, selector)) !== checked) await this.click(selector);
  }

  async click(selector: string): Promise<void> {
    await this.waitForSelector(selector);
    await this.clickElement(selector);
  }

  url(): Promise<string> {
    return this.evaluate<string>('() => location.href');
  }

  /** Clicks `selector` and waits until a new document has loaded (a form submit, a reload button). */
  async clickAndWaitForLoad(selector: string): Promise<void> {
    await this.evaluate('() => { window.__bioidOldDocument = true; }');
    await this.click(selector);
    await this.waitForFunction('() => !window.__bioidOldDocument && document.readyState === "complete"', undefined, {
      timeout: Math.max(this.timeout, LOAD_TIMEOUT),
    });
  }
}

// ---------------------------------------------------------------------------------------------------
// Chromium and Firefox: puppeteer-core.

/** A puppeteer page, or a frame of one (a puppeteer Frame evaluates, clicks and navigates as a page does). */
class PuppeteerPage extends BasePage {
  constructor(readonly page: PuppeteerTab | PuppeteerFrame) {
    super();
    // A frame's console messages and errors are its page's.
    if (!isTab(page)) return;
    page.on('console', (m) => this.consoleMessages.push({ type: m.type(), text: m.text() }));
    page.on('pageerror', (e) => this.consoleMessages.push({ type: 'pageerror', text: String((e as Error | undefined)?.message ?? e) }));
  }

  /** The page itself: a frame has no reload or close of its own. */
  get #tab(): PuppeteerTab {
    if (!isTab(this.page)) throw new Error('a frame is reloaded and closed with its page');
    return this.page;
  }

  protected async run(body: string): Promise<unknown> {
    // A function body, as WebDriver's execute takes it.
    return this.page.evaluate(new Function(body) as () => unknown);
  }

  protected async clickElement(selector: string): Promise<void> {
    const handle = await this.page.evaluateHandle(
      new Function('sel', `return (${DEEP})(sel)`) as (sel: string) => Element | null,
      selector,
    );
    try {
      const element = handle.asElement() as ElementHandle<Element> | null;
      if (!element) throw new Error(`click: no element ${selector}`);
      await element.click();
    } finally {
      await handle.dispose();
    }
  }

  async goto(url: string): Promise<void> {
    await this.page.goto(url, { waitUntil: 'load', timeout: LOAD_TIMEOUT });
  }

  /** The page API inside the iframe `selector` (a puppeteer Frame evaluates and clicks as a page does). */
  async frame(selector: string): Promise<Page> {
    const handle = await this.page.waitForSelector(selector);
    if (!handle) throw new Error(`frame: no element ${selector}`);
    try {
      const frame = await handle.contentFrame();
      if (!frame) throw new Error(`frame: ${selector} is not a frame`);
      return new PuppeteerPage(frame);
    } finally {
      await handle.dispose();
    }
  }

  async reload(): Promise<void> {
    await this.#tab.reload({ waitUntil: 'load', timeout: LOAD_TIMEOUT });
  }

  async close(): Promise<void> {
    await this.#tab.close();
  }
}

/** A puppeteer Page, not a Frame (only a page has `reload`). */
const isTab = (page: PuppeteerTab | PuppeteerFrame): page is PuppeteerTab => 'reload' in page;

class PuppeteerContext implements Context {
  #cdp: CDPSession | undefined;

  constructor(readonly context: PuppeteerBrowserContext) {}

  async newPage(): Promise<Page> {
    const page = new PuppeteerPage(await this.context.newPage());
    return page;
  }

  /**
   * Chromium: sets a permission as the user would (CDP Browser.setPermission, this context only), such as
   * `{ permission: { name: 'storage-access' }, origin: <top-level page>, embeddedOrigin: <frame>, setting: 'granted' }`.
   */
  async setPermission(options: PermissionSetting): Promise<void> {
    // The session stays open: Chromium drops a client's permission overrides when it detaches.
    this.#cdp ??= await this.context.browser().target().createCDPSession();
    await this.#cdp.send('Browser.setPermission', { ...options, browserContextId: this.context.id });
  }

  /** Cookies of the context for `url` (name, value, httpOnly, sameSite). */
  async cookies(url: string): Promise<Cookie[]> {
    const all = await this.context.cookies();
    const host = new URL(url).hostname;
    return all
      .filter((c) => c.domain.replace(/^\./, '') === host)
      .map((c) => ({ name: c.name, value: c.value, httpOnly: c.httpOnly ?? false, sameSite: c.sameSite ?? '' }));
  }

  async close(): Promise<void> {
    await this.#cdp?.detach().catch(() => undefined);
    return this.context.close().catch(() => undefined);
  }
}

// networkEnabled: false: puppeteer's own request tracking is off (nothing here reads page.on('request')).
// Left on, every request of every page became protocol events for puppeteer to handle: a test file loads a
// hundred modules, and over the browser tests that cost Firefox's parent process 30 of its 71 CPU seconds
// and web-test-runner 5 of its 13. A test that watches the network opens a CDP session of its own
// (test/e2e/no-aborted-requests.node.test.ts).
async function launchPuppeteer(engine: 'chromium' | 'firefox', { firefoxPrefs }: LaunchOptions = {}): Promise<Browser> {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser =
    engine === 'firefox'
      ? await puppeteer.launch({
          browser: 'firefox',
          executablePath: firefoxPath(),
          protocol: 'webDriverBiDi',
          headless: true,
          networkEnabled: false,
          extraPrefsFirefox: { ...FIREFOX_PREFS, ...firefoxPrefs },
        })
      : await puppeteer.launch({
          browser: 'chrome',
          ...chromiumLaunch(),
          networkEnabled: false,
          args: CHROMIUM_ARGS,
        });
  return {
    engine,
    name: ENGINE_NAMES[engine],
    version: () => browser.version(),
    puppeteer: browser,
    async newContext(): Promise<Context> {
      return new PuppeteerContext(await browser.createBrowserContext());
    },
    close: () => browser.close().catch(() => undefined),
  };
}

// ---------------------------------------------------------------------------------------------------
// WebKit: webdriverio, WebKitWebDriver, MiniBrowser, Xvfb.

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** True when something accepts a connection at `where` (net.connect's options: a TCP port or a socket path). */
function accepts(where: NetConnectOpts): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(where);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once something accepts connections on 127.0.0.1:`port` (or rejects when `gone()` or after 15 s). */
async function portOpen(port: number, gone: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await accepts({ host: '127.0.0.1', port }))) {
    if (gone() || Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Our Xvfb and WebKitWebDriver processes, ended with the test process even when it dies of an error. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const proc of children) proc.kill('SIGTERM');
});

type Child = ReturnType<typeof child>;

/** A child process whose exit we can await; `stop()` ends it (and only it). */
function child(command: string, args: string[], env: Record<string, string> = {}) {
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  proc.once('exit', () => children.delete(proc));
  let output = '';
  proc.stdout.on('data', (c: Buffer) => (output += String(c)));
  proc.stderr.on('data', (c: Buffer) => (output += String(c)));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  return {
    proc,
    output: () => output,
    exited,
    async stop(): Promise<void> {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

interface Xvfb {
  display: string;
  stop(): Promise<void>;
}

/** Xvfb on a display number it picks itself (-displayfd), so concurrent runs never collide. */
async function startXvfb(): Promise<Xvfb> {
  const path = xvfbPath();
  if (!path) throw new Error('no Xvfb (scripts/browsers.mjs finds or installs it)');
  const xvfb = child(path, ['-displayfd', '1', '-nolisten', 'tcp', '-screen', '0', '1280x1024x24']);
  const display = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Xvfb gave no display within 10 s: ${xvfb.output()}`)), 10_000);
    xvfb.proc.stdout.on('data', () => {
      const match = /^(\d+)\s*$/m.exec(xvfb.output());
      if (match) {
        clearTimeout(timer);
        resolve(`:${match[1]}`);
      }
    });
    void xvfb.exited.then((code) => reject(new Error(`Xvfb exited (${code}): ${xvfb.output()}`)));
  });
  return { display, stop: () => xvfb.stop() };
}

/** A WebDriver session of webdriverio's `remote()`. */
type Session = Awaited<ReturnType<typeof wdioRemote>>;

/** An element reference as WebDriver returns it (W3C key, or the JSON Wire Protocol's). */
type ElementReference = { 'element-6066-11e4-a52e-4f735466cecf'?: string; ELEMENT?: string } | null;

class WebDriverPage extends BasePage {
  constructor(readonly session: Session) {
    super();
  }

  protected async run(body: string): Promise<unknown> {
    return this.session.executeScript(body, []);
  }

  protected async clickElement(selector: string): Promise<void> {
    const element = (await this.session.executeScript(`return (${DEEP})(arguments[0])`, [selector])) as ElementReference;
    const id = element && (element['element-6066-11e4-a52e-4f735466cecf'] ?? element.ELEMENT);
    if (!id) throw new Error(`click: no element ${selector}: ${JSON.stringify(element)}`);
    await this.session.elementClick(id);
  }

  async goto(url: string): Promise<void> {
    await this.session.navigateTo(url);
  }

  /** The page API inside the iframe `selector`: each call switches into the frame and back (WebDriver has one current frame). */
  async frame(selector: string): Promise<Page> {
    await this.waitForSelector(selector);
    return new WebDriverFrame(this.session, selector);
  }

  async reload(): Promise<void> {
    await this.session.refresh();
  }

  async close(): Promise<void> {}
}

class WebDriverFrame extends WebDriverPage {
  constructor(
    session: Session,
    readonly selector: string,
  ) {
    super(session);
  }

  async #inFrame<T>(action: () => Promise<T>): Promise<T> {
    // switchFrame, not the deprecated switchToFrame (which warns on every call); on a classic session it is the same command.
    // findElement's reference is what switchFrame sends for an element (its types ask for a webdriverio element).
    const frame = (await this.session.findElement('css selector', this.selector)) as unknown as WebdriverIO.Element;
    await this.session.switchFrame(frame);
    try {
      return await action();
    } finally {
      await this.session.switchToParentFrame();
    }
  }

  protected override run(body: string): Promise<unknown> {
    return this.#inFrame(() => super.run(body));
  }

  protected override clickElement(selector: string): Promise<void> {
    return this.#inFrame(() => super.clickElement(selector));
  }
}

/** True while Xvfb accepts connections on its display's socket (an Xvfb that has gone accepts none). */
const serving = (xvfb: Xvfb) => accepts({ path: `/tmp/.X11-unix/X${xvfb.display.slice(1)}` });

// MiniBrowser has, rarely and on a loaded machine, failed to open a display that served the sessions
// before and after it ("cannot open display"); WebKitWebDriver then waits minutes for a browser that is
// gone. So a session start gives up as soon as the browser says so (or after SESSION_START_MS), and is
// tried again, on a new Xvfb when the old one no longer answers.
const SESSION_ATTEMPTS = 3;
const SESSION_START_MS = 60_000;

/** One WebKitWebDriver on a free loopback port with one MiniBrowser session on `display`. */
async function startSession(remote: typeof wdioRemote, display: string | undefined): Promise<{ driver: Child; session: Session }> {
  const port = await freePort();
  const driver = child(webkitDriverPath(), [`--host=127.0.0.1`, `--port=${port}`], display ? { DISPLAY: display } : {});
  let timer: NodeJS.Timeout | undefined;
  let watch: (() => void) | undefined;
  try {
    await portOpen(port, () => driver.proc.exitCode !== null);
    // WebKitGTK's own capability, which webdriverio's types do not list (hence a variable, not a literal).
    const capabilities = {
      browserName: 'MiniBrowser',
      'wdio:enforceWebDriverClassic': true,
      'webkitgtk:browserOptions': { binary: miniBrowserPath(), args: ['--automation'] },
    };
    const started = remote({ hostname: '127.0.0.1', port, path: '/', logLevel: 'silent', connectionRetryCount: 2, capabilities });
    started.catch(() => undefined); // when the race below is lost, the driver is stopped under it
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no session within ${SESSION_START_MS / 1000} s`)), SESSION_START_MS);
      watch = () => {
        if (/cannot open display/.test(driver.output())) reject(new Error(`MiniBrowser could not open display ${display}`));
      };
      driver.proc.stdout.on('data', watch);
      driver.proc.stderr.on('data', watch);
    });
    return { driver, session: await Promise.race([started, gaveUp]) };
  } catch (error) {
    await driver.stop();
    throw new Error(`WebKitWebDriver on port ${port}: ${messageOf(error)}\n${driver.output()}`);
  } finally {
    // Started or given up: the driver's later output is the context's, not the start's.
    clearTimeout(timer);
    if (watch) {
      driver.proc.stdout.off('data', watch);
      driver.proc.stderr.off('data', watch);
    }
  }
}

async function launchWebKit(): Promise<Browser> {
  const { remote } = await import('webdriverio');
  // The display's server, as a promise: contexts opened at once wait for the same restart.
  let xvfb = xvfbPath() ? startXvfb() : undefined;
  await xvfb;
  const contexts = new Set<Context>();
  let version = '';

  /** The display for the next session: ours, or a new one when ours no longer answers. */
  async function display(): Promise<string | undefined> {
    if (!xvfb) return undefined;
    const pending = xvfb;
    const server = await pending;
    // Checked and replaced with no await between: of the contexts that found it silent, one restarts it.
    if (!(await serving(server)) && xvfb === pending) {
      process.stderr.write(`WebKit: Xvfb on ${server.display} no longer answers; starting another\n`);
      xvfb = server.stop().then(startXvfb);
    }
    return (await xvfb).display;
  }

  async function openSession(): Promise<{ driver: Child; session: Session }> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startSession(remote, await display());
      } catch (error) {
        if (attempt === SESSION_ATTEMPTS) throw error;
        process.stderr.write(
          `WebKit: session attempt ${attempt} of ${SESSION_ATTEMPTS} failed, trying again: ${messageOf(error).split('\n')[0]}\n`,
        );
      }
    }
  }

  return {
    engine: 'webkit',
    name: ENGINE_NAMES.webkit,
    version: () => version,
    /** A context is a WebKitWebDriver of its own with one MiniBrowser session (ephemeral data). */
    async newContext(): Promise<Context> {
      const { driver, session } = await openSession();
      version = (session.capabilities as { browserVersion?: string }).browserVersion ?? version;
      await session.setTimeouts(undefined, LOAD_TIMEOUT, 30_000); // implicit, page load, script
      let page: Page | undefined;
      const context: Context = {
        async newPage(): Promise<Page> {
          if (page) throw new Error('WebKit contexts have one page');
          page = new WebDriverPage(session);
          return page;
        },
        async cookies(url: string): Promise<Cookie[]> {
          const all = await session.getAllCookies();
          const host = new URL(url).hostname;
          return all
            .filter((c) => (c.domain ?? host).replace(/^\./, '') === host)
            .map((c) => ({ name: c.name, value: c.value, httpOnly: c.httpOnly ?? false, sameSite: c.sameSite ?? '' }));
        },
        async close() {
          contexts.delete(context);
          await session.deleteSession().catch(() => undefined);
          await driver.stop();
        },
      };
      contexts.add(context);
      return context;
    },
    async close() {
      await Promise.all([...contexts].map((c) => c.close()));
      await (await xvfb)?.stop();
    },
  };
}

/**
 * Launches one engine: { engine, name, version(), newContext() -> { newPage(), cookies(url), close() }, close() }.
 * `options.firefoxPrefs`: preferences Firefox starts with besides FIREFOX_PREFS (the other engines ignore them).
 */
export function launch(engine: Engine, options: LaunchOptions = {}): Promise<Browser> {
  if (engine === 'webkit') return launchWebKit();
  if (engine === 'chromium' || engine === 'firefox') return launchPuppeteer(engine, options);
  throw new Error(`unknown engine ${String(engine)}`);
}
