#!/usr/bin/env node
// The one place that finds (and, on Debian as root, installs) what the tests need from the system: the
// three browser engines, a virtual display for WebKit, PHP with curl for the backend recipes, and Redis for the shared token store. `npm test` runs it first (`npm run browsers`).
//
// Policy: one module, one policy (docs/testing.md, `npm run browsers`):
//  - each requirement comes from its environment variable, else from a system install;
//  - when something is missing on Debian and we are root (or have passwordless sudo), install the Debian
//    packages with apt-get (--no-install-recommends, a policy-rc.d that keeps services from starting,
//    DEBIAN_FRONTEND=noninteractive, apt-get update first), saying what and why;
//  - anywhere else, stop before any test runs with one message that lists what to install or set;
//  - never download a browser build of our own.
// A later requirement is one more entry in REQUIREMENTS.
//
// Everything this module reads from the machine goes through `inputs` (env, uid, os-release text, file
// checks, sudo), so tests can drive the missing paths without touching the machine.
//
// The types (Requirement, Inputs, ...) are JSDoc, which tsc reads for the tests that import this module.
// @ts-check
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * @typedef {object} Requirement
 * @property {string} id
 * @property {string} name
 * @property {string} env
 * @property {string[]} [commands]
 * @property {string[]} [globs]
 * @property {string[]} [files]
 * @property {string} debian
 * @property {string} why
 * @property {(inputs: Inputs) => boolean} [needed]
 */
/**
 * What this module reads from the machine (systemInputs() is the real one).
 * @typedef {object} Inputs
 * @property {Record<string, string | undefined>} env
 * @property {number} uid
 * @property {string} osRelease
 * @property {(path: string) => boolean} isExecutable
 * @property {(dir: string) => string[]} listDir
 * @property {(sudoPath: string) => boolean} canSudo
 * @property {(command: string, args: string[], env: Record<string, string>) => number} run
 * @property {(line: string) => void} log
 * @property {(path: string) => boolean} [exists]
 */
/** @typedef {Requirement & { badEnv?: string }} Missing */
/**
 * @typedef {{ action: 'none' }
 *   | { action: 'install'; packages: string[]; sudo?: string; missing: Missing[] }
 *   | { action: 'stop'; message: string }} Plan
 */

/**
 * What the tests need. `env`: the variable that names it; `commands`: names looked up on PATH;
 * `globs`: absolute paths with one `*` directory level (architecture-neutral) of an executable;
 * `files`: the same for a file that need not be executable (a PHP extension); `debian`: the package.
 * @type {Requirement[]}
 */
