#!/usr/bin/env node
// Runs every Node test: test/**/*.test.ts except *.browser.test.ts (those run in Chromium through
// web-test-runner). Runtime-neutral tests (*.test.ts) run in both; *.node.test.ts in Node only.
// Node 20's --test takes no globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_NO_WARNINGS: '1' } },
);
process.exit(result.status ?? 1);
