#!/usr/bin/env node
// `npm test`: the browsers first (scripts/browsers.mjs finds them, or installs them on Debian as root),
// then build and the release check of the three packages' tarballs (scripts/release-check.mjs) side by
// side with lint (each command of package.json's `lint` script at once: none of them reads dist/), then
// the Node tests and the browser tests in Chromium, Firefox and WebKit. Stops at the first failing step
// and prints each step's time.
//
// Why side by side: build, the release check, tsc, ESLint and Prettier each keep one core busy for
// 5–40 s; one after another they left the second core of a 2-core machine idle for about a minute and a
// half. Steps that run together keep their output until they end, so it is never interleaved.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const lint = JSON.parse(readFileSync('package.json', 'utf8')).scripts.lint.split(' && ');

/** Each entry runs after the one before; the commands of an entry that is a list run at the same time. */
const stages = [
  ['browsers', 'node scripts/browsers.mjs'],
  [
    [
      ['build', 'npm run --silent build'],
      ['release check (pack, publint, attw)', 'node scripts/release-check.mjs'],
    ],
    ...lint.map((command) => [[`lint: ${command.split(' ')[0]}`, `npx --no-install ${command}`]]),
  ],
  ['Node tests (incl. end-to-end in three engines)', 'node scripts/test-node.mjs'],
  ['browser tests (web-test-runner, three engines)', 'npx --no-install web-test-runner'],
];

const times = [];

/** Runs one command through the shell; `keep` holds its output until it ends. Resolves to its exit status. */
function run(name, command, keep) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: keep ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const output = [];
    if (keep) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      times.push([name, Date.now() - t0, status]);
      if (keep && (output.length > 0 || status !== 0)) {
        process.stdout.write(`\n── ${name} ──\n`);
        process.stdout.write(Buffer.concat(output));
      }
      resolve(status);
    });
  });
}

/** A chain of [name, command] run one after another, stopping at a failure. */
async function chain(steps, keep) {
  for (const [name, command] of steps) {
    const status = await run(name, command, keep);
    if (status !== 0) return status;
  }
  return 0;
}

const started = Date.now();
let status = 0;
for (const stage of stages) {
  const together = Array.isArray(stage[0]);
  const statuses = together ? await Promise.all(stage.map((steps) => chain(steps, true))) : [await run(...stage, false)];
  status = statuses.find((code) => code !== 0) ?? 0;
  if (status !== 0) break;
}
console.log('\nnpm test, time per step (the steps of one stage ran at the same time):');
for (const [name, ms, code] of times)
  console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}${code ? `  (failed, exit ${code})` : ''}`);
console.log(`  ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  total`);
process.exit(status);
