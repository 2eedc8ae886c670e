/**
 * scripts/browsers.mjs, the one place that finds and installs what the tests need, driven through
 * injected inputs (a fake PATH and file system, uid, os-release, sudo, apt-get): nothing here touches the
 * machine.
 */
import { assert } from 'chai';
import { throwsError } from '../support/expect-error.js';
import { MissingError, chromiumLaunch, ensure, survey, type Inputs } from '../../scripts/browsers.mjs';

const DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n';
const UBUNTU = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n';
/** The WordPress suite's stack, present on every fake machine unless `wordpress: false`. */
const WORDPRESS_STACK = [
  '/usr/share/wordpress/wp-settings.php',
  '/usr/share/wordpress/wp-content/themes/twentytwentythree/style.css',
  '/usr/lib/php/20220829/mysqli.so',
  '/usr/sbin/mariadbd',
];
const ALL = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/firefox-esr',
  '/usr/bin/WebKitWebDriver',
  '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
  '/usr/bin/Xvfb',
  '/usr/bin/php',
  '/usr/lib/php/20220829/curl.so',
  '/usr/bin/redis-server',
];

/** A machine with `files` (executables), `uid`, an os-release text; records every command run. */
function machine({
  files = [] as string[],
  uid = 1000,
  osRelease = DEBIAN,
  env = {} as Record<string, string>,
  sudo = false,
  installs = [] as string[],
  wordpress = true,
} = {}) {
  const executables = new Set([...files, ...(wordpress ? WORDPRESS_STACK : [])]);
  const ran: string[] = [];
  const logged: string[] = [];
  const inputs: Inputs = {
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', ...env },
    uid,
    osRelease,
    isExecutable: (path) => executables.has(path),
    listDir: (dir) => [
      ...new Set([...executables].filter((f) => f.startsWith(`${dir}/`)).map((f) => f.slice(dir.length + 1).split('/')[0]!)),
    ],
    canSudo: () => sudo,
    exists: (path) => executables.has(path),
    run: (command, args, runEnv) => {
      ran.push([command, ...args].join(' ') + (runEnv.DEBIAN_FRONTEND ? ` [DEBIAN_FRONTEND=${runEnv.DEBIAN_FRONTEND}]` : ''));
      if (args.includes('install')) for (const f of installs) executables.add(f);
      return 0;
    },
    log: (line) => logged.push(line),
  };
  return { inputs, ran, logged };
}

