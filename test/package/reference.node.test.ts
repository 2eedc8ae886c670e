/**
 * The reference in docs/reference/ is what the code says now (docs/development.md): the elements' page
 * from custom-elements.json and each entry point's page from its built types, as `npm run docs` writes
 * them. Reads dist/ and custom-elements.json: run `npm run build` first (npm test does).
 */
import { assert } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REFERENCE_DIR, referenceFiles } from '../../scripts/docs-reference.mjs';

describe('the generated reference (docs/reference/)', function () {
  this.timeout(60_000);
  const files = referenceFiles();

  for (const [file, text] of Object.entries(files)) {
    it(`docs/reference/${file} is what npm run docs writes from the code now`, () => {
      const path = join(REFERENCE_DIR, file);
      assert.ok(existsSync(path), `docs/reference/${file} is missing: run \`npm run docs\` and commit it.`);
      const committed = readFileSync(path, 'utf8');
      if (committed !== text) {
        const was = committed.split('\n');
        const now = text.split('\n');
        const first = now.findIndex((line, i) => line !== was[i]);
        assert.fail(
          `docs/reference/${file} is stale (first difference at line ${first + 1}: "${now[first] ?? ''}"). Run \`npm run docs\` and commit it.`,
        );
      }
    });
  }

  it('docs/reference/ holds no file that npm run docs does not write', () => {
    const extra = readdirSync(REFERENCE_DIR).filter((file) => !(file in files));
    assert.deepEqual(extra, [], 'remove them, or generate them in scripts/docs-reference.mjs');
  });
});
