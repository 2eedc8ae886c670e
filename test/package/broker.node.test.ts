/**
 * The bioid-broker package as an operator gets it: bioid-sdk and bioid-broker packed from a copy of the
 * tree (bioid-sdk without its prepack, so `npm run build` first; bioid-broker's prepack builds its bin),
 * installed from the tarballs into an empty project, offline, and run from there: `npx bioid-broker
 * check`, and one `bioid-broker serve` (its own process, as `node_modules/.bin/bioid-broker`) for the
 * token endpoint and what operations need of it (docs/operations.md).
 */
import { assert } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { loggedLines, startSessionCheck } from '../broker/bin-support.js';
import { APP_ORIGIN, CLIENT } from '../broker/support.js';
import { installOffline, pack, type Packed } from '../support/offline-install.js';
import { copyPackage } from '../../scripts/tarball.mjs';

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
    env: { PATH: process.env.PATH ?? '', BIOID_PORT: '0', BIOID_SHUTDOWN_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  child.stderr!.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
  return new Promise((resolve, reject) => {
    // A bound for a start that never comes, not a pace (test/broker/bin-support.ts says why 60 s).
    const timer = setTimeout(() => reject(new Error(`bioid-broker serve did not start within 60 s:\n${raw}`)), 60_000);
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
  this.timeout(120_000);
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
    copyPackage(root, tree, true);
    copyPackage(join(root, 'broker'), join(tree, 'broker'), false);
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
    assert.deepStrictEqual(Object.keys(broker.manifest.dependencies ?? {}).sort(), [
      '@opentelemetry/api',
      'bioid-sdk',
      'pino',
      'prom-client',
      'redis',
    ]);
    assert.ok(existsSync(join(app, 'node_modules', 'bioid-broker', 'dist', 'cli.js')));
    assert.ok(!existsSync(join(app, 'node_modules', 'bioid-broker', 'src')), 'sources stay out of the tarball');
    assert.ok(!existsSync(join(app, 'node_modules', 'bioid-sdk', 'dist', 'bin')), 'bioid-sdk ships no command');
  });

  it('npx bioid-broker --help prints the usage and exits 0', async () => {
    const { stdout } = await run('npx', ['--no-install', 'bioid-broker', '--help'], { cwd: app, timeout: 30_000 });
    for (const word of ['bioid-broker serve', 'bioid-broker check <url>', 'BIOID_SESSION_CHECK_URL', 'BIOID_TOKEN_STORE_URL'])
      assert.include(stdout, word);
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

  it('GET /healthz and GET /readyz answer 200 { status: "ok" }', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${served!.url}${path}`);
      assert.strictEqual(response.status, 200, path);
      assert.deepStrictEqual(await response.json(), { status: 'ok' });
    }
  });

  it('SIGTERM with BIOID_SHUTDOWN_DELAY_MS=0: the process stops at once and exits 0', async () => {
    served!.child.kill('SIGTERM');
    assert.strictEqual(await served!.exited, 0, served!.output());
  });

  it('metrics, logs and traces of the installed process: GET /metrics counts the requests, one JSON line per request, spans through the OpenTelemetry SDK the operator preloads; SIGTERM drains', async () => {
    // The operator's own OpenTelemetry set-up, preloaded with --import: here an exporter that writes each
    // finished span as a JSON line to a file (the SDK resolved from this repository).
    const spansFile = join(work, 'spans.jsonl');
    const sdk = pathToFileURL(createRequire(join(root, 'package.json')).resolve('@opentelemetry/sdk-trace-base')).href;
    const preload = join(app, 'otel.mjs');
    writeFileSync(
      preload,
      [
        "import { appendFileSync } from 'node:fs';",
        "import { trace } from '@opentelemetry/api';",
        `import { BasicTracerProvider, SimpleSpanProcessor } from ${JSON.stringify(sdk)};`,
        'const exporter = {',
        '  export(spans, done) {',
        `    for (const s of spans) appendFileSync(${JSON.stringify(spansFile)}, JSON.stringify({ name: s.name, kind: s.kind, attributes: s.attributes }) + '\\n');`,
        '    done({ code: 0 });',
        '  },',
        '  shutdown: async () => {},',
        '};',
        'trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));',
        '',
      ].join('\n'),
    );
    served = await serveInstalled(
      app,
      // A drain delay with room for a busy machine to ask while it drains.
      env({ BIOID_METRICS_PORT: '0', BIOID_SHUTDOWN_DELAY_MS: '1500', NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` }),
    );
    const metricsUrl = served.lines.find((l) => l.event === 'listening')!.metrics as string;
    assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const issued = await fetch(`${served.url}/bioid/token`, { headers: { 'X-CSRF': '1', Cookie: 'sid=alice', 'X-Request-Id': 'op-42' } });
    const { access_token: accessToken } = (await issued.json()) as { access_token: string };
    assert.strictEqual((await fetch(`${served.url}/bioid/token`, { headers: { 'X-CSRF': '1' } })).status, 401);
    const text = await (await fetch(metricsUrl)).text();
    assert.match(text, /^bioid_broker_requests_total\{outcome="token"\} 1$/m);
    assert.match(text, /^bioid_broker_requests_total\{outcome="no-session"\} 1$/m);
    assert.match(text, /^bioid_broker_idp_exchanges_total\{grant="client_credentials",result="ok"\} 1$/m);
    assert.match(text, /^bioid_broker_idp_exchange_duration_seconds_count\{grant="client_credentials",result="ok"\} 1$/m);
    assert.match(text, /^bioid_broker_store_errors_total\{operation="get"\} 0$/m);
    assert.match(text, /^process_cpu_user_seconds_total /m);

    served.child.kill('SIGTERM');
    // Handled once the process says so: a fixed pause is too short on a busy machine.
    assert.lengthOf(await loggedLines(served, (l) => l.event === 'stopping'), 1, served.output());
    const draining = await fetch(`${served.url}/readyz`);
    assert.strictEqual(draining.status, 503);
    assert.deepStrictEqual(await draining.json(), { status: 'unready', reason: 'stopping' });
    assert.strictEqual(
      (await fetch(`${served.url}/bioid/token`, { headers: { 'X-CSRF': '1', Cookie: 'sid=alice' } })).status,
      200,
      'served while it drains',
    );
    assert.strictEqual(await served.exited, 0, served.output());

    const requests = served.lines.filter((l) => l.event === 'request' || l.event === 'refused');
    assert.deepStrictEqual(
      requests.map((l) => [l.level, l.requestId === 'op-42', l.outcome, l.status]),
      [
        ['info', true, 'token', 200],
        ['warn', false, 'no-session', 401],
        ['info', false, 'token', 200],
      ],
    );
    const spans = readFileSync(spansFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; attributes: Record<string, unknown> });
    const exchange = spans.find((s) => s.attributes['bioid.broker.peer'] === 'identity-provider');
    assert.ok(exchange, JSON.stringify(spans));
    assert.strictEqual(exchange.name, 'POST');
    assert.strictEqual(exchange.attributes['http.response.status_code'], 200);
    for (const secret of [CLIENT.clientSecret, accessToken, 'sid=alice']) {
      assert.notInclude(served.output(), secret);
      assert.notInclude(text, secret);
      assert.notInclude(JSON.stringify(spans), secret);
    }
  });
});
