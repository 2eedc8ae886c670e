/**
 * The script-tag bundle and the file it loads on use are the same bytes from any checkout: the build names
 * its modules by their path in the project (scripts/script-parts.mjs, the build id), never by a path on
 * the build machine. A script that differed per checkout would differ in size by a byte or two, so the
 * ceilings of bench/budgets.json would hold on one machine and fail on another, and a release could not be
 * rebuilt to check it. Builds the script from a copy of the sources in a temporary folder (the script's
 * build alone, not the ESM entry points and their types) and compares it with dist/: run `npm run build`
 * first (npm test does).
 */
import { assert } from 'chai';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptPartFiles } from '../../scripts/script-parts.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What `rollup -c` reads. */
const SOURCES = ['src', 'scripts', 'rollup.config.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

describe('a reproducible script', function () {
  // A build of its own: over 90 s on a 2-core machine busy with other work. No pace, a bound for a hang.
  this.timeout(240_000);
  let copy: string;
  after(() => copy && rmSync(copy, { recursive: true, force: true }));

  it('dist/bioid-elements.js and the files it loads on use are the same bytes when built from another folder', () => {
    const files = ['bioid-elements.js', ...scriptPartFiles(join(ROOT, 'dist'))];
    for (const file of files)
      assert.ok(existsSync(join(ROOT, 'dist', file)), `dist/${file} is missing: run \`npm run build\` first (npm test does).`);
    copy = mkdtempSync(join(tmpdir(), 'bioid-checkout-'));
    for (const source of SOURCES) cpSync(join(ROOT, source), join(copy, source), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    // rollup.config.mjs's build of the script alone (the one whose input is src/bundle.ts).
    writeFileSync(
      join(copy, 'script.config.mjs'),
      "import builds from './rollup.config.mjs';\nexport default builds.filter((build) => build.input === 'src/bundle.ts');\n",
    );
    const rollup = createRequire(import.meta.url).resolve('rollup/dist/bin/rollup');
    execFileSync(process.execPath, [rollup, '-c', 'script.config.mjs'], { cwd: copy, stdio: 'ignore' });
    for (const file of files) {
      assert.ok(
        readFileSync(join(copy, 'dist', file)).equals(readFileSync(join(ROOT, 'dist', file))),
        `dist/${file} differs when built in ${copy}`,
      );
    }
  });
});