export const REQUIREMENTS = [
  // The WordPress suite (test/wordpress): Debian's WordPress and its default theme, PHP's MySQL
  // driver and MariaDB. The suite starts MariaDB on a socket and `php -S` on loopback itself. Needed only
  // where this module can install them; elsewhere that suite skips and says what to install.
  {
    id: 'wordpress',
    name: 'WordPress (Debian)',
    env: 'WORDPRESS_PATH',
    files: ['/usr/share/wordpress/wp-settings.php'],
    debian: 'wordpress',
    why: 'the WordPress plugin suite',
    needed: (inputs) => canInstall(inputs),
  },
  {
    id: 'wordpressTheme',
    name: 'WordPress theme Twenty Twenty-Three',
    env: 'WORDPRESS_THEME_PATH',
    files: ['/usr/share/wordpress/wp-content/themes/twentytwentythree/style.css'],
    debian: 'wordpress-theme-twentytwentythree',
    why: 'the WordPress plugin suite (a theme to render posts with)',
    needed: (inputs) => canInstall(inputs),
  },
  {
    id: 'phpMysql',
    name: "PHP's MySQL driver (mysqli)",
    env: 'PHP_MYSQLI_PATH',
    files: ['/usr/lib/php/*/mysqli.so'],
    debian: 'php-mysql',
    why: 'the WordPress plugin suite',
    needed: (inputs) => canInstall(inputs),
  },
  {
    id: 'mariadb',
    name: 'MariaDB server',
    env: 'MARIADBD_PATH',
    commands: ['mariadbd'],
    globs: ['/usr/sbin/mariadbd'],
    debian: 'mariadb-server',
    why: 'the WordPress plugin suite (its database, on a socket)',
    needed: (inputs) => canInstall(inputs),
  },
  {
    id: 'chromium',
    name: 'Chromium',
    env: 'CHROME_PATH',
    commands: ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'],
    debian: 'chromium',
    why: 'browser tests, end-to-end demo tests, security test, bench and screenshot in Chromium',
  },
  // Chromium's headless shell: the same engine (Blink, V8, Skia, the network stack) without the browser's
  // user interface, which headless Chromium still builds for every window. Measured: three launches of five
  // contexts each, a page with the elements and a screenshot in every context: 10.6 → 3.6 CPU-s. Where
  // this module can install it, every Chromium test runs in it; elsewhere in Chromium itself (chromiumLaunch).
  {
    id: 'chromiumHeadlessShell',
    name: "Chromium's headless shell",
    env: 'CHROME_HEADLESS_SHELL_PATH',
    commands: ['chromium-headless-shell', 'chrome-headless-shell'],
    debian: 'chromium-headless-shell',
    why: 'the Chromium tests, at a third of the CPU of Chromium with its user interface',
    needed: (inputs) => canInstall(inputs),
  },
  {
    id: 'firefox',
    name: 'Firefox',
    env: 'FIREFOX_PATH',
    commands: ['firefox-esr', 'firefox'],
    debian: 'firefox-esr',
    why: 'browser tests and end-to-end demo tests in Firefox (WebDriver BiDi)',
  },
  {
    id: 'webkitDriver',
    name: 'WebKitWebDriver',
    env: 'WEBKIT_WEBDRIVER_PATH',
    commands: ['WebKitWebDriver'],
    debian: 'webkit2gtk-driver',
    why: 'browser tests and end-to-end demo tests in WebKit (WebDriver)',
  },
  {
    id: 'miniBrowser',
    name: 'MiniBrowser (WebKitGTK)',
    env: 'MINIBROWSER_PATH',
    globs: ['/usr/lib/*/webkit2gtk-4.1/MiniBrowser', '/usr/libexec/webkit2gtk-4.1/MiniBrowser'],
    debian: 'webkit2gtk-driver',
    why: 'the WebKit browser that WebKitWebDriver drives',
  },
  {
    id: 'xvfb',
    name: 'Xvfb',
    env: 'XVFB_PATH',
    commands: ['Xvfb'],
    debian: 'xvfb',
    why: 'a virtual display for WebKitGTK (MiniBrowser has no headless mode)',
    // With a display of our own (DISPLAY set), no virtual one is needed.
    needed: (inputs) => !inputs.env.DISPLAY,
  },
  {
    id: 'php',
    name: 'PHP (CLI)',
    env: 'PHP_PATH',
    commands: ['php'],
    debian: 'php-cli',
    why: 'the PHP backend recipes (docs/recipes/php), checked with bioid-broker check',
  },
  {
    id: 'phpCurl',
    name: 'PHP curl extension',
    env: 'PHP_CURL_PATH',
    // The extension directory is named after PHP's API date (/usr/lib/php/20220829/curl.so).
    files: ['/usr/lib/php/*/curl.so'],
    debian: 'php-curl',
    why: "the PHP recipe's client_credentials exchange (curl)",
  },
  // The shared token store suites start their own Redis: on a socket in a temporary folder
  // (test/broker/token-store.node.test.ts), and as TLS server, sentinels and cluster nodes on loopback
  // ports (test/broker/token-store-topologies.node.test.ts). Debian's package is enough: its redis-server
  // has TLS built in and runs every role (--sentinel, --cluster-enabled), and the cluster is formed with
  // CLUSTER commands, not redis-cli (the service itself is kept from starting).
  {
    id: 'redisServer',
    name: 'Redis server',
    env: 'REDIS_SERVER_PATH',
    commands: ['redis-server'],
    globs: ['/usr/bin/redis-server'],
    debian: 'redis-server',
    why: 'the shared token store suite (brokers sharing one Redis)',
  },
];

/**
 * Chromium flags for every launch (chromiumLaunch says headless): no traffic to hosts a closed CI network
 * refuses. Where Chromium itself runs (no headless shell), it still loads the address bar's WebUI popups
 * (chrome://omnibox-popup.top-chrome/) in a renderer of their own for every window, which no test shows:
 * without them a launch costs about half the CPU (measured: a browser and five contexts, 6.2 → 3.4 CPU-s).
 * puppeteer adds these names to its own --disable-features.
 */
