// Chromium only by design (docs/testing.md: the PHP recipe quick starts); the contract checks need no browser.
/**
 * The PHP recipes are tested, not only written. Recipe A (docs/recipes/php/native) is a
 * token broker in plain PHP; recipe B (docs/recipes/php/sidecar) is a PHP app whose session check gates
 * `bioid-broker serve`. Both pass `bioid-broker check` (docs/broker-contract.md), and the script-tag quick
 * start reaches a verified match against each in Chromium. PHP runs as `php -S 127.0.0.1:0`, against the
 * simulator (real IdP, simulated middleware and local service) on 127.0.0.1.
 */
import { assert } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { phpPath } from '../../scripts/browsers.mjs';
import { launch, type Browser } from '../support/engines.js';
import { startSimulator, type RunningSimulator } from '../../simulator/src/simulator.js';
import { runBin, startSidecar, type Sidecar } from '../broker/bin-support.js';
import { startServer, type LocalServer } from '../broker/support.js';
import { runOperation } from '../e2e/operations.js';

const RECIPES = fileURLToPath(new URL('../../docs/recipes/php/', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../../dist/bioid-elements.js', import.meta.url));
const CLIENT = { clientId: 'php-recipe', clientSecret: 'php-recipe-secret-4b1d' };
/** A CMS page on another origin that the brokers allow (the CORS rules of the check). */
const CMS_ORIGIN = 'https://cms.example.com';

interface Php {
  url: string;
  /** What PHP wrote (its access log and error_log lines). */
  output(): string;
  close(): Promise<void>;
}

/** `php -S 127.0.0.1:0 -t <docroot>`; resolves with the port PHP picked. Sessions and the token cache in `scratch`. */
function startPhp(docroot: string, env: Record<string, string>, scratch: string, port = 0): Promise<Php> {
  const child: ChildProcess = spawn(phpPath(), ['-d', `session.save_path=${scratch}`, '-S', `127.0.0.1:${port}`, '-t', docroot], {
    env: { PATH: process.env.PATH ?? '', TMPDIR: scratch, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`php -S did not start: ${output}`)), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const started = /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/.exec(output);
      if (started) {
        clearTimeout(timer);
        resolve({
          url: started[1]!,
          output: () => output,
          close: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`php -S exited: ${output}`)));
  });
}

/** Signs `user` in through the recipe's login.php; the PHPSESSID cookie. */
async function signIn(php: Php, user: string): Promise<string> {
  const response = await fetch(`${php.url}/login.php`, {
    method: 'POST',
    body: new URLSearchParams({ user }),
    redirect: 'manual',
  });
  assert.strictEqual(response.status, 303);
  const cookie = /PHPSESSID=[^;]+/.exec(response.headers.get('set-cookie') ?? '')?.[0];
  assert.ok(cookie, 'login.php set the session cookie');
  return cookie!;
}

let sim: RunningSimulator;
let scratch: string;
let bundle: LocalServer;
let chromium: Browser | undefined;
/** One Chromium for the file, launched by the first quick start; each quick start has its own context. */
const browser = async () => (chromium ??= await launch('chromium'));

before(async () => {
  sim = await startSimulator({ ...CLIENT, captureDelayMs: [0, 20] });
  scratch = mkdtempSync(join(tmpdir(), 'bioid-php-'));
  const script = readFileSync(BUNDLE);
  // The script-tag bundle, served from its own origin as a CDN would.
  bundle = await startServer((_req, res) => void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script));
});
after(async () => {
  await chromium?.close();
  await bundle?.close();
  await sim?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const brokerEnv = (extra: Record<string, string> = {}) => ({
  BIOID_CLIENT_ID: CLIENT.clientId,
  BIOID_CLIENT_SECRET: CLIENT.clientSecret,
  BIOID_AUTH_URL: sim.idp.baseUrl,
  BIOID_REALM: sim.idp.realm,
  BIOID_MIDDLEWARE_URL: sim.middleware.url,
  ...extra,
});
/** The page's variables; without `fromCdn`, as docs/backends.md runs it: the script from the package (bioid-elements.php). */
const pageEnv = (fromCdn = false) => ({
  BIOID_MIDDLEWARE_URL: sim.middleware.url,
  BIOID_INTEGRATOR_ID: CLIENT.clientId,
  BIOID_LOCAL_SERVICE_URL: sim.localService.url,
  ...(fromCdn ? { BIOID_ELEMENTS_URL: `${bundle.url}/bioid-elements.js` } : {}),
});

/** In Chromium, in a context of its own: sign in on the recipe's page, enroll the user, then verify: the quick start's whole path. */
async function quickStart(browser: Browser, pageUrl: string): Promise<Record<string, unknown>> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(pageUrl);
    await page.fill('input[name=user]', 'alice');
    await page.clickAndWaitForLoad('form.signin button[type=submit]');
    await page.waitForFunction(() => customElements.get('bio-verify') !== undefined);
    const enrolled = await runOperation(page, 'bio-enroll');
    assert.strictEqual(enrolled.type, 'bio-result', JSON.stringify(enrolled.detail));
    const verified = await runOperation(page, 'bio-verify');
    assert.strictEqual(verified.type, 'bio-result', JSON.stringify(verified.detail));
    return verified.detail.result!;
  } finally {
    await context.close();
  }
}

