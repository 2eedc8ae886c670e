/**
 * The built script-tag bundle (before the first element renders, and with every file it may load on use)
 * and the core entry stay within their gzip ceilings, read from
 * bench/budgets.json (the one table), so a size regression fails `npm test` (which builds
 * first). Nothing is built to disk here: the bundle is read as built, and the core entry (dist/index.js and
 * its chunks) is minified in memory with the terser options of rollup.config.mjs, as `npm run bench` does.
 * Sizes only; timings are never asserted.
 */
import { assert } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rollup } from 'rollup';
import terser from '@rollup/plugin-terser';
import { BUNDLE_ALL_BUDGET, BUNDLE_BUDGET, CORE_BUDGET, withFixedBuildId } from '../../bench/budgets.mjs';
import { scriptPartFiles } from '../../scripts/script-parts.mjs';
import { TERSER_OPTIONS } from '../../scripts/terser-options.mjs';

const dist = (path: string) => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));
const gzipSize = (code: string | Buffer) => gzipSync(code, { level: 9 }).length;

function requireBuilt(path: string): string {
  const file = dist(path);
  assert.ok(existsSync(file), `dist/${path} is missing: run \`npm run build\` first (npm test does).`);
  return file;
}

describe('size ceilings (bench/budgets.json)', () => {
  it(`dist/bioid-elements.js, every tag, is at most ${BUNDLE_BUDGET} B min+gzip`, () => {
    const code = readFileSync(requireBuilt('bioid-elements.js'), 'utf8');
    for (const tag of ['bio-enroll', 'bio-verify', 'bio-search', 'bio-enrolled', 'bio-reader-status', 'bio-diagnostics']) {
      assert.match(code, new RegExp(`["'\`]${tag}["'\`]`), `the script defines <${tag}>`);
    }
    const size = gzipSize(withFixedBuildId(code));
    assert.ok(
      size <= BUNDLE_BUDGET,
      `dist/bioid-elements.js is ${size} B gzip, ${size - BUNDLE_BUDGET} B over its ${BUNDLE_BUDGET} B ceiling. ` +
        'Run `npm run bench -- --only size` for the biggest contributors (docs/performance.md).',
    );
  });

  it(`dist/bioid-elements.js with every file it loads on use (dist/bioid-*.js) is at most ${BUNDLE_ALL_BUDGET} B min+gzip in all`, () => {
    const script = readFileSync(requireBuilt('bioid-elements.js'), 'utf8');
    const parts = scriptPartFiles(dist(''));
    // Each file the script names is there, and each file there is one it names.
    assert.deepStrictEqual(parts, ['bioid-de.js', 'bioid-diagnostics.js', 'bioid-es.js', 'bioid-fr.js']);
    for (const part of parts) assert.include(script, `"./${part}"`, `the script loads ./${part}`);
    const size =
      gzipSize(withFixedBuildId(script)) + parts.reduce((sum, part) => sum + gzipSize(withFixedBuildId(readFileSync(dist(part)))), 0);
    assert.ok(
      size <= BUNDLE_ALL_BUDGET,
      `the script and ${parts.join(', ')} are ${size} B gzip in all, ${size - BUNDLE_ALL_BUDGET} B over their ${BUNDLE_ALL_BUDGET} B ceiling.`,
    );
  });

  it(`the core entry dist/index.js is at most ${CORE_BUDGET} B min+gzip`, async () => {
    const build = await rollup({
      input: requireBuilt('index.js'),
      plugins: [terser({ ...TERSER_OPTIONS, module: true })],
      onwarn: () => {},
    });
    const { output } = await build.generate({ format: 'es', inlineDynamicImports: true });
    await build.close();
    const size = gzipSize(output[0].code);
    assert.ok(size <= CORE_BUDGET, `the core entry is ${size} B min+gzip, ${size - CORE_BUDGET} B over its ${CORE_BUDGET} B ceiling.`);
  });
});
