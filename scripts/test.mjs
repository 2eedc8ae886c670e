#!/usr/bin/env node
// `npm test`: the browsers first (scripts/browsers.mjs finds them, or installs them on Debian as root),
// then build, the release check of the three packages' tarballs (scripts/release-check.mjs), types, Node
// tests and the browser tests in Chromium, Firefox and WebKit. Stops at the first failing step and prints
// each step's time.
import { spawnSync } from 'node:child_process';

const steps = [
  ['browsers', ['node', 'scripts/browsers.mjs']],
  ['build', ['npm', 'run', '--silent', 'build']],
  ['release check (pack, publint, attw)', ['node', 'scripts/release-check.mjs']],
  ['lint (tsc, ESLint, Prettier)', ['npm', 'run', '--silent', 'lint']],
  ['Node tests (incl. end-to-end in three engines)', ['node', 'scripts/test-node.mjs']],
  ['browser tests (web-test-runner, three engines)', ['npx', '--no-install', 'web-test-runner']],
];

const times = [];
const started = Date.now();
let status = 0;
for (const [name, [command, ...args]] of steps) {
  const t0 = Date.now();
  status = spawnSync(command, args, { stdio: 'inherit' }).status ?? 1;
  times.push([name, Date.now() - t0, status]);
  if (status !== 0) break;
}
console.log('\nnpm test, time per step:');
for (const [name, ms, code] of times)
  console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}${code ? `  (failed, exit ${code})` : ''}`);
console.log(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  total`);
process.exit(status);
