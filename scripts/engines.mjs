// The one helper that drives the three engines for tests, with the executables from scripts/browsers.mjs
// (the bench and scripts/screenshot.mjs launch their Chromium here too):
//  - Chromium: puppeteer-core (CDP: the security test reads Chromium's network console lines);
//  - Firefox (firefox-esr): puppeteer-core over WebDriver BiDi, prefs that keep it off the network;
//  - WebKit (WebKitGTK MiniBrowser): webdriverio against WebKitWebDriver on a loopback port, in an Xvfb
//    display this module starts (MiniBrowser has no headless mode); one WebKitWebDriver per context,
//    since it holds one session at a time.
// It gives tests a small page API (goto, fill, click, waitFor a selector, text or function, evaluate,
// console messages, cookies, the same API inside an iframe); a selector may pierce one open shadow root with
// `host >>> inner`.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { CHROMIUM_ARGS, FIREFOX_PREFS, chromiumLaunch, firefoxPath, miniBrowserPath, webkitDriverPath, xvfbPath } from './browsers.mjs';

export const ENGINES = ['chromium', 'firefox', 'webkit'];

/** The engines `npm test` runs, narrowed with BIOID_ENGINES=chromium,firefox (comma list) when set. */
export function selectedEngines(env = process.env) {
  const wanted = (env.BIOID_ENGINES ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = wanted.filter((e) => !ENGINES.includes(e));
  if (unknown.length) throw new Error(`BIOID_ENGINES: unknown engine ${unknown.join(', ')} (known: ${ENGINES.join(', ')})`);
  return wanted.length ? wanted : ENGINES;
}

export const ENGINE_NAMES = { chromium: 'Chromium', firefox: 'Firefox', webkit: 'WebKit' };

const DEFAULT_TIMEOUT = 10_000;

// ---------------------------------------------------------------------------------------------------
// Page-side helpers, sent as source (no named inner functions: tsx would wrap them in __name()).

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
const call = (fn, arg) => `return (async () => (${fn})(${JSON.stringify(arg)}))()`;

// ---------------------------------------------------------------------------------------------------
// Page API shared by the engines; each engine supplies `run(body)`, `clickElement(selector)`, navigation.

class BasePage {
  consoleMessages = [];
  timeout = DEFAULT_TIMEOUT;

  /** Runs `fn(arg)` in the page (a function or its source) and returns its JSON-able result. */
  evaluate(fn, arg) {
    return this.run(call(String(fn), arg === undefined ? null : arg));
  }

  async waitForFunction(fn, arg, { timeout = this.timeout } = {}) {
    const deadline = Date.now() + timeout;
    let last;
    for (;;) {
      try {
        const value = await this.evaluate(fn, arg);
        if (value) return value;
      } catch (error) {
        last = error; // navigation in progress, say
      }
      if (Date.now() > deadline)
        throw new Error(`waitForFunction timed out after ${timeout} ms: ${String(fn).slice(0, 200)}${last ? ` (${last.message})` : ''}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  waitForSelector(selector, options) {
    return this.waitForFunction(
      `(sel) => { const el = (${DEEP})(sel); return Boolean(el && el.isConnected && el.getClientRects().length); }`,
      selector,
      options,
    ).then(
      () => undefined,
      (error) => {
        throw new Error(`waitForSelector ${selector}: ${error.message}`);
      },
    );
  }

  /** Waits until the text of `selector` matches `pattern` (a RegExp or a substring); returns the text. */
  waitForText(selector, pattern, options) {
    const source = pattern instanceof RegExp ? { re: pattern.source, flags: pattern.flags } : { sub: String(pattern) };
    return this.waitForFunction(
      `({ sel, re, flags, sub }) => { const el = (${DEEP})(sel); if (!el) return false; const t = el.innerText ?? el.textContent ?? ''; return (re !== undefined ? new RegExp(re, flags).test(t) : t.includes(sub)) ? t : false; }`,
      { sel: selector, ...source },
      options,
    ).catch((error) => {
      throw new Error(`waitForText ${selector} ${pattern}: ${error.message}`);
    });
  }

  async text(selector) {
    await this.waitForSelector(selector);
    return this.evaluate(`(sel) => { const el = (${DEEP})(sel); return el.innerText ?? el.textContent; }`, selector);
  }

  attribute(selector, name) {
    return this.evaluate(`({ sel, name }) => { const el = (${DEEP})(sel); return el ? el.getAttribute(name) : null; }`, {
      sel: selector,
      name,
    });
  }

  count(selector) {
    return this.evaluate(`(sel) => (${DEEP_ALL})(sel).length`, selector);
  }

  /** Sets the value of an input or select and fires input and change, as typing or choosing would. */
  async fill(selector, value) {
    await this.waitForSelector(selector);
    await this.evaluate(
      `({ sel, value }) => { const el = (${DEEP})(sel); el.focus(); el.value = value; el.dispatchEvent(new Event('input', { bubbles: true, composed: true })); el.dispatchEvent(new Event('change', { bubbles: true })); }`,
      { sel: selector, value },
    );
  }

  select(selector, value) {
    return this.fill(selector, value);
  }

  /** Checks or unchecks a checkbox with a real click when it is not in that state yet. */
  async setChecked(selector, checked) {
    await this.waitForSelector(selector);
    if ((await this.evaluate(`(sel) => (${DEEP})(sel).checked`, selector)) !== checked) await this.click(selector);
  }

  async click(selector) {
    await this.waitForSelector(selector);
    await this.clickElement(selector);
  }

  url() {
    return this.evaluate('() => location.href');
  }

  /** Clicks `selector` and waits until a new document has loaded (a form submit, a reload button). */
  async clickAndWaitForLoad(selector) {
    await this.evaluate('() => { window.__bioidOldDocument = true; }');
    await this.click(selector);
    await this.waitForFunction('() => !window.__bioidOldDocument && document.readyState === "complete"');
  }
}

// ---------------------------------------------------------------------------------------------------
// Chromium and Firefox: puppeteer-core.

class PuppeteerPage extends BasePage {
  constructor(page) {
    super();
    this.page = page;
    page.on('console', (m) => this.consoleMessages.push({ type: m.type(), text: m.text() }));
    page.on('pageerror', (e) => this.consoleMessages.push({ type: 'pageerror', text: String(e?.message ?? e) }));
  }

  async run(body) {
    // A function body, as WebDriver's execute takes it.
    return this.page.evaluate(new Function(body));
  }

  async clickElement(selector) {
    const handle = await this.page.evaluateHandle(new Function('sel', `return (${DEEP})(sel)`), selector);
    try {
      await handle.asElement().click();
    } finally {
      await handle.dispose();
    }
  }

  async goto(url) {
    await this.page.goto(url, { waitUntil: 'load', timeout: 30_000 });
  }

  /** The page API inside the iframe `selector` (a puppeteer Frame evaluates and clicks as a page does). */
  async frame(selector) {
    const handle = await this.page.waitForSelector(selector);
    try {
      return new PuppeteerPage(await handle.contentFrame());
    } finally {
      await handle.dispose();
    }
  }

  async reload() {
    await this.page.reload({ waitUntil: 'load', timeout: 30_000 });
  }

  close() {
    return this.page.close();
  }
}

class PuppeteerContext {
  constructor(context) {
    this.context = context;
  }

  async newPage() {
    const page = new PuppeteerPage(await this.context.newPage());
    return page;
  }

  /**
   * Chromium: sets a permission as the user would (CDP Browser.setPermission, this context only), such as
   * `{ permission: { name: 'storage-access' }, origin: <top-level page>, embeddedOrigin: <frame>, setting: 'granted' }`.
   */
  async setPermission(options) {
    // The session stays open: Chromium drops a client's permission overrides when it detaches.
    this.cdp ??= await this.context.browser().target().createCDPSession();
    await this.cdp.send('Browser.setPermission', { ...options, browserContextId: this.context.id });
  }

  /** Cookies of the context for `url` (name, value, httpOnly, sameSite). */
  async cookies(url) {
    const all = await this.context.cookies();
    const host = new URL(url).hostname;
    return all
      .filter((c) => c.domain.replace(/^\./, '') === host)
      .map((c) => ({ name: c.name, value: c.value, httpOnly: c.httpOnly, sameSite: c.sameSite }));
  }

  async close() {
    await this.cdp?.detach().catch(() => undefined);
    return this.context.close().catch(() => undefined);
  }
}

// networkEnabled: false: puppeteer's own request tracking is off (nothing here reads page.on('request')).
// Left on, every request of every page became protocol events for puppeteer to handle: a test file loads a
// hundred modules, and over the browser tests that cost Firefox's parent process 30 of its 71 CPU seconds
// and web-test-runner 5 of its 13. A test that watches the network opens a CDP session of its own
// (test/e2e/no-aborted-requests.node.test.ts).
async function launchPuppeteer(engine, { firefoxPrefs } = {}) {
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
    async newContext() {
      return new PuppeteerContext(await browser.createBrowserContext());
    },
    close: () => browser.close().catch(() => undefined),
  };
}

// ---------------------------------------------------------------------------------------------------
// WebKit: webdriverio, WebKitWebDriver, MiniBrowser, Xvfb.

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** True when something accepts a connection at `where` (net.connect's options: a TCP port or a socket path). */
function accepts(where) {
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
async function portOpen(port, gone) {
  const deadline = Date.now() + 15_000;
  while (!(await accepts({ host: '127.0.0.1', port }))) {
    if (gone() || Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Our Xvfb and WebKitWebDriver processes, ended with the test process even when it dies of an error. */
const children = new Set();
process.once('exit', () => {
  for (const proc of children) proc.kill('SIGTERM');
});

/** A child process whose exit we can await; `stop()` ends it (and only it). */
function child(command, args, env) {
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  proc.once('exit', () => children.delete(proc));
  let output = '';
  proc.stdout.on('data', (c) => (output += c));
  proc.stderr.on('data', (c) => (output += c));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  return {
    proc,
    output: () => output,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** Xvfb on a display number it picks itself (-displayfd), so concurrent runs never collide. */
async function startXvfb() {
  const xvfb = child(xvfbPath(), ['-displayfd', '1', '-nolisten', 'tcp', '-screen', '0', '1280x1024x24']);
  const display = await new Promise((resolve, reject) => {
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

class WebDriverPage extends BasePage {
  constructor(session) {
    super();
    this.session = session;
  }

  async run(body) {
    return this.session.executeScript(body, []);
  }

  async clickElement(selector) {
    const element = await this.session.executeScript(`return (${DEEP})(arguments[0])`, [selector]);
    const id = element && (element['element-6066-11e4-a52e-4f735466cecf'] ?? element.ELEMENT);
    if (!id) throw new Error(`click: no element ${selector}: ${JSON.stringify(element)}`);
    await this.session.elementClick(id);
  }

  async goto(url) {
    await this.session.navigateTo(url);
  }

  /** The page API inside the iframe `selector`: each call switches into the frame and back (WebDriver has one current frame). */
  async frame(selector) {
    await this.waitForSelector(selector);
    return new WebDriverFrame(this.session, selector);
  }

  async reload() {
    await this.session.refresh();
  }

  async close() {}
}

class WebDriverFrame extends WebDriverPage {
  constructor(session, selector) {
    super(session);
    this.selector = selector;
  }

  async #inFrame(action) {
    // switchFrame, not the deprecated switchToFrame (which warns on every call); on a classic session it is the same command.
    await this.session.switchFrame(await this.session.findElement('css selector', this.selector));
    try {
      return await action();
    } finally {
      await this.session.switchToParentFrame();
    }
  }

  run(body) {
    return this.#inFrame(() => super.run(body));
  }

  clickElement(selector) {
    return this.#inFrame(() => super.clickElement(selector));
  }
}

/** True while Xvfb accepts connections on its display's socket (an Xvfb that has gone accepts none). */
const serving = (xvfb) => accepts(`/tmp/.X11-unix/X${xvfb.display.slice(1)}`);

// MiniBrowser has, rarely and on a loaded machine, failed to open a display that served the sessions
// before and after it ("cannot open display"); WebKitWebDriver then waits minutes for a browser that is
// gone. So a session start gives up as soon as the browser says so (or after SESSION_START_MS), and is
// tried again, on a new Xvfb when the old one no longer answers.
const SESSION_ATTEMPTS = 3;
const SESSION_START_MS = 60_000;

/** One WebKitWebDriver on a free loopback port with one MiniBrowser session on `display`. */
async function startSession(remote, display) {
  const port = await freePort();
  const driver = child(webkitDriverPath(), [`--host=127.0.0.1`, `--port=${port}`], display ? { DISPLAY: display } : {});
  let timer;
  let watch;
  try {
    await portOpen(port, () => driver.proc.exitCode !== null);
    const started = remote({
      hostname: '127.0.0.1',
      port,
      path: '/',
      logLevel: 'silent',
      connectionRetryCount: 2,
      capabilities: {
        browserName: 'MiniBrowser',
        'wdio:enforceWebDriverClassic': true,
        'webkitgtk:browserOptions': { binary: miniBrowserPath(), args: ['--automation'] },
      },
    });
    started.catch(() => undefined); // when the race below is lost, the driver is stopped under it
    const gaveUp = new Promise((_, reject) => {
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
    throw new Error(`WebKitWebDriver on port ${port}: ${error.message}\n${driver.output()}`);
  } finally {
    // Started or given up: the driver's later output is the context's, not the start's.
    clearTimeout(timer);
    if (watch) {
      driver.proc.stdout.off('data', watch);
      driver.proc.stderr.off('data', watch);
    }
  }
}

async function launchWebKit() {
  const { remote } = await import('webdriverio');
  // The display's server, as a promise: contexts opened at once wait for the same restart.
  let xvfb = xvfbPath() ? startXvfb() : undefined;
  await xvfb;
  const contexts = new Set();
  let version = '';

  /** The display for the next session: ours, or a new one when ours no longer answers. */
  async function display() {
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

  async function openSession() {
    for (let attempt = 1; ; attempt++) {
      try {
        return await startSession(remote, await display());
      } catch (error) {
        if (attempt === SESSION_ATTEMPTS) throw error;
        process.stderr.write(
          `WebKit: session attempt ${attempt} of ${SESSION_ATTEMPTS} failed, trying again: ${error.message.split('\n')[0]}\n`,
        );
      }
    }
  }

  return {
    engine: 'webkit',
    name: ENGINE_NAMES.webkit,
    version: () => version,
    /** A context is a WebKitWebDriver of its own with one MiniBrowser session (ephemeral data). */
    async newContext() {
      const { driver, session } = await openSession();
      version = session.capabilities.browserVersion ?? version;
      await session.setTimeouts(undefined, 30_000, 30_000);
      let page;
      const context = {
        async newPage() {
          if (page) throw new Error('WebKit contexts have one page');
          page = new WebDriverPage(session);
          return page;
        },
        async cookies(url) {
          const all = await session.getAllCookies();
          const host = new URL(url).hostname;
          return all
            .filter((c) => (c.domain ?? host).replace(/^\./, '') === host)
            .map((c) => ({ name: c.name, value: c.value, httpOnly: c.httpOnly, sameSite: c.sameSite }));
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
export function launch(engine, options = {}) {
  if (engine === 'webkit') return launchWebKit();
  if (engine === 'chromium' || engine === 'firefox') return launchPuppeteer(engine, options);
  throw new Error(`unknown engine ${engine}`);
}
