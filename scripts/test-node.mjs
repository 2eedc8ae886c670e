#!/usr/bin/env node
// Runs every Node test with mocha: test/**/*.test.ts except *.browser.test.ts (those run in Chromium
// through web-test-runner). Runtime-neutral tests (*.test.ts) run in both; *.node.test.ts in Node only.
// Arguments filter the files: `npm run test:node -- broker watch-status` runs the files whose path
// contains "broker" or "watch-status". TypeScript is loaded through tsx (--import tsx).
// Two files run at once (--parallel --jobs 2), each in a worker process of its own root suite, so a
// file's top-level before/after hooks only wrap that file. Tests start servers on 127.0.0.1 port 0.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : find(path);
    return /\.test\.ts$/.test(name) && !/\.browser\.test\.ts$/.test(name) ? [path] : [];
  });
}

const filter = process.argv.slice(2);
const files = find('test')
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();
if (files.length === 0) {
  console.error('No Node test files found under test/.');
  process.exit(1);
}
const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const result = spawnSync(
  process.execPath,
  [
    mocha,
    '--node-option=import=tsx',
    '--reporter=spec',
    // mocha's default is 2000 ms; tests that start an IdP, servers or Chromium need more, and set
    // more still where they need it (this.timeout in the e2e and browser-security suites).
    '--timeout=20000',
    '--parallel',
    '--jobs=2',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_NO_WARNINGS: '1' } },
);
process.exit(result.status ?? 1);
