// Which files under test/ are tests, and where each runs: *.node.test.ts in Node only (scripts/test-node.mjs),
// *.browser.test.ts in the three browsers only (web-test-runner.config.mjs), and every other *.test.ts, the
// runtime-neutral ones, in both.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every *.test.ts under `dir` (node_modules left out), as /-separated paths from the working directory. */
export function testFiles(dir = 'test') {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : testFiles(path);
    return name.endsWith('.test.ts') ? [path.replaceAll('\\', '/')] : [];
  });
}

export const runsInNode = (path) => !path.endsWith('.browser.test.ts');

export const isRuntimeNeutral = (path) => !/\.(?:node|browser)\.test\.ts$/.test(path);
