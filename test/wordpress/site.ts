/**
 * A throwaway WordPress for the plugin suite, from Debian's packages (scripts/browsers.mjs installs them):
 * MariaDB on a socket in a temp dir (--skip-networking), `php -S` on a loopback port, Debian's WordPress
 * (/usr/share/wordpress) with a wp-config.php of our own, the plugin installed from its zip. Everything
 * lives in one temp dir and every process is ours, stopped by `close()`.
 *
 * Debian's wp-config.php reads /etc/wordpress/config-<host>.php. Rather than write to /etc, the site is a
 * temp dir of symlinks to /usr/share/wordpress beside our own wp-config.php and wp-content, and PHP
 * defines ABSPATH as that dir before any script runs (auto_prepend_file). Entry points still resolve to
 * /usr/share/wordpress, but wp-load.php takes the ABSPATH it finds defined, so it loads our config.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REQUIREMENTS, locate, plan, systemInputs, type Missing } from '../../scripts/browsers.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const WORDPRESS = '/usr/share/wordpress';

/**
 * What the suite needs from the machine, by the provisioning module's ids. PHP itself (php-cli, php-curl)
 * is the PHP recipes' requirement there ('php', 'phpCurl'); until that entry exists, php on PATH.
 */
const STACK = ['wordpress', 'wordpressTheme', 'phpMysql', 'mariadb', 'php', 'phpCurl'];
const OWN = ['wordpress', 'wordpressTheme', 'phpMysql', 'mariadb'];

export interface Stack {
  php: string;
  mariadbd: string;
  installDb: string;
}

/**
 * The programs, or why there are none: `skip` when this machine cannot install them (the message lists
 * what to install), an Error when it could but they are missing (npm run browsers was not run, or failed).
 */