describe('scripts/browsers.mjs: find, install on Debian as root, otherwise stop with one message', () => {
  it('a non-root user without browsers gets one message listing what to install and which variables to set, and nothing runs', () => {
    const { inputs, ran } = machine({ files: [], uid: 1000 });
    throwsError(
      () => ensure(inputs),
      (error: unknown) => {
        assert.ok(error instanceof MissingError);
        const message = (error as Error).message;
        for (const name of [
          'Chromium',
          'Firefox',
          'WebKitWebDriver',
          'MiniBrowser',
          'Xvfb',
          'PHP \\(CLI\\)',
          'PHP curl extension',
          'Redis server',
        ])
          assert.match(message, new RegExp(`- ${name}`));
        assert.match(message, /you are not root and sudo -n is not available/);
        assert.match(
          message,
          /apt-get install -y --no-install-recommends chromium firefox-esr webkit2gtk-driver xvfb php-cli php-curl redis-server$/m,
        );
        assert.match(
          message,
          /CHROME_PATH=\S+ FIREFOX_PATH=\S+ WEBKIT_WEBDRIVER_PATH=\S+ MINIBROWSER_PATH=\S+ XVFB_PATH=\S+ PHP_PATH=\S+ PHP_CURL_PATH=\S+curl\.so REDIS_SERVER_PATH=\S+/,
        );
        return true;
      },
    );
    assert.deepStrictEqual(ran, [], 'no command ran');
  });

  it('the message lists exactly what is missing: a variable that names no executable, and one missing engine', () => {
    const { inputs } = machine({
      files: ALL.filter((f) => !f.includes('firefox')),
      env: { CHROME_PATH: '/opt/nothing/chrome', DISPLAY: ':5' },
      uid: 0,
    });
    throwsError(
      () => ensure(inputs),
      (error: unknown) => {
        const message = (error as Error).message;
        assert.match(message, /- Chromium \(CHROME_PATH=\/opt\/nothing\/chrome is not an executable file\)/);
        assert.match(message, /- Firefox \(not found\)/);
        assert.notMatch(message, /WebKitWebDriver|MiniBrowser|Xvfb/);
        assert.match(message, /--no-install-recommends chromium firefox-esr$/m);
        return true;
      },
    );
  });

  it('root on Ubuntu (snap browsers) is told what to install instead of installing', () => {
    const { inputs, ran } = machine({ files: [], uid: 0, osRelease: UBUNTU });
    assert.throws(() => ensure(inputs), /this is not Debian/);
    assert.deepStrictEqual(ran, []);
  });

  it('root on Debian installs the missing packages with apt-get (update first, no recommends, services kept from starting) and says why', () => {
    const { inputs, ran, logged } = machine({
      files: ALL.filter((f) => !/firefox|Xvfb/.test(f)),
      uid: 0,
      installs: ['/usr/bin/firefox-esr', '/usr/bin/Xvfb'],
    });
    const found = ensure(inputs);
    assert.strictEqual(found.firefox, '/usr/bin/firefox-esr');
    assert.strictEqual(found.miniBrowser, '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser', 'any architecture');
    assert.match(ran[0]!, /^sh -c .*exit 101.* > \/usr\/sbin\/policy-rc\.d/);
    assert.strictEqual(ran[1], 'apt-get update -qq [DEBIAN_FRONTEND=noninteractive]');
    assert.strictEqual(ran[2], 'apt-get install -y -qq --no-install-recommends firefox-esr xvfb [DEBIAN_FRONTEND=noninteractive]');
    assert.strictEqual(ran[3], 'rm -f /usr/sbin/policy-rc.d [DEBIAN_FRONTEND=noninteractive]');
    assert.match(logged.join('\n'), /firefox-esr: Firefox is missing; needed for/);
  });

  it("the shared token store suite's Redis comes from the same step: redis-server installed with apt-get on Debian as root", () => {
    const { inputs, ran } = machine({ files: ALL.filter((f) => !f.includes('redis')), uid: 0, installs: ['/usr/bin/redis-server'] });
    assert.strictEqual(ensure(inputs).redisServer, '/usr/bin/redis-server');
    assert.strictEqual(ran[2], 'apt-get install -y -qq --no-install-recommends redis-server [DEBIAN_FRONTEND=noninteractive]');
  });

  it('a user with passwordless sudo installs through sudo -n', () => {
    const { inputs, ran } = machine({
      files: [...ALL.filter((f) => f !== '/usr/bin/chromium'), '/usr/bin/sudo'],
      sudo: true,
      installs: ['/usr/bin/chromium'],
    });
    assert.strictEqual(ensure(inputs).chromium, '/usr/bin/chromium');
    assert.ok(
      ran.some((r) =>
        r.startsWith('/usr/bin/sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium'),
      ),
      ran.join('\n'),
    );
  });

  it('root on Debian installs the WordPress stack (wordpress, its theme, php-mysql, mariadb-server) with the same apt-get call', () => {
    const { inputs, ran } = machine({ files: ALL, uid: 0, wordpress: false, installs: WORDPRESS_STACK });
    const found = ensure(inputs);
    assert.strictEqual(found.phpMysql, '/usr/lib/php/20220829/mysqli.so', 'a PHP extension only has to exist, in any API directory');
    assert.strictEqual(found.mariadb, '/usr/sbin/mariadbd');
    assert.strictEqual(
      ran[2],
      'apt-get install -y -qq --no-install-recommends wordpress wordpress-theme-twentytwentythree php-mysql mariadb-server [DEBIAN_FRONTEND=noninteractive]',
    );
    assert.match(ran[0]!, /exit 101/, 'MariaDB is installed with services kept from starting');
  });

  it('where nothing can be installed (no root, no sudo), the WordPress stack is not required: only its suite skips', () => {
    const { inputs } = machine({ files: ALL, uid: 1000, wordpress: false });
    assert.deepStrictEqual(survey(inputs).missing, []);
  });

  it("root on Debian installs Chromium's headless shell with the rest, and the Chromium tests run in it", () => {
    const shell = '/usr/bin/chromium-headless-shell';
    const { inputs, ran } = machine({ files: ALL.filter((f) => f !== shell), uid: 0, installs: [shell] });
    const found = ensure(inputs);
    assert.strictEqual(ran[2], 'apt-get install -y -qq --no-install-recommends chromium-headless-shell [DEBIAN_FRONTEND=noninteractive]');
    assert.deepStrictEqual(chromiumLaunch(found), { executablePath: shell, headless: 'shell' });
  });

  it('where nothing can be installed, no headless shell is required: the Chromium tests run in Chromium itself', () => {
    const { inputs } = machine({ files: ALL.filter((f) => !f.includes('headless-shell')), uid: 1000 });
    const { found, missing } = survey(inputs);
    assert.deepStrictEqual(missing, []);
    assert.deepStrictEqual(chromiumLaunch(found), { executablePath: '/usr/bin/chromium', headless: true });
  });

  it('variables win over the system install; with a DISPLAY no Xvfb is needed', () => {
    const { inputs } = machine({ files: [...ALL, '/opt/ff/firefox'], env: { FIREFOX_PATH: '/opt/ff/firefox', DISPLAY: ':1' } });
    const { found, missing } = survey(inputs);
    assert.deepStrictEqual(missing, []);
    assert.strictEqual(found.firefox, '/opt/ff/firefox');
    assert.strictEqual(found.xvfb, undefined);
  });

  it('PHP for the recipes comes from the same step: php-cli and php-curl installed with apt-get on Debian as root, curl.so found in any API-dated directory', () => {
    const { inputs, ran } = machine({
      files: ALL.filter((f) => !f.includes('php')),
      uid: 0,
      installs: ['/usr/bin/php', '/usr/lib/php/20240924/curl.so'],
    });
    const found = ensure(inputs);
    assert.strictEqual(ran[2], 'apt-get install -y -qq --no-install-recommends php-cli php-curl [DEBIAN_FRONTEND=noninteractive]');
    assert.strictEqual(found.php, '/usr/bin/php');
    assert.strictEqual(found.phpCurl, '/usr/lib/php/20240924/curl.so', 'a plain file, not an executable');
  });
});