describe('recipe A, a token broker in plain PHP (docs/recipes/php/native)', () => {
  let php: Php;
  before(async () => {
    php = await startPhp(join(RECIPES, 'native'), { ...brokerEnv({ BIOID_ALLOWED_ORIGINS: CMS_ORIGIN }), ...pageEnv() }, scratch);
  });
  after(() => php?.close());

  it('the PHP broker passes bioid-broker check, every rule it can probe', async () => {
    const cookie = await signIn(php, 'alice');
    const run = await runBin(['check', `${php.url}/token.php`, '--cookie', cookie, '--origin', CMS_ORIGIN]);
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    for (const rule of [1, 2, 3, 4, 5, 6, 7, 8, 9, 11])
      assert.match(run.stdout, new RegExp(`pass  rule +${rule} `), `rule ${rule}\n${run.stdout}`);
    // Rule 2: the refused preflight was logged with its origin, and PHP's log holds no secret.
    assert.match(php.output(), /"reason":"origin-not-allowed".*"origin":"https:\/\/not-allowed\.bioid-check\.invalid"/);
    assert.notInclude(php.output(), CLIENT.clientSecret);
  });

  it('with a wrong client secret the PHP broker answers exactly 502 { error } (check --expect-502)', async () => {
    const failing = await startPhp(
      join(RECIPES, 'native'),
      brokerEnv({ BIOID_CLIENT_SECRET: 'wrong-php-secret' }),
      mkdtempSync(join(scratch, 'bad-')),
    );
    try {
      const run = await runBin(['check', `${failing.url}/token.php`, '--cookie', await signIn(failing, 'alice'), '--expect-502']);
      assert.strictEqual(run.status, 0, run.stdout);
      assert.match(run.stdout, /pass {2}rule 10 /);
      assert.notInclude(failing.output(), 'wrong-php-secret');
    } finally {
      await failing.close();
    }
  });

  it('the script-tag quick start reaches a verified match against the PHP broker in Chromium', async function () {
    this.timeout(60_000);
    const result = await quickStart(await browser(), `${php.url}/index.php`);
    assert.strictEqual(result.match, true);
    assert.strictEqual(result.subjectId, 'alice');
  });
});