export function findStack(): Stack | { skip: string } {
  const inputs = systemInputs();
  const missing: Missing[] = [];
  const found: Record<string, string> = {};
  for (const id of STACK) {
    const requirement = REQUIREMENTS.find((r) => r.id === id);
    if (!requirement) {
      if (OWN.includes(id)) throw new Error(`scripts/browsers.mjs has no requirement "${id}"`);
      continue;
    }
    const where = locate(requirement, inputs);
    if (where.path) found[id] = where.path;
    else missing.push({ ...requirement, needed: undefined, badEnv: where.badEnv });
  }
  const php = found.php ?? onPath('php');
  if (!php && !missing.some((r) => r.id === 'php')) {
    missing.push({
      id: 'php',
      name: 'PHP (php-cli, php-curl)',
      env: 'PATH',
      commands: ['php'],
      debian: 'php-cli php-curl',
      why: 'the WordPress plugin suite',
    });
  }
  const installDb = found.mariadb
    ? [join(dirname(found.mariadb), 'mariadb-install-db'), onPath('mariadb-install-db')].find((p) => p && existsSync(p))
    : undefined;
  if (missing.length === 0 && php && installDb) return { php, mariadbd: found.mariadb!, installDb };
  const decision = plan(missing, inputs);
  if (decision.action === 'install') {
    throw new Error(
      `The WordPress suite needs ${missing.map((r) => r.debian).join(', ')}, which npm test installs on this machine: run npm run browsers.`,
    );
  }
  return { skip: decision.action === 'stop' ? decision.message : `mariadb-install-db not found beside ${found.mariadb}` };
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

export interface SiteOptions {
  /** The plugin zip to install. */
  zip: string;
  users: { admin: string; author: string; visitor: string };
  /** Must-use plugins of the test (file name → PHP source), for the site owner's filters. */
  muPlugins?: Record<string, string>;
}

export interface RunningSite {
  url: string;
  dir: string;
  /**
   * Runs PHP inside the site (WordPress loaded), as `user` (a login) when given; resolves with what it
   * echoes. Asynchronous: the simulator it may call runs in this very process.
   */
  php(code: string, user?: string): Promise<string>;
  /** PHP warnings and notices the site logged (WP_DEBUG_LOG). */
  debugLog(): string;
  /**
   * A multisite network beside the site, started on first call (later calls get the same): the same
   * MariaDB with tables of its own (prefix wpn_), a php -S of its own, the site's installed plugin
   * network-activated. Stopped by `close()`.
   */
  network(options: NetworkOptions): Promise<RunningNetwork>;
  close(): Promise<void>;
}

/** A child process we can stop; it is in its own process group, so PHP's workers end with it. */
function start(command: string, args: string[], env: Record<string, string> = {}) {
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  proc.stdout!.on('data', (c) => (output += c));
  proc.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return { proc, output: () => output, exited, stop: () => stop(proc, exited) };
}

async function stop(proc: ChildProcess, exited: Promise<void>): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-proc.pid!, s); // our own process group, by id
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function waitFor(what: string, ready: () => Promise<boolean> | boolean, gone: () => string | undefined, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await ready()) return;
    const reason = gone();
    if (reason !== undefined) throw new Error(`${what} stopped: ${reason}`);
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const socketAccepts = (path: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export async function startSite(stack: Stack, options: SiteOptions): Promise<RunningSite> {
  const dir = mkdtempSync(join(tmpdir(), 'bioid-wp-'));
  const stops: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const s of stops.reverse()) await s();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // MariaDB on a socket, no network; root may connect without a password (mysql_native_password, '').
    const data = join(dir, 'db');
    const socket = join(dir, 'mysql.sock');
    const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
    const init = spawnSync(
      stack.installDb,
      [
        '--no-defaults',
        `--datadir=${data}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--skip-name-resolve',
        ...asRoot,
      ],
      { encoding: 'utf8' },
    );
    if (init.status !== 0) throw new Error(`mariadb-install-db failed (${init.status}): ${init.stderr || init.stdout}`);
    const db = start(stack.mariadbd, [
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${socket}`,
      '--skip-networking',
      `--pid-file=${join(dir, 'mariadb.pid')}`,
      `--log-error=${join(dir, 'mariadb.log')}`,
      '--innodb-buffer-pool-size=32M',
      '--innodb-flush-log-at-trx-commit=2',
      '--skip-log-bin',
      ...asRoot,
    ]);
    stops.push(db.stop);
    await waitFor(
      'MariaDB',
      () => socketAccepts(socket),
      () => (db.proc.exitCode !== null ? readTail(join(dir, 'mariadb.log')) : undefined),
    );

    // The site: symlinks to Debian's WordPress, our wp-config.php and wp-content.
    const site = join(dir, 'site');
    const phpIni = docroot(dir, site, options.muPlugins);
    const url = await serve(stack, phpIni, site, stops);
    const siteLines = [`define( 'WP_HOME', '${url}' );`, `define( 'WP_SITEURL', '${url}' );`];
    writeFileSync(join(site, 'wp-config.php'), wpConfig({ dir, socket, url, root: site, prefix: 'wp_', lines: siteLines }));
    const host = new URL(url).host;

    const env = { BIOID_WP_SITE: JSON.stringify({ host, socket, zip: options.zip, users: options.users }) };
    const runPhp = (script: string, extra: Record<string, string> = {}) =>
      phpScript(stack, phpIni, site, dir, script, { ...env, ...extra });
    const installed = JSON.parse((await runPhp('install.php')).trim().split('\n').pop()!) as { installed: boolean };
    if (!installed.installed) throw new Error('WordPress did not install');

    let network: Promise<RunningNetwork> | undefined;
    return {
      url,
      dir,
      php: (code, user) => runPhp('run.php', { BIOID_WP_CODE: code, ...(user ? { BIOID_WP_USER: user } : {}) }),
      network: (networkOptions) =>
        (network ??= startNetwork({ stack, dir, socket, stops, plugin: join(site, 'wp-content', 'plugins', 'bioid'), ...networkOptions })),
      debugLog: () => readTail(join(dir, 'debug.log'), Infinity),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A docroot of symlinks to Debian's WordPress with our own wp-content (and must-use plugins) beside it; the
 * php.ini flags that load it (ABSPATH defined before any script, by a prepended file of its own).
 */
function docroot(dir: string, root: string, muPlugins: Record<string, string> = {}): string[] {
  for (const sub of ['plugins', 'themes', 'uploads', 'mu-plugins']) mkdirSync(join(root, 'wp-content', sub), { recursive: true });
  for (const [name, source] of Object.entries(muPlugins)) writeFileSync(join(root, 'wp-content', 'mu-plugins', name), source);
  for (const name of readdirSync(WORDPRESS)) {
    if (name !== 'wp-config.php' && name !== 'wp-content') symlinkSync(join(WORDPRESS, name), join(root, name));
  }
  symlinkSync(join(WORDPRESS, 'wp-content', 'themes', 'twentytwentythree'), join(root, 'wp-content', 'themes', 'twentytwentythree'));
  const prepend = join(dir, `prepend-${basename(root)}.php`);
  writeFileSync(prepend, `<?php\nif ( ! defined( 'ABSPATH' ) ) {\n\tdefine( 'ABSPATH', ${JSON.stringify(`${root}/`)} );\n}\n`);
  return [
    '-d',
    `auto_prepend_file=${prepend}`,
    '-d',
    'display_errors=0',
    '-d',
    'log_errors=1',
    '-d',
    `error_log=${join(dir, 'php.log')}`,
    '-d',
    'memory_limit=256M',
    // php -S looks at a script's time on every request, so a test that rewrites wp-config.php is served
    // the new one at once (the default looks every 2 s).
    '-d',
    'opcache.revalidate_freq=0',
    // Each site.php() call is a php process of its own that loads WordPress: without a cache shared between
    // processes, every one compiles WordPress's few hundred files again (most of the suite's PHP time).
    '-d',
    'opcache.enable_cli=1',
    '-d',
    `opcache.file_cache=${opcacheDir(dir)}`,
  ];
}

/** A folder for opcache's compiled scripts, shared by the php processes of one test run. */
function opcacheDir(dir: string): string {
  const cache = join(dir, 'opcache');
  mkdirSync(cache, { recursive: true });
  return cache;
}

/** php -S on a loopback port it picks itself (port 0), read from its start line; its URL. */
async function serve(stack: Stack, phpIni: string[], root: string, stops: Array<() => Promise<void>>): Promise<string> {
  const server = start(stack.php, [...phpIni, '-S', '127.0.0.1:0', '-t', root], { PHP_CLI_SERVER_WORKERS: '4' });
  stops.push(server.stop);
  let url = '';
  await waitFor(
    'php -S',
    () => {
      const match = /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/.exec(server.output());
      if (match) url = match[1]!;
      return Boolean(match);
    },
    () => (server.proc.exitCode !== null ? server.output() : undefined),
    20_000,
  );
  return url;
}

/** A wp-config.php on the test's MariaDB: tables named `prefix`…, with `lines` before WordPress loads. */
function wpConfig(o: { dir: string; socket: string; url: string; root: string; prefix: string; lines: string[] }): string {
  const keys = [
    'AUTH_KEY',
    'SECURE_AUTH_KEY',
    'LOGGED_IN_KEY',
    'NONCE_KEY',
    'AUTH_SALT',
    'SECURE_AUTH_SALT',
    'LOGGED_IN_SALT',
    'NONCE_SALT',
  ];
  return [
    '<?php',
    "define( 'DB_NAME', 'wordpress' );",
    "define( 'DB_USER', 'root' );",
    "define( 'DB_PASSWORD', '' );",
    `define( 'DB_HOST', ${JSON.stringify(`localhost:${o.socket}`)} );`,
    "define( 'DB_CHARSET', 'utf8mb4' );",
    "define( 'DB_COLLATE', '' );",
    ...keys.map((k) => `define( '${k}', '${randomBytes(32).toString('hex')}' );`),
    `$table_prefix = '${o.prefix}';`,
    ...o.lines,
    `define( 'WP_CONTENT_DIR', ${JSON.stringify(join(o.root, 'wp-content'))} );`,
    `define( 'WP_CONTENT_URL', '${o.url}/wp-content' );`,
    "define( 'FS_METHOD', 'direct' );",
    "define( 'DISABLE_WP_CRON', true );",
    "define( 'AUTOMATIC_UPDATER_DISABLED', true );",
    "define( 'WP_AUTO_UPDATE_CORE', false );",
    // No traffic to wordpress.org from a test; the simulator is on the site's own host (127.0.0.1).
    "define( 'WP_HTTP_BLOCK_EXTERNAL', true );",
    "define( 'WP_DEBUG', true );",
    `define( 'WP_DEBUG_LOG', ${JSON.stringify(join(o.dir, 'debug.log'))} );`,
    "define( 'WP_DEBUG_DISPLAY', false );",
    "require_once ABSPATH . 'wp-settings.php';",
    '',
  ].join('\n');
}

/** Runs one of test/wordpress/php/ with php-cli in `root`; what it prints. */
function phpScript(
  stack: Stack,
  phpIni: string[],
  root: string,
  dir: string,
  script: string,
  env: Record<string, string>,
): Promise<string> {
  return new Promise<string>((resolvePhp, reject) => {
    execFile(
      stack.php,
      [...phpIni, join(HERE, 'php', script)],
      { encoding: 'utf8', env: { ...process.env, ...env }, cwd: root, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`php ${script} failed (${error.code ?? error.signal}): ${stderr}${stdout}\n${readTail(join(dir, 'php.log'))}`));
        else resolvePhp(stdout);
      },
    );
  });
}

