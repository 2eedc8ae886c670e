#!/usr/bin/env node
// `npm start`: builds the package when dist/ is missing or older than src/, then runs the demo
// (demo/main.ts: the simulator's IdP, middleware and workstation + local service from simulator/src, and
// the demo app) in a child process and stops it on Ctrl-C / SIGTERM. `npm run simulate` passes
// --simulate: the `bioid-simulator` command from its sources (simulator/src/cli.ts), without the demo.
// Flags after `--` go to the demo or the simulator (`npm start -- --help`). BIOID_SKIP_BUILD=1 skips the
// build check.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const simulateOnly = args[0] === '--simulate';
const forwarded = simulateOnly ? args.slice(1) : args;

function newestMtime(dir) {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    newest = Math.max(newest, stat.isDirectory() ? newestMtime(path) : stat.mtimeMs);
  }
  return newest;
}

function buildIfNeeded() {
  if (simulateOnly || process.env.BIOID_SKIP_BUILD === '1') return;
  const bundle = join(root, 'dist', 'bioid-elements.js');
  const swEntry = join(root, 'dist', 'sw', 'index.js');
  const sources = Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'rollup.config.mjs')).mtimeMs);
  const missing = !existsSync(bundle) || !existsSync(swEntry);
  if (!missing && Math.min(statSync(bundle).mtimeMs, statSync(swEntry).mtimeMs) >= sources) return;
  console.log(missing ? 'dist/ is missing: building (npm run build)…' : 'src/ changed since the last build: rebuilding (npm run build)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('The build failed; fix the error above and run npm start again.');
    process.exit(result.status ?? 1);
  }
}

buildIfNeeded();

const entry = simulateOnly ? join(root, 'simulator', 'src', 'cli.ts') : join(root, 'demo', 'main.ts');
const child = spawn(process.execPath, ['--import', 'tsx', entry, ...forwarded], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_NO_WARNINGS: '1' },
  // Its own process group: a terminal's Ctrl-C reaches only this script, which forwards it exactly once.
  detached: true,
});
process.on('exit', () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

// Forward Ctrl-C / SIGTERM once; the child closes every server and exits. A second signal kills it.
let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (signalled) child.kill('SIGKILL');
    signalled = true;
    child.kill(signal);
  });
}
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 0 : 1));
});
