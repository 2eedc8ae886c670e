/**
 * The bioid-broker package as an operator gets it: bioid-sdk and bioid-broker packed from a copy of the
 * tree (bioid-sdk without its prepack, so `npm run build` first; bioid-broker's prepack builds its bin),
 * installed from the tarballs into an empty project, offline, and run from there: `npx bioid-broker
 * check`, and one `bioid-broker serve` (its own process, as `node_modules/.bin/bioid-broker`) for the
 * token endpoint and what operations need of it (docs/operations.md).
 */
import { assert } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { startSessionCheck } from '../broker/bin-support.js';
import { APP_ORIGIN, CLIENT } from '../broker/support.js';
import { copyPackage, installOffline, pack, type Packed } from '../support/offline-install.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = promisify(execFile);

interface Served {
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
  output(): string;
  exited: Promise<number | null>;
}

/** `bioid-broker serve` of the installed package; resolves at its `listening` line. */
function serveInstalled(app: string, env: Record<string, string>): Promise<Served> {
  const child = spawn(join(app, 'node_modules', '.bin', 'bioid-broker'), ['serve'], {
    cwd: app,
    env: { PATH: process.env.PATH ?? '', BIOID_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  child.stderr!.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bioid-broker serve did not start within 15 s:\n${raw}`)), 15_000);
    void exited.then((status) => reject(new Error(`bioid-broker serve exited with ${status}:\n${raw}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      raw += `${line}\n`;
      const record = JSON.parse(line) as Record<string, unknown>;
      lines.push(record);
      if (record.event === 'listening') {
        clearTimeout(timer);
        resolve({ child, url: record.url as string, lines, output: () => raw, exited });
      }
    });
  });
}

describe('bioid-broker as an operator installs it (npm install bioid-broker, from the packed tarballs)', function () {
  this.timeout(60_000);
  let work: string;
  let app: string;
  let packed: Packed[];
  let idp: RunningIdp;
  let sessions: Awaited<ReturnType<typeof startSessionCheck>>;
  let served: Served | undefined;

  before(async function () {
    this.timeout(120_000);
    assert.ok(existsSync(join(root, 'dist', 'broker', 'index.js')), 'dist/ is missing: run npm run build first');
    work = mkdtempSync(join(tmpdir(), 'bioid-broker-package-'));
    const tree = join(work, 'tree');
    const tarballs = join(work, 'tarballs');
    app = join(work, 'app');
    for (const dir of [tree, join(tree, 'broker'), tarballs, app]) mkdirSync(dir, { recursive: true });
    copyPackage(root, tree, join(root, 'node_modules'), { onlyFiles: true });
    copyPackage(join(root, 'broker'), join(tree, 'broker'), join(root, 'node_modules'), { skip: ['dist'] });
    packed = [await pack(tree, tarballs, { ignoreScripts: true }), await pack(join(tree, 'broker'), tarballs)];
    await installOffline(app, join(root, 'package-lock.json'), packed);
    idp = await startIdp({ clients: [CLIENT] });
    sessions = await startSessionCheck(['alice']);
  });

  after(async () => {
    if (served && served.child.exitCode === null) served.child.kill('SIGKILL');
    await sessions?.close();
    await idp?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}) => ({
    BIOID_SESSION_CHECK_URL: `${sessions.url}/session-check`,
    BIOID_CLIENT_ID: CLIENT.clientId,
    BIOID_CLIENT_SECRET: CLIENT.clientSecret,
    BIOID_AUTH_URL: idp.baseUrl,
    BIOID_REALM: idp.realm,
    BIOID_ALLOWED_ORIGINS: APP_ORIGIN,
    ...extra,
  });

  it('the tarballs: bioid-broker ships its built bin only and depends on bioid-sdk, redis, prom-client, pino and @opentelemetry/api; bioid-sdk has no bin', () => {
    const [sdk, broker] = packed as [Packed, Packed];
    assert.strictEqual(sdk.manifest.bin, undefined);
    assert.deepStrictEqual(Object.keys(sdk.manifest.dependencies ?? {}).sort(), ['lit', 'workbox-window']);
    assert.strictEqual(broker.manifest.bin?.['bioid-broker'], 'dist/cli.js');
    assert.deepStrictEqual(Object.keys(broker.manifest.dependencies ?? {}).sort(), ['@opentelemetry/api', 'bioid-sdk', 'pino', 'prom-client', 'redis']);
    assert.ok(existsSync(join(app, 'node_modules', 'bioid-broker', 'dist', 'cli.js')));
    assert.ok(!existsSync(join(app, 'node_modules', 'bioid-broker', 'src')), 'sources stay out of the tarball');
    assert.ok(!existsSync(join(app, 'node_modules', 'bioid-sdk', 'dist', 'bin')), 'bioid-sdk ships no command');
  });

  it('npx bioid-broker --help prints the usage and exits 0', async () => {
    const { stdout } = await run('npx', ['--no-install', 'bioid-broker', '--help'], { cwd: app, timeout: 30_000 });
    for (const word of ['bioid-broker serve', 'bioid-broker check <url>', 'BIOID_SESSION_CHECK_URL', 'BIOID_TOKEN_STORE_URL']) assert.include(stdout, word);
  });

  it('npx bioid-broker serve answers tokens, and npx bioid-broker check <url> passes it', async () => {
    served = await serveInstalled(app, env());
    const token = await fetch(`${served.url}/bioid/token`, { headers: { 'X-CSRF': '1', Cookie: 'sid=alice' } });
    assert.strictEqual(token.status, 200);
    const { stdout } = await run('npx', ['--no-install', 'bioid-broker', 'check', `${served.url}/bioid/token`, '--origin', APP_ORIGIN], {
      cwd: app,
      timeout: 40_000,
      env: { ...process.env, BIOID_CHECK_COOKIE: 'sid=alice' },
    });
    assert.notMatch(stdout, /FAIL/);
    for (const rule of [1, 2, 3, 4, 8, 9]) assert.match(stdout, new RegExp(`pass  rule +${rule} `), `rule ${rule}`);
  });

  it('GET /healthz answers 200 { status: "ok" }', async () => {
    const response = await fetch(`${served!.url}/healthz`);
    assert.strictEqual(response.status, 200);
    assert.deepStrictEqual(await response.json(), { status: 'ok' });
  });

  it('SIGTERM: the process exits 0', async () => {
    served!.child.kill('SIGTERM');
    assert.strictEqual(await served!.exited, 0, served!.output());
  });
});