export interface NetworkOptions {
  /** Passwords of the network's users: `netadmin` (super admin) and `siteadmin` (site 2's administrator). */
  users: { netadmin: string; siteadmin: string };
  /** wp-config.php constants of the network (name → value), such as BIOID_CLIENT_SECRET. */
  constants: Record<string, string>;
}

export interface RunningNetwork {
  /** The network's main site, with its Network Admin. */
  url: string;
  /**
   * Site 2's host name. The same php -S serves it (WordPress picks the site by the Host header): requests
   * go to `url` with this as their Host, so nothing but 127.0.0.1 is ever resolved or listened on.
   */
  site2Host: string;
  /** Runs PHP inside site 2 (WordPress loaded), as `user` when given; what it echoes. */
  php(code: string, user?: string): Promise<string>;
  /** A Cookie header signing `user` in (its auth and logged-in cookies, minted by WordPress itself). */
  cookie(user: string): Promise<string>;
}

async function startNetwork(o: {
  stack: Stack;
  dir: string;
  socket: string;
  stops: Array<() => Promise<void>>;
  plugin: string;
  users: NetworkOptions['users'];
  constants: Record<string, string>;
}): Promise<RunningNetwork> {
  const root = join(o.dir, 'network');
  const phpIni = docroot(o.dir, root);
  symlinkSync(o.plugin, join(root, 'wp-content', 'plugins', 'bioid'));
  const url = await serve(o.stack, phpIni, root, o.stops);
  const host = new URL(url).host;
  const site2Host = 'site2.test';
  const constants = Object.entries(o.constants).map(([name, value]) => `define( '${name}', ${JSON.stringify(value)} );`);
  const multisite = [
    "define( 'MULTISITE', true );",
    "define( 'SUBDOMAIN_INSTALL', false );",
    `define( 'DOMAIN_CURRENT_SITE', '${host}' );`,
    "define( 'PATH_CURRENT_SITE', '/' );",
    "define( 'SITE_ID_CURRENT_SITE', 1 );",
    "define( 'BLOG_ID_CURRENT_SITE', 1 );",
    // WP_HTTP_BLOCK_EXTERNAL lets a site reach its own host only; site 2's is site2.test, the simulator's 127.0.0.1.
    "define( 'WP_ACCESSIBLE_HOSTS', '127.0.0.1' );",
  ];
  const env = (h: string, extra: Record<string, string> = {}) => ({
    BIOID_WP_SITE: JSON.stringify({ host: h, socket: o.socket, users: o.users, site2: site2Host }),
    ...extra,
  });
  // WordPress installs a single site first and becomes a network after (as Tools > Network Setup does).
  const config = (lines: string[]) => wpConfig({ dir: o.dir, socket: o.socket, url, root, prefix: 'wpn_', lines });
  writeFileSync(join(root, 'wp-config.php'), config(constants));
  await phpScript(o.stack, phpIni, root, o.dir, 'install-network.php', env(host));
  writeFileSync(join(root, 'wp-config.php'), config([...multisite, ...constants]));
  await phpScript(o.stack, phpIni, root, o.dir, 'install-network.php', env(host, { BIOID_WP_NETWORK: '1' }));
  const php = (code: string, user?: string) =>
    phpScript(o.stack, phpIni, root, o.dir, 'run.php', env(site2Host, { BIOID_WP_CODE: code, ...(user ? { BIOID_WP_USER: user } : {}) }));
  return {
    url,
    site2Host,
    php,
    cookie: (user) =>
      php(
        `$u = get_user_by('login', ${JSON.stringify(user)}); $t = WP_Session_Tokens::get_instance($u->ID)->create(time() + 3600);` +
          ` echo AUTH_COOKIE . '=' . wp_generate_auth_cookie($u->ID, time() + 3600, 'auth', $t) . '; ' . LOGGED_IN_COOKIE . '=' . wp_generate_auth_cookie($u->ID, time() + 3600, 'logged_in', $t);`,
      ),
  };
}

function readTail(path: string, lines = 30): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
