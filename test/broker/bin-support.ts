/**
 * Helpers of the `bioid-broker` tests: the command of the bioid-broker package (broker/src/cli.ts, built
 * from its source once per test process, with bioid-sdk's sources inlined as tsconfig.json maps them), a
 * sidecar started from it on 127.0.0.1 port 0, and `check` runs. The built package is tested from its
 * tarball (test/package/broker.node.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { buildSync } from 'esbuild';
import { startServer, type LocalServer } from './support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../../broker/src/cli.ts', import.meta.url));

let built: string | undefined;
/**
 * `node` and the arguments that run the command: `[...binArgs(), 'serve']`. The command is bundled once per
 * test process, as broker/build.mjs bundles it but with bioid-sdk's sources in it, into a file inside
 * node_modules/ so its own dependencies (redis, the OpenTelemetry API) resolve as from the source. Run
 * through tsx instead, every start compiled the same files again: about half a second of CPU a start,
 * on a machine the suite keeps busy.
 */
function binArgs(): string[] {
  if (!built) {
    const dir = join(ROOT, 'node_modules', '.cache', 'bioid-broker-cli');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `cli-${process.pid}.mjs`);
    buildSync({
      entryPoints: [CLI],
      outfile: file,
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      tsconfig: join(ROOT, 'tsconfig.json'),
      logLevel: 'warning',
    });
    process.once('exit', () => rmSync(file, { force: true }));
    built = file;
  }
  return [built];
}
/** The environment every run gets besides its own: PATH, and no warnings on stderr. */
const BASE_ENV = { PATH: process.env.PATH ?? '', NODE_NO_WARNINGS: '1' };

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs the command to its end (bounded by `timeoutMs`, default 40 s: check must end by itself in 30);
 * `input`, when given, is written to its stdin.
 */
export function runBin(args: string[], env: Record<string, string> = {}, timeoutMs = 40_000, input?: string): Promise<RunResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [...binArgs(), ...args], {
    cwd: ROOT,
    env: { ...BASE_ENV, ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export interface Sidecar {
  url: string;
  /** Every JSON line it printed so far. */
  lines: Record<string, unknown>[];
  /** All of its output, for "never holds a secret" assertions. */
  output(): string;
  child: ChildProcess;
  /** SIGTERM, and its exit status. */
  stop(): Promise<number | null>;
}

/** `bioid-broker serve` with `env` (BIOID_PORT=0 added); resolves once it prints its "listening" line. */
export function startSidecar(env: Record<string, string>): Promise<Sidecar> {
  const child = spawn(process.execPath, [...binArgs(), 'serve'], {
    cwd: ROOT,
    env: { ...BASE_ENV, BIOID_PORT: '0', BIOID_SHUTDOWN_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  child.stderr!.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
  return new Promise((resolve, reject) => {
    // No pace: it turns a start that never comes into a failure. Through tsx, on a 2-core machine busy with
    // other work, the start took over 10 s.
    const timer = setTimeout(() => reject(new Error(`bioid-broker serve did not start within 60 s: ${raw}`)), 60_000);
    void exited.then((status) => reject(new Error(`bioid-broker serve exited with ${status}: ${raw}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      raw += `${line}\n`;
      const record = JSON.parse(line) as Record<string, unknown>;
      lines.push(record);
      if (record.event === 'listening') {
        clearTimeout(timer);
        resolve({
          url: record.url as string,
          lines,
          output: () => raw,
          child,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
  });
}

/**
 * Waits (at most `ms`) until the sidecar has printed `count` lines that `match`, and returns them. Its
 * lines go out in batches a few milliseconds apart, later still on a busy machine: a fixed pause is not enough.
 */
export async function loggedLines(
  sidecar: Pick<Sidecar, 'lines'>,
  match: (line: Record<string, unknown>) => boolean,
  count = 1,
  ms = 5_000,
): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = sidecar.lines.filter(match);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The integrator's session check, as a backend in any language would expose it: 204 for a known session
 * cookie (`sid=<name>`), 401 otherwise; with `subjectTokens`, 200 `{ subject_token }` (RFC 8693 variant).
 */
export async function startSessionCheck(
  users: string[],
  subjectTokens?: Map<string, string>,
): Promise<LocalServer & { calls: (string | undefined)[] }> {
  const calls: (string | undefined)[] = [];
  const server = await startServer((req, res) => {
    calls.push(req.headers.cookie);
    const user = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (!user || !users.includes(user)) {
      res.writeHead(401).end();
      return;
    }
    const subjectToken = subjectTokens?.get(user);
    if (subjectToken) res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ subject_token: subjectToken }));
    else res.writeHead(204).end();
  });
  return { ...server, calls };
}