/** @type {string[]} */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-dev-shm-usage',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup',
  // Third-party cookies blocked, as headless Chromium blocks them and as Firefox and Safari do by default:
  // the headless shell would let them through, so the tests would see another browser in each mode. A page
  // framed by another site meets the cookie it needs withheld (test/e2e/cross-site.node.test.ts).
  '--test-third-party-cookie-phaseout',
];

/**
 * Firefox preferences that keep it off the network (updates, telemetry, remote settings, portals, ...).
 * @type {Record<string, string | number | boolean>}
 */
export const FIREFOX_PREFS = {
  'app.update.enabled': false,
  'app.update.auto': false,
  'app.normandy.enabled': false,
  'app.shield.optoutstudies.enabled': false,
  'browser.aboutHomeSnippets.updateUrl': '',
  'browser.discovery.enabled': false,
  'browser.newtabpage.enabled': false,
  'browser.newtabpage.activity-stream.feeds.system.topstories': false,
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.ping-centre.telemetry': false,
  'browser.safebrowsing.downloads.enabled': false,
  'browser.safebrowsing.downloads.remote.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  'browser.search.update': false,
  'browser.search.geoip.url': '',
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'browser.shell.checkDefaultBrowser': false,
  'browser.startup.homepage_override.mstone': 'ignore',
  'browser.tabs.remote.separatePrivilegedContentProcess': false,
  'captivedetect.canonicalURL': '',
  'datareporting.healthreport.uploadEnabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'extensions.getAddons.cache.enabled': false,
  'extensions.update.enabled': false,
  'extensions.blocklist.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  'media.gmp-manager.url': '',
  'media.gmp-gmpopenh264.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'network.dns.disablePrefetch': true,
  'network.http.speculative-parallel-limit': 0,
  'network.prefetch-next': false,
  'services.settings.server': 'http://127.0.0.1:1/remote-settings',
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.server': '',
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'security.OCSP.enabled': 0,
  'dom.push.connection.enabled': false,
  'identity.fxaccounts.enabled': false,
  'geo.provider.network.url': '',
  // Startup work no test uses: the built-in add-ons (web-compat fixes for listed sites, screenshots, form
  // fill, the search engines) and a content process started ahead of the next tab. Measured: a launch and
  // five contexts 10.2 → 7.3 CPU-s.
  'extensions.enabledScopes': 0,
  'dom.ipc.processPrelaunch.enabled': false,
};

/**
 * The real machine. Tests pass their own (a fake PATH, uid, os-release, ...).
 * @returns {Inputs}
 */
export function systemInputs() {
  return {
    env: process.env,
    uid: typeof process.getuid === 'function' ? process.getuid() : -1,
    osRelease: (() => {
      try {
        return readFileSync('/etc/os-release', 'utf8');
      } catch {
        return '';
      }
    })(),
    isExecutable: (path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    listDir: (dir) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    },
    /** Passwordless sudo (sudo -n true) where a sudo binary is on PATH. */
    canSudo: (sudoPath) => spawnSync(sudoPath, ['-n', 'true'], { stdio: 'ignore' }).status === 0,
    run: (command, args, env) => spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1,
    log: (line) => console.log(line),
  };
}

/**
 * @param {string} command
 * @param {Inputs} inputs
 */
