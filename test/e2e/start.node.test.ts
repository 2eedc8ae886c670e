/**
 * `npm start` itself: spawn scripts/start.mjs (every port 0, build check skipped: the test must not race
 * other builds), wait for the printed URLs, load a page, send SIGINT, and check that every port is free.
 * `npm run simulate` (the `bioid-simulator` command from its sources) the same way, without the demo app.
 */
import { assert } from 'chai';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Started {
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  pid: number;
}

function run(args: string[], readyMarker: string): Promise<Started & { ready: string }> {
  const child = spawn(process.execPath, [join(root, 'scripts/start.mjs'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      BIOID_SKIP_BUILD: '1',
      BIOID_DEMO_PORT: '0',
      BIOID_IDP_PORT: '0',
      BIOID_MIDDLEWARE_PORT: '0',
      BIOID_LOCAL_SERVICE_PORT: '0',
      BIOID_BROKER_PORT: '0',
      BIOID_CAPTURE_DELAY_MS: '0-10',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    // A bound for a start that never comes, not a pace: the demo starts an IdP, a broker, a simulator and
    // the demo's server through tsx, which took over 30 s on a 2-core machine busy with other work.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "${readyMarker}" within 90 s; output:\n${output}`));
    }, 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = new RegExp(`${readyMarker} (\\S+)`).exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ ready: match[1]!, output: () => output, exited, pid: child.pid! });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited before "${readyMarker}"; output:\n${output}`));
    });
  });
}

function ports(output: string): number[] {
  return [...new Set([...output.matchAll(/http:\/\/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1])))];
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** The part processes (demo/part.ts) under `pid`, read from /proc: each part of the world is a process of its own. */
function partProcesses(pid: number): string[] {
  const parts: string[] = [];
  const children = (parent: number): number[] =>
    readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((name) => {
        try {
          return Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === parent;
        } catch {
          return false; // gone meanwhile
        }
      })
      .map(Number);
  const walk = (parent: number) => {
    for (const child of children(parent)) {
      try {
        const args = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
        const at = args.findIndex((a) => a.endsWith('demo/part.ts'));
        if (at >= 0) parts.push(args[at + 1]!);
      } catch {
        // gone meanwhile
      }
      walk(child);
    }
  };
  walk(pid);
  return parts.sort();
}

describe('npm start / npm run simulate', function () {
  this.timeout(240_000);
  it('npm start prints the URLs and demo credentials, serves the sign-in page, and frees every port on SIGINT', async () => {
    const started = await run([], 'DEMO_READY');
    const text = started.output();
    assert.match(text, /user "demo", password "fingerprint"/);
    assert.match(text, /integrator client\s+id "demo-integrator", secret "demo-secret" \(demo default/);
    const used = ports(text);
    assert.strictEqual(used.length, 4, `four servers: ${text}`);
    assert.deepStrictEqual(partProcesses(started.pid), ['app', 'idp', 'local-service', 'middleware'], 'each part a process of its own');

    const page = await fetch(new URL('/signin', started.ready));
    assert.strictEqual(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const signIn = await page.text();
    assert.match(signIn, /<script src="\/bioid-elements.js" defer><\/script>/);
    assert.match(
      signIn,
      /user name <strong>demo<\/strong>, password <strong>fingerprint<\/strong>/,
      'the sign-in page shows the demo credentials',
    );
    const bundle = await fetch(new URL('/bioid-elements.js', started.ready));
    assert.strictEqual(bundle.status, 200);

    process.kill(started.pid, 'SIGINT');
    const { code } = await started.exited;
    assert.strictEqual(code, 0, started.output());
    for (const port of used) assert.strictEqual(await portIsFree(port), true, `port ${port} is still open`);
  });

  it('npm run simulate runs bioid-simulator from its sources: IdP, middleware, local service and development broker, freed on SIGTERM', async () => {
    const started = await run(['--simulate'], 'SIMULATOR_READY');
    const ready = JSON.parse(started.ready) as Record<string, string>;
    const used = ports(started.output());
    assert.strictEqual(used.length, 4, started.output());
    assert.deepStrictEqual(partProcesses(started.pid), [], 'the simulator runs its parts in one process');
    const status = await fetch(`${ready.localServiceUrl}/status`);
    assert.deepStrictEqual(await status.json(), {
      workstationId: 'ws-demo-1',
      devices: [{ deviceId: 'reader-1', model: 'SimReader 500', connected: true }],
    });
    const unauthenticated = await fetch(`${ready.middlewareUrl}/biometrics/alice`);
    assert.strictEqual(unauthenticated.status, 401);
    const signedOut = await fetch(ready.tokenEndpoint!, { headers: { 'X-CSRF': '1' } });
    assert.strictEqual(signedOut.status, 401, 'the development broker is gated by its sign-in cookie');
    process.kill(started.pid, 'SIGTERM');
    assert.strictEqual((await started.exited).code, 0);
    for (const port of used) assert.strictEqual(await portIsFree(port), true, `port ${port} is still open`);
  });
});
