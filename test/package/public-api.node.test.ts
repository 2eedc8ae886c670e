/**
 * The public API is written down and guarded (docs/versioning.md): each entry point's API Extractor
 * report, made from the built .d.ts in dist/, equals the committed api/<entry>.api.md, and the summary of
 * the built custom-elements.json (tags, attributes, properties, events, CSS parts and custom properties)
 * equals the committed api/elements.json. Reads dist/: run `npm run build` first. After an intended
 * change, `npm run api:update` rewrites the committed files. The reference in docs/reference/ is made
 * from the same API Extractor run of each entry and custom-elements.json, as `npm run docs` writes it; so
 * are the environment variable tables inside docs/broker.md and docs/operations.md, from the tables that
 * declare the variables (src/broker/config/env-variables.ts, broker/src/serve-env.ts, broker/src/check-env.ts).
 */
import { assert } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REFERENCE_DIR, generatedPages, generatedSources, referenceFiles, withGeneratedParts } from '../../scripts/docs-reference.mjs';
import { API_DIR, ENTRIES, apiReport, compareElements, elementsSummary, type ElementsSummary } from '../../scripts/public-api.mjs';

const UPDATE = 'run `npm run api:update` and commit api/ (docs/versioning.md)';

/**
 * The lines the committed report has more of (-) and the built one has more of (+), each once per extra
 * copy: a line that also appears elsewhere (`// @public (undocumented)`) is still shown when one copy changed.
 */
function lineDiff(committed: string, built: string): string {
  const count = new Map<string, number>();
  for (const line of committed.split('\n')) count.set(line, (count.get(line) ?? 0) + 1);
  for (const line of built.split('\n')) count.set(line, (count.get(line) ?? 0) - 1);
  return [...count]
    .filter(([line, n]) => line.trim() && n !== 0)
    .sort(([, a], [, b]) => b - a)
    .flatMap(([line, n]) => Array<string>(Math.abs(n)).fill(`  ${n > 0 ? '-' : '+'} ${line}`))
    .join('\n');
}

describe('The public API of bioid-sdk is the committed one', function () {
  this.timeout(60_000);

  for (const [name, dts] of Object.entries(ENTRIES)) {
    const entry = name === 'bioid-sdk' ? 'bioid-sdk' : `bioid-sdk/${name.slice('bioid-sdk-'.length)}`;
    it(`${entry}: the exports and their types (${dts}) are api/${name}.api.md`, () => {
      const committed = readFileSync(join(API_DIR, `${name}.api.md`), 'utf8');
      const built = apiReport(name);
      if (built !== committed) {
        assert.fail(
          `The API of ${entry} differs from api/${name}.api.md (- committed, + built):\n${lineDiff(committed, built)}\n` +
            `A removed or changed line is a breaking change (a major version); only added lines are a minor one. If intended, ${UPDATE}.`,
        );
      }
    });
  }

  it('the custom elements (custom-elements.json) are api/elements.json: tags, attributes, properties, events, CSS parts and custom properties', () => {
    const committed = JSON.parse(readFileSync(join(API_DIR, 'elements.json'), 'utf8')) as ElementsSummary;
    const { breaking, additions } = compareElements(committed, elementsSummary());
    const lines = [
      ...(breaking.length ? ['Breaking (removed, renamed or retyped: a major version):', ...breaking.map((s) => `  ${s}`)] : []),
      ...(additions.length ? ['Additions (a minor version):', ...additions.map((s) => `  ${s}`)] : []),
    ];
    if (lines.length) assert.fail(`The custom elements differ from api/elements.json.\n${lines.join('\n')}\nIf intended, ${UPDATE}.`);
  });

  it('tells a removed or renamed event from an added one', () => {
    const tag = (events: Record<string, string>) => ({
      class: 'BioX',
      attributes: {},
      properties: {},
      methods: [],
      events,
      cssParts: [],
      cssProperties: [],
    });
    const { breaking, additions } = compareElements(
      { 'bio-x': tag({ 'bio-result': 'BioResultDetail' }) },
      { 'bio-x': tag({ 'bio-outcome': 'BioResultDetail' }) },
    );
    assert.deepEqual(breaking, ['<bio-x> event "bio-result" removed or renamed']);
    assert.deepEqual(additions, ['<bio-x> event "bio-outcome" added']);
  });
});

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

describe('the generated environment variable tables (docs/broker.md, docs/operations.md, bioid-broker --help)', () => {
  const ROOT = new URL('../../', import.meta.url);

  for (const [page, text] of Object.entries(generatedPages())) {
    it(`${page}: its tables between the generated-part markers are what npm run docs writes from the declarations now`, () => {
      const committed = readFileSync(new URL(page, ROOT), 'utf8');
      assert.include(committed, '<!-- generated by npm run docs: ', `${page} has lost its generated tables' markers`);
      if (committed !== text) {
        const was = committed.split('\n');
        const now = text.split('\n');
        const first = now.findIndex((line, i) => line !== was[i]);
        assert.fail(
          `${page} has a stale generated table (first difference at line ${first + 1}: "${now[first] ?? ''}"). Run \`npm run docs\` and commit it.`,
        );
      }
    });
  }

  for (const [file, text] of Object.entries(generatedSources())) {
    it(`${file} is what npm run docs writes from the declarations now`, () => {
      assert.strictEqual(readFileSync(new URL(file, ROOT), 'utf8'), text, `${file} is stale: run \`npm run docs\` and commit it.`);
    });
  }

  it('a stale table is rewritten, and text outside the markers is kept', () => {
    const page = 'before\n<!-- generated by npm run docs: check-env -->\n| stale |\n<!-- end of generated part -->\nafter\n';
    const made = withGeneratedParts(page);
    assert.match(made, /^before\n<!-- generated by npm run docs: check-env \(from broker\/src\/check-env\.ts/);
    assert.include(made, '| `BIOID_CHECK_COOKIE` |');
    assert.notInclude(made, '| stale |');
    assert.match(made, /<!-- end of generated part -->\nafter\n$/);
    assert.throws(
      () => withGeneratedParts('<!-- generated by npm run docs: nothing -->\n<!-- end of generated part -->'),
      /no generated table is called "nothing"/,
    );
  });
});