function onPath(command, inputs) {
  for (const dir of (inputs.env.PATH ?? '').split(delimiter)) {
    if (dir && inputs.isExecutable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/**
 * @param {string} glob
 * @param {Inputs} inputs
 */
function expand(glob, inputs) {
  const at = glob.indexOf('*');
  if (at < 0) return [glob];
  const parent = glob.slice(0, at).replace(/\/$/, '');
  const rest = glob.slice(glob.indexOf('/', at));
  return inputs
    .listDir(parent)
    .sort()
    .map((name) => `${parent}/${name}${rest}`);
}

/**
 * Where one requirement is: its variable if set (it must name an executable), else a system install.
 * @param {Requirement} requirement
 * @param {Inputs} [inputs]
 * @returns {{ path?: string; from?: string; badEnv?: string }}
 */
export function locate(requirement, inputs = systemInputs()) {
  const fromEnv = inputs.env[requirement.env];
  if (fromEnv) {
    const usable = requirement.files ? (inputs.exists ?? existsSync)(fromEnv) : inputs.isExecutable(fromEnv);
    return usable ? { path: fromEnv, from: requirement.env } : { badEnv: fromEnv };
  }
  for (const command of requirement.commands ?? []) {
    const path = onPath(command, inputs);
    if (path) return { path, from: 'PATH' };
  }
  for (const glob of requirement.globs ?? []) {
    const path = expand(glob, inputs).find((p) => inputs.isExecutable(p));
    if (path) return { path, from: 'system' };
  }
  const exists = inputs.exists ?? existsSync;
  for (const glob of requirement.files ?? []) {
    const path = expand(glob, inputs).find((p) => exists(p));
    if (path) return { path, from: 'system' };
  }
  return {};
}

/**
 * Every requirement that is needed here: found ones with their paths, and the missing ones.
 * @param {Inputs} [inputs]
 * @param {Requirement[]} [requirements]
 * @returns {{ found: Record<string, string>; missing: Missing[] }}
 */
export function survey(inputs = systemInputs(), requirements = REQUIREMENTS) {
  /** @type {Record<string, string>} */
  const found = {};
  /** @type {Missing[]} */
  const missing = [];
  for (const requirement of requirements) {
    if (requirement.needed && !requirement.needed(inputs)) continue;
    const where = locate(requirement, inputs);
    if (where.path) found[requirement.id] = where.path;
    else missing.push({ ...requirement, badEnv: where.badEnv });
  }
  return { found, missing };
}

const isDebian = (/** @type {string} */ osRelease) => /^ID=("?)debian\1\s*$/m.test(osRelease);

/**
 * Whether this module may install here: Debian, as root or with passwordless sudo.
 * @param {Inputs} inputs
 */
function canInstall(inputs) {
  if (!isDebian(inputs.osRelease)) return false;
  if (inputs.uid === 0) return true;
  const sudoPath = onPath('sudo', inputs);
  return Boolean(sudoPath && inputs.canSudo(sudoPath));
}

/**
 * What to do about the missing requirements: nothing, install (Debian, root or passwordless sudo), or stop
 * with one message.
 * @param {Missing[]} missing
 * @param {Inputs} [inputs]
 * @returns {Plan}
 */
export function plan(missing, inputs = systemInputs()) {
  if (missing.length === 0) return { action: 'none' };
  const packages = [...new Set(missing.map((r) => r.debian))];
  const badEnv = missing.filter((r) => r.badEnv);
  /** @type {string | undefined} */
  let sudo;
  if (inputs.uid !== 0) {
    const sudoPath = onPath('sudo', inputs);
    sudo = sudoPath && inputs.canSudo(sudoPath) ? sudoPath : undefined;
  }
  if (badEnv.length === 0 && isDebian(inputs.osRelease) && (inputs.uid === 0 || sudo)) {
    return { action: 'install', packages, sudo, missing };
  }
  return { action: 'stop', message: stopMessage(missing, packages, inputs) };
}

/**
 * The one message that says exactly what to install or which variable to set.
 * @param {Missing[]} missing
 * @param {string[]} packages
 * @param {Inputs} inputs
 * @returns {string}
 */
export function stopMessage(missing, packages, inputs) {
  const lines = [
    'The tests need programs this machine lacks, and this script installs them only on Debian as root (or with passwordless sudo):',
  ];
  for (const r of missing) {
    const set = r.badEnv ? `${r.env}=${r.badEnv} is not ${r.files ? 'a file' : 'an executable file'}` : `not found`;
    lines.push(`  - ${r.name} (${set}): ${r.why}`);
  }
  const why = [];
  if (!isDebian(inputs.osRelease)) why.push('this is not Debian');
  else if (inputs.uid !== 0) why.push('you are not root and sudo -n is not available');
  if (missing.some((r) => r.badEnv)) why.push('a variable names a file that is not executable');
  if (why.length) lines.push(`Not installing: ${why.join('; ')}.`);
  lines.push(`Either install them, on Debian as root: apt-get install -y --no-install-recommends ${packages.join(' ')}`);
  lines.push(
    `or set ${missing.map((r) => `${r.env}=/path/to/${r.files ? r.files[0].split('/').pop() : r.name.split(' ')[0]}`).join(' ')} and run npm test again.`,
  );
  return lines.join('\n');
}

const POLICY_RC_D = '/usr/sbin/policy-rc.d';

/**
 * Installs `packages` with apt-get, services kept from starting; returns the exit status.
 * @param {string[]} packages
 * @param {Missing[]} missing
 * @param {string | undefined} sudo
 * @param {Inputs} [inputs]
 * @returns {number}
 */
export function install(packages, missing, sudo, inputs = systemInputs()) {
  inputs.log(`Installing with apt-get: ${packages.join(' ')}`);
  for (const r of missing) inputs.log(`  ${r.debian}: ${r.name} is missing; needed for ${r.why}`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  /** @type {(args: string[]) => [string, string[]]} */
  const as = (args) => (sudo ? [sudo, ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', ...args]] : [args[0], args.slice(1)]);
  // policy-rc.d exit 101: no package may start a service while we install.
  const ownPolicy = !(inputs.exists ?? existsSync)(POLICY_RC_D);
  if (ownPolicy) {
    const [cmd, args] = as(['sh', '-c', `printf '#!/bin/sh\\nexit 101\\n' > ${POLICY_RC_D} && chmod 755 ${POLICY_RC_D}`]);
    inputs.run(cmd, args, env);
  }
  try {
    const [u, uArgs] = as(['apt-get', 'update', '-qq']);
    let status = inputs.run(u, uArgs, env);
    if (status !== 0) return status;
    const [i, iArgs] = as(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages]);
    status = inputs.run(i, iArgs, env);
    return status;
  } finally {
    if (ownPolicy) {
      const [cmd, args] = as(['rm', '-f', POLICY_RC_D]);
      inputs.run(cmd, args, env);
    }
  }
}

/**
 * Finds everything, installing on Debian as root when something is missing; throws the stop message otherwise.
 * @param {Inputs} [inputs]
 * @param {Requirement[]} [requirements]
 * @returns {Record<string, string>}
 */
export function ensure(inputs = systemInputs(), requirements = REQUIREMENTS) {
  let { found, missing } = survey(inputs, requirements);
  const decision = plan(missing, inputs);
  if (decision.action === 'stop') throw new MissingError(decision.message);
  if (decision.action === 'install') {
    const status = install(decision.packages, decision.missing, decision.sudo, inputs);
    ({ found, missing } = survey(inputs, requirements));
    if (status !== 0 || missing.length) {
      throw new MissingError(
        `apt-get install ${decision.packages.join(' ')} failed (status ${status}); still missing: ${missing.map((r) => r.name).join(', ') || 'nothing'}`,
      );
    }
  }
  return found;
}

export class MissingError extends Error {
  /** @override */
  name = 'MissingError';
}

/** @type {Record<string, string> | undefined} */
let cached;
/**
 * The paths for the launchers (no installing here: `npm run browsers` does that); throws the stop message.
 * @returns {Record<string, string>}
 */
export function browserPaths() {
  if (cached) return cached;
  const { found, missing } = survey();
  if (missing.length)
    throw new MissingError(messageOf(plan(missing)) ?? `Missing: ${missing.map((r) => r.name).join(', ')}; run npm run browsers.`);
  cached = found;
  return found;
}

/** @param {Plan} decision */
const messageOf = (decision) => ('message' in decision ? decision.message : undefined);

/**
 * How puppeteer launches Chromium for a test: its headless shell where there is one (same engine, a third
 * of the CPU), else Chromium in its headless mode.
 * @param {Record<string, string>} [found]
 * @returns {{ executablePath: string; headless: true | 'shell' }}
 */
export function chromiumLaunch(found = browserPaths()) {
  const shell = found.chromiumHeadlessShell;
  return shell ? { executablePath: shell, headless: 'shell' } : { executablePath: found.chromium, headless: true };
}
/** @returns {string} */
export const firefoxPath = () => browserPaths().firefox;
/** @returns {string} */
export const webkitDriverPath = () => browserPaths().webkitDriver;
/** @returns {string} */
export const miniBrowserPath = () => browserPaths().miniBrowser;
/**
 * Xvfb's path, or undefined when a DISPLAY is set.
 * @returns {string | undefined}
 */
export const xvfbPath = () => browserPaths().xvfb;
/** @returns {string} */
export const phpPath = () => browserPaths().php;
/** @returns {string} */
export const redisServerPath = () => browserPaths().redisServer;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const found = ensure();
    for (const r of REQUIREMENTS) if (found[r.id]) console.log(`${r.name.padEnd(24)} ${found[r.id]}`);
  } catch (error) {
    console.error(error instanceof MissingError ? error.message : error);
    process.exit(1);
  }
}
