// The recording half of `node scripts/test-node.mjs --record-durations`: a mocha root hook plugin that
// test-node.mjs loads into every test run (a part of that command, not of any test). When
// BIOID_TEST_DURATIONS names a file, each test file's time (from its first root hook to its last, in
// whichever worker ran it) is appended to it as a JSON line {"file", "ms"}; test-node.mjs then merges them
// into scripts/test-durations.json, the order it starts the files in (longest first).
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';

const out = process.env.BIOID_TEST_DURATIONS;
let started = 0;

/** The test files under a suite (a worker's root suite holds one file). */
function filesOf(suite, files = new Set()) {
  if (suite.file) files.add(suite.file);
  for (const child of suite.suites) filesOf(child, files);
  for (const test of suite.tests) if (test.file) files.add(test.file);
  return files;
}

export const mochaHooks = out
  ? {
      beforeAll() {
        started = Date.now();
      },
      afterAll() {
        const ms = Date.now() - started;
        for (const file of filesOf(this.test.parent)) {
          appendFileSync(out, `${JSON.stringify({ file: relative(process.cwd(), file).split('\\').join('/'), ms })}\n`);
        }
      },
    }
  : {};
