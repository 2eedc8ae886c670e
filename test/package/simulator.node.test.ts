/**
 * Chromium only, by design: it proves that the packages install and that the quick starts of docs/quick-start.md run against the
 * installed simulator; how the elements behave in Firefox and WebKit is the end-to-end suites' job.
 *
 * Both packages are packed from a copy of the tree and installed from their tarballs
 * into an empty project, offline; `npx bioid-simulator --help` answers; the installed `bioid-simulator`
 * starts on free ports; and the script-tag quick start (its HTML, with the bundle served from
 * the installed `node_modules/bioid-sdk/dist/`) runs against it alone, sign-in included, to a verified
 * match. bioid-sdk is packed without its prepack (the minute-long build): like every test that reads
 * `dist/`, this one needs `npm run build` first. The simulator's prepack (its build) does run.
 */
import { assert } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import { launch, type Browser } from '../support/engines.js';
import { runOperation } from '../e2e/operations.js';
import { installOffline, pack, type Packed } from '../support/offline-install.js';
import { copyTree } from '../../scripts/tarball.mjs';
import { assertConfirmedMatch, startSimulator } from '../support/simulator-run.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const quickStarts = readFileSync(join(root, 'docs/quick-start.md'), 'utf8');

/** The first ```html block under "Quick start 1" of docs/quick-start.md. */
function scriptTagQuickStart(): string {
  const section = quickStarts.slice(quickStarts.indexOf('## Quick start 1'));
  const block = /```html\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'docs/quick-start.md: Quick start 1 has an html block');
  return block[1]!;
}

const quickStart3 = () =>
  quickStarts.slice(quickStarts.indexOf('## Quick start 3'), quickStarts.indexOf('\n## ', quickStarts.indexOf('## Quick start 3') + 1));

/** The packages quick start 3's `npm install` line names. */
function quickStart3Install(): string[] {
  const line = /```sh\nnpm install ([^\n]+)\n```/.exec(quickStart3());
  assert.ok(line, 'docs/quick-start.md: quick start 3 starts with an npm install line');
  return line[1]!.trim().split(/\s+/);
}

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const portIsFree = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('bioid-simulator as an integrator installs it', function () {
  this.timeout(90_000);
  let work: string;
  let app: string;
  let packed: Packed[];
  let simulator: Awaited<ReturnType<typeof startSimulator>> | undefined;
  let pageServer: Server | undefined;
  let browser: Browser | undefined;
  let server: ChildProcess | undefined;

  before(async function () {
    this.timeout(120_000);
    assert.ok(existsSync(join(root, 'dist', 'bioid-elements.js')), 'dist/ is missing: run npm run build first');
    work = mkdtempSync(join(tmpdir(), 'bioid-simulator-package-'));
    const tree = copyTree(work, ['', 'simulator']);
    const tarballs = join(work, 'tarballs');
    app = join(work, 'app');
    for (const dir of [tarballs, app]) mkdirSync(dir, { recursive: true });
    packed = [await pack(tree, tarballs, { ignoreScripts: true }), await pack(join(tree, 'simulator'), tarballs)];
    // Quick start 3's own install line: the packages it names beside bioid-sdk (express, express-session).
    await installOffline(
      app,
      join(root, 'package-lock.json'),
      packed,
      quickStart3Install().filter((name) => name !== 'bioid-sdk'),
    );
  });

  after(async () => {
    server?.kill('SIGKILL');
    await browser?.close().catch(() => undefined);
    await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
    if (simulator && simulator.child.exitCode === null) simulator.child.kill('SIGKILL');
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the tarballs: bioid-simulator ships its built bin and declares bioid-sdk a peer, bioid-sdk gains no runtime dependency', () => {
    const [sdk, sim] = packed as [Packed, Packed];
    assert.deepStrictEqual(Object.keys(sdk.manifest.dependencies ?? {}).sort(), ['lit', 'workbox-window']);
    assert.strictEqual(sim.manifest.bin?.['bioid-simulator'], 'dist/cli.js');
    assert.ok(sim.manifest.peerDependencies?.['bioid-sdk'], 'bioid-sdk is a peer of the simulator');
    assert.ok(existsSync(join(app, 'node_modules', 'bioid-simulator', 'dist', 'cli.js')), 'the installed simulator has its built bin');
    assert.ok(!existsSync(join(app, 'node_modules', 'bioid-simulator', 'src')), 'sources stay out of the tarball');
  });

  it('npx bioid-simulator --help prints the usage with every option and exits 0', async () => {
    const { stdout } = await promisify(execFile)('npx', ['--no-install', 'bioid-simulator', '--help'], { cwd: app, timeout: 30_000 });
    assert.match(stdout, /Usage: bioid-simulator \[options\]/);
    for (const flag of ['--idp-port', '--middleware-port', '--local-service-port', '--broker-port', '--client-id', '--realm', '--enroll']) {
      assert.include(stdout, flag);
    }
    // The quick starts use the command's defaults: the same ports and integrator id.
    const html = scriptTagQuickStart();
    for (const [setting, url] of [
      ['BIOID_MIDDLEWARE_PORT', 'http://127.0.0.1:18081'],
      ['BIOID_BROKER_PORT', 'http://127.0.0.1:18082/token'],
      ['BIOID_LOCAL_SERVICE_PORT', 'http://127.0.0.1:18065'],
    ] as const) {
      assert.match(stdout, new RegExp(`${setting} .*default ${new URL(url).port}`));
      assert.include(html, `"${url}"`);
    }
    assert.match(stdout, /BIOID_CLIENT_ID .*default demo-integrator/);
    assert.include(html, 'integrator-id="demo-integrator"');
  });

  it('quick start 1 against the installed bioid-simulator alone: sign in, verify, a match the middleware confirms (Chromium)', async () => {
    simulator = await startSimulator(join(app, 'node_modules', '.bin', 'bioid-simulator'), [], { cwd: app });
    const { ready } = simulator;
    assert.include(simulator.output(), `<bio-verify middleware-url="${ready.middlewareUrl}"`, 'it prints the tag to paste');
    assert.deepStrictEqual(ready.enrolled, ['alice']);
    assert.notMatch(simulator.output(), /WARNING|Unsupported runtime/, 'no warning a newcomer would take for an error');

    // The quick start's page, its default addresses replaced by this run's free ports.
    const html = scriptTagQuickStart()
      .replace('http://127.0.0.1:18081', ready.middlewareUrl)
      .replace('http://127.0.0.1:18082/token', ready.tokenEndpoint)
      .replace('http://127.0.0.1:18065', ready.localServiceUrl);
    assert.include(quickStarts, 'node_modules/bioid-sdk/dist/bioid-elements.js');
    assert.include(quickStarts, "express.static('node_modules/bioid-sdk/dist')");
    const page = express();
    page.use(express.static(join(app, 'node_modules/bioid-sdk/dist')));
    page.get('/', (_req, res) => void res.type('html').send(`<!doctype html><meta charset="utf-8"><title>Quick start 1</title>\n${html}`));
    pageServer = await new Promise<Server>((resolve) => {
      const server = page.listen(0, '127.0.0.1', () => resolve(server));
    });
    const pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`;

    browser = await launch('chromium');
    const tab = await (await browser.newContext()).newPage();
    // The printed sign-in, coming back to the page.
    await tab.goto(`${ready.signInUrl}?return_to=${encodeURIComponent(pageUrl)}`);
    assert.strictEqual(await tab.url(), pageUrl);
    await tab.waitForFunction(() => customElements.get('bio-verify') !== undefined);
    const outcome = await runOperation(tab, 'bio-verify');
    assert.strictEqual(outcome.type, 'bio-result', JSON.stringify(outcome.detail));
    assert.strictEqual(outcome.detail.result?.match, true);
    assert.strictEqual(outcome.detail.result?.subjectId, 'alice');
    const verificationId = String(outcome.detail.result?.verificationId);

    // What the integrator's server does next (in plain HTTP, as docs/simulator.md shows for any language).
    await assertConfirmedMatch(ready, verificationId);
  });

  it('the printed backend environment is the one list quick start 3 (docs/quick-start.md) and docs/simulator.md copy', () => {
    assert.ok(simulator, 'started by the previous test');
    const printed = simulator.output().slice(simulator.output().indexOf('Your own backend instead'));
    const namesIn = (text: string) => [...new Set([...text.matchAll(/\b(BIOID_[A-Z_]+)=/g)].map((m) => m[1]!))].sort();
    const list = namesIn(printed.slice(0, printed.indexOf('(the IdP')));
    assert.include(list, 'BIOID_INTEGRATOR_ID');
    assert.include(printed, `BIOID_INTEGRATOR_ID=${simulator.ready.integratorId}`);
    const quickStart3 = quickStarts.slice(quickStarts.indexOf('## Quick start 3'));
    const comment = /```js\n(\/\/ server\.mjs[\s\S]*?)\nimport/.exec(quickStart3);
    assert.ok(comment, 'docs/quick-start.md: quick start 3 opens with the variables it reads');
    assert.deepStrictEqual(namesIn(comment[1]!), list, 'quick start 3');
    const simulatorDoc = readFileSync(join(root, 'docs', 'simulator.md'), 'utf8');
    const block = /## Your own backend against it[\s\S]*?```sh\n([\s\S]*?)```/.exec(simulatorDoc);
    assert.deepStrictEqual(namesIn(block![1]!), list, 'docs/simulator.md');
  });

  it('quick start 3 as written, with the environment the simulator prints: sign in, verify, approve (Chromium)', async () => {
    assert.ok(simulator && browser, 'started by the quick start 1 test');
    assert.deepStrictEqual(quickStart3Install(), ['bioid-sdk', 'express', 'express-session']);
    // The server as the quick start shows it; only its port and the local service's (the default
    // http://localhost:18065 on a workstation) are this run's, as quick start 1's addresses are above.
    const block = /```js\n([\s\S]*?)```/.exec(quickStart3());
    assert.ok(block, 'docs/quick-start.md: quick start 3 has a js block');
    assert.include(block[1]!, "app.listen(3000, '127.0.0.1')");
    assert.include(block[1]!, 'subject-id="alice">');
    const port = await freePort();
    const written = block[1]!
      .replace("app.listen(3000, '127.0.0.1')", `app.listen(${port}, '127.0.0.1')`)
      .replace('subject-id="alice">', `subject-id="alice" local-service-url="${simulator.ready.localServiceUrl}">`);
    writeFileSync(join(app, 'server.mjs'), written);
    // The variables exactly as the simulator printed them for "your own backend", and the session secret.
    const printed = simulator.output().slice(simulator.output().indexOf('Your own backend instead'));
    const env = Object.fromEntries(
      [...printed.slice(0, printed.indexOf('(the IdP')).matchAll(/\b(BIOID_[A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
    );
    server = spawn(process.execPath, ['server.mjs'], {
      cwd: app,
      env: { ...process.env, ...env, SESSION_SECRET: 'quick-start-3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const pageUrl = `http://127.0.0.1:${port}/`;
    for (let i = 0; ; i += 1) {
      if (
        await fetch(pageUrl, { redirect: 'manual' }).then(
          () => true,
          () => false,
        )
      )
        break;
      assert.ok(i < 100 && server.exitCode === null, `server.mjs did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // "open http://127.0.0.1:3000/: it signs you in, then verify and approve"
    const tab = await (await browser.newContext()).newPage();
    await tab.goto(pageUrl);
    assert.strictEqual(await tab.url(), pageUrl, 'the stand-in sign-in comes back to the page');
    await tab.waitForFunction(() => customElements.get('bio-verify') !== undefined);
    const outcome = await runOperation(tab, 'bio-verify');
    assert.strictEqual(outcome.type, 'bio-result', JSON.stringify(outcome.detail));
    assert.strictEqual(outcome.detail.result?.match, true);
    await tab.clickAndWaitForLoad('form button');
    assert.strictEqual((await tab.text('body')).trim(), 'Approved.', output);
  });

  it('SIGTERM stops bioid-simulator: exit 0, every port free', async () => {
    assert.ok(simulator, 'started by the previous test');
    const exited = new Promise<number | null>((resolve) => simulator!.child.once('exit', (code) => resolve(code)));
    simulator.child.kill('SIGTERM');
    assert.strictEqual(await exited, 0, simulator.output());
    const { ready } = simulator;
    for (const url of [ready.middlewareUrl, ready.tokenEndpoint, ready.localServiceUrl, ready.issuerUrl]) {
      assert.isTrue(await portIsFree(url), `${url} still listens`);
    }
  });
});
