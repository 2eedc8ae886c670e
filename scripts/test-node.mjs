#!/usr/bin/env node
// Runs every Node test with mocha: test/**/*.test.ts except *.browser.test.ts (those run in Chromium
// through web-test-runner). Runtime-neutral tests (*.test.ts) run in both; *.node.test.ts in Node only.
// Arguments filter the files: `npm run test:node -- broker watch-status` runs the files whose path
// contains "broker" or "watch-status". TypeScript is loaded through tsx (--import tsx).
// Three files run at once (--parallel --jobs 3), each in a worker process of its own root suite, so a
// file's top-level before/after hooks only wrap that file. Three on two cores: many files spend much of
// their time waiting (on a browser, PHP, a server's answer, a liveness interval), and with two at once the
// machine sat a tenth idle; with three it is busy throughout. Tests start servers on 127.0.0.1 port 0.
// The files start longest first, by their last measured time (scripts/test-durations.json, seconds; a file
// not listed yet starts first), so the workers finish together instead of one running a long file alone
// at the end. `npm run test:node -- --record-durations` runs the files and writes their times there.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runsInNode, testFiles } from './test-files.mjs';

const DURATIONS = 'scripts/test-durations.json';
const record = process.argv.includes('--record-durations');
const filter = process.argv.slice(2).filter((arg) => arg !== '--record-durations');
const known = JSON.parse(readFileSync(DURATIONS, 'utf8'));
const seconds = (file) => known[file] ?? Infinity;
const files = testFiles()
  .filter(runsInNode)
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
if (files.length === 0) {
  console.error('No Node test files found under test/.');
  process.exit(1);
}
const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const recorded = join(tmpdir(), `bioid-test-durations-${process.pid}.jsonl`);
const result = spawnSync(
  process.execPath,
  [
    mocha,
    '--node-option=import=tsx',
    '--require=scripts/test-durations.mjs',
    '--reporter=spec',
    // mocha's default is 2000 ms; tests that start an IdP, servers, processes or Chromium need more, and
    // set more still where they need it (this.timeout in the e2e and browser-security suites). A bound,
    // not a pace: tests wait for states, and this only turns one that never comes into a failure. A
    // process started through tsx took over 10 s on a 2-core machine busy with other work.
    '--timeout=60000',
    '--parallel',
    '--jobs=3',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_NO_WARNINGS: '1', ...(record ? { BIOID_TEST_DURATIONS: recorded } : {}) } },
);
if (record && existsSync(recorded)) {
  for (const line of readFileSync(recorded, 'utf8').trim().split('\n')) {
    const { file, ms } = JSON.parse(line);
    known[file] = Math.round(ms / 100) / 10;
  }
  rmSync(recorded);
  const sorted = Object.entries(known).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  writeFileSync(DURATIONS, `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`);
  console.log(`Test file times written to ${DURATIONS}.`);
}
process.exit(result.status ?? 1);