describe('recipe B, a PHP app with bioid-broker serve beside it (docs/recipes/php/sidecar)', () => {
  let site: LocalServer;
  let php: Php;
  let sidecar: Sidecar;
  before(async () => {
    // As deployed: one site, a reverse proxy sending /bioid/token to the sidecar and the rest to PHP
    // (nginx: location /bioid/token { proxy_pass http://127.0.0.1:8787; }).
    const targets: { php?: string; sidecar?: string } = {};
    site = await startServer((req, res) => {
      const target = (req.url ?? '/').startsWith('/bioid/token') ? targets.sidecar : targets.php;
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    php = await startPhp(join(RECIPES, 'sidecar'), pageEnv(true), scratch);
    sidecar = await startSidecar(brokerEnv({ BIOID_SESSION_CHECK_URL: `${php.url}/session-check.php`, BIOID_ALLOWED_ORIGINS: CMS_ORIGIN }));
    targets.php = php.url;
    targets.sidecar = sidecar.url;
  });
  after(async () => {
    await sidecar?.stop();
    await php?.close();
    await site?.close();
  });

  it('the sidecar gated by the PHP session check passes bioid-broker check', async () => {
    const cookie = await signIn(php, 'alice');
    const run = await runBin(['check', `${site.url}/bioid/token`, '--cookie', cookie, '--origin', CMS_ORIGIN]);
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    for (const rule of [1, 2, 3, 4, 5, 6, 7, 8, 9, 11]) assert.match(run.stdout, new RegExp(`pass  rule +${rule} `), `rule ${rule}`);
  });

  it('session-check.php answers 204 for a signed-in cookie and 401 otherwise', async () => {
    const cookie = await signIn(php, 'bob');
    assert.strictEqual((await fetch(`${php.url}/session-check.php`, { headers: { Cookie: cookie } })).status, 204);
    assert.strictEqual((await fetch(`${php.url}/session-check.php`)).status, 401);
    assert.strictEqual(
      (await fetch(`${php.url}/session-check.php`, { headers: { Cookie: 'PHPSESSID=forged0000000000000000000000' } })).status,
      401,
    );
  });

  it('the script-tag quick start reaches a verified match through the sidecar in Chromium', async function () {
    this.timeout(60_000);
    const result = await quickStart(await browser(), `${site.url}/index.php`);
    assert.strictEqual(result.match, true);
  });
});

describe('recipe B without a reverse proxy: the sidecar on its own port, the page allowed by BIOID_ALLOWED_ORIGINS (docs/backends.md)', () => {
  let php: Php;
  let sidecar: Sidecar;
  before(async () => {
    // The page's origin must be known before the sidecar starts (BIOID_ALLOWED_ORIGINS), and the sidecar's
    // address before the page does (BIOID_TOKEN_ENDPOINT): PHP gets a port chosen in advance. Another
    // process (the test files run two at once) may take that port first: then another is chosen.
    for (let attempt = 1; ; attempt += 1) {
      const free = await startServer((_req, res) => void res.end());
      const port = Number(new URL(free.url).port);
      await free.close();
      const pageOrigin = `http://127.0.0.1:${port}`;
      sidecar = await startSidecar(
        brokerEnv({ BIOID_SESSION_CHECK_URL: `${pageOrigin}/session-check.php`, BIOID_ALLOWED_ORIGINS: pageOrigin }),
      );
      try {
        php = await startPhp(join(RECIPES, 'sidecar'), { ...pageEnv(), BIOID_TOKEN_ENDPOINT: `${sidecar.url}/token` }, scratch, port);
        return;
      } catch (error) {
        await sidecar.stop();
        if (attempt === 3 || !/Address already in use/.test(String(error))) throw error;
      }
    }
  });
  after(async () => {
    await sidecar?.stop();
    await php?.close();
  });

  it('the page loads the script from the package (bioid-elements.php) and the quick start reaches a verified match in Chromium', async function () {
    this.timeout(60_000);
    const script = await fetch(`${php.url}/bioid-elements.php`);
    assert.strictEqual(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.strictEqual(await script.text(), readFileSync(BUNDLE, 'utf8'));
    const result = await quickStart(await browser(), `${php.url}/index.php`);
    assert.strictEqual(result.match, true);
  });
});
