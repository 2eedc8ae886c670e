/**
 * The codebase as a maintainer meets it after a clone: every path a source, test, script or bench file
 * cites is in the repository, nothing (docs and JSON tables included) cites notes or issues that live elsewhere, and the modules of each
 * package import one another without a circle (docs/architecture.md).
 */
import { assert } from 'chai';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SOURCE = /\.(ts|mts|mjs|js|php|css|html)$/;

function filesUnder(dir: string, kind = SOURCE): string[] {
  const at = join(root, dir);
  if (!existsSync(at)) return [];
  return readdirSync(at).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    return statSync(join(root, path)).isDirectory() ? filesUnder(path, kind) : kind.test(name) ? [path] : [];
  });
}

const CODE_DIRS = ['src', 'test', 'bench', 'scripts', 'broker/src', 'simulator/src', 'demo', 'wordpress'];
const codeFiles = CODE_DIRS.flatMap((dir) => filesUnder(dir));
const texts = new Map<string, string>();
/** A file's text, read once for all the checks below. */
const read = (file: string) => texts.get(file) ?? texts.set(file, readFileSync(join(root, file), 'utf8')).get(file)!;
// Docs, the budget table and the packages' manifests are read by maintainers too, so they cite nothing from outside either.
const textFiles = filesUnder('', /\.(md|json)$/);

// A repository path as comments, titles and imports write it: a top-level folder of this repository
// (after ./ or ../ for a relative one), then a file with an extension; inside another path it is not one. Template holes (`${…}`) and globs end the match, so only literal paths are checked.
const CITED_PATH =
  /(?<![\w./-])((?:\.\.?\/)*(?:docs|src|test|bench|scripts|broker|simulator|demo|wordpress|api)\/[\w./-]*\w\.(?:md|ts|mts|mjs|js|json|php|png|css|html|yml))\b/g;

describe('the codebase after a clone', () => {
  it('every repository path a comment or test title cites exists', () => {
    const missing: string[] = [];
    for (const file of codeFiles) {
      // Comments and test titles cite; a path in code (an import, an app's own file) is the compiler's or the test's to check.
      const text = read(file)
        .split('\n')
        .filter((line) => /^\s*(\/\/|\/\*|\*|#)|\b(it|describe)\(/.test(line))
        .join('\n');
      for (const [, cited] of text.matchAll(CITED_PATH)) {
        // A relative import names the built file (x.js) of a TypeScript source (x.ts).
        const paths = [cited, relative(root, join(root, dirname(file), cited))].flatMap((path) => [path, path.replace(/\.js$/, '.ts')]);
        const line = `${file} cites ${cited}`;
        if (!paths.some((path) => existsSync(join(root, path))) && !missing.includes(line)) missing.push(line);
      }
    }
    assert.deepEqual(missing, [], 'cite files of this repository (docs/...), or add the file');
  });

  it('no file cites design notes or issue numbers a maintainer does not have', () => {
    // Any case: a comment that starts a sentence with the name is as much a citation. So is a section of
    // the design notes by number (product, then a section) or a path that climbs out of docs/ to reach them.
    const outside = /\b(?:product\.md|decisions\.md|\.\.\/shared\/|issue \d+|product \d|docs\/\.\.\/)/i;
    const found = [...codeFiles, ...textFiles].filter((file) => outside.test(read(file)));
    assert.deepEqual(found, [], 'say the reason in the comment, or cite docs/ of this repository');
  });

  it('every "spec N.N" a comment or test title cites is a section of docs/spec-coverage.md, and every test it quotes exists', () => {
    const coverage = readFileSync(join(root, 'docs/spec-coverage.md'), 'utf8');
    // A section is a heading (## 5 Authentication) or a table's first cell (| 5.3 getToken …, | 4.1 token broker).
    const sections = new Set([...coverage.matchAll(/^(?:## |\| )(\d+(?:\.\d+)?)\b/gm)].map(([, n]) => n));
    const unresolved = new Set<string>();
    for (const file of codeFiles) {
      for (const [, list] of read(file).matchAll(/\bspec (\d+(?:\.\d+)?(?:, \d+(?:\.\d+)?)*)/g))
        for (const n of list.split(', ')) if (!sections.has(n) && !sections.has(n.split('.')[0]!)) unresolved.add(`spec ${n} (${file})`);
    }
    assert.deepEqual([...unresolved], [], "say the rule in docs/spec-coverage.md, in this project's words, with its tests");
    const missing: string[] = [];
    for (const [, file, titles] of coverage.matchAll(/([\w/.-]+\.test\.ts): ((?:"(?:[^"\\]|\\.)+"(?:, )?)+)/g)) {
      // Each title of the file as a pattern: a template hole (${what}) stands for any text.
      const written = [...readFileSync(join(root, 'test', file!), 'utf8').matchAll(/\bit\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)].map(
        ([, , title]) => title!.replace(/\\(.)/g, '$1'),
      );
      const patterns = written.map(
        (title) =>
          new RegExp(
            `^${title
              .split(/\$\{[^}]*\}/)
              .map(escapeRegExp)
              .join('.*')}$`,
          ),
      );
      for (const [, quoted] of titles!.matchAll(/"((?:[^"\\]|\\.)+)"/g)) {
        const title = quoted!.replace(/\\"/g, '"');
        // A quote may end in " …" where it shortens the title.
        const found = title.endsWith(' …')
          ? written.some((w) => w.startsWith(title.slice(0, -2)))
          : patterns.some((pattern) => pattern.test(title));
        if (!found) missing.push(`${file}: "${title}"`);
      }
    }
    assert.deepEqual(missing, [], 'quote the test title as it is written in it(…)');
  });

  it('every script and bench file starts with a comment saying its job', () => {
    const silent = [...filesUnder('scripts'), ...filesUnder('bench')]
      .filter((file) => /\.m?js$/.test(file))
      .filter((file) => !/^(\/\/|\/\*)/.test(read(file).replace(/^#!.*\n/, '')));
    assert.deepEqual(silent, [], 'start it with a // line: what it does and who runs it');
  });

  it('a script or bench module has its types in its own JSDoc, not in a declaration file beside it', () => {
    // tsconfig.json's allowJs: tsc reads the .mjs itself for the tests that import it, so nothing restates its signatures.
    const twins = [...filesUnder('scripts', /\.d\.mts$/), ...filesUnder('bench', /\.d\.mts$/)];
    assert.deepEqual(twins, [], 'write the types as JSDoc in the .mjs (@typedef, @param, @returns) and delete the .d.mts');
  });

  it('the README is short: what it is, one snippet, the two commands near its top, links (at most 3.5 KB)', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    assert.isAtMost(Buffer.byteLength(readme), 3584, 'tasks and explanations go to docs/, the README links them');
    const top = readme.split('\n').slice(0, 25).join('\n');
    assert.include(top, 'npm ci && npm start');
    assert.include(top, 'npm test');
  });

  for (const dir of ['src', 'broker/src', 'simulator/src']) {
    it(`the modules of ${dir}/ import one another without a circle`, () => {
      const graph = new Map<string, string[]>();
      for (const file of filesUnder(dir).filter((f) => f.endsWith('.ts'))) {
        const text = read(file);
        const deps = [...text.matchAll(/(?:import|export)[^;]*?from '(\.[^']+)'/g)].map(([, spec]) =>
          normalize(join(dirname(file), spec.replace(/\.js$/, '.ts'))),
        );
        graph.set(normalize(file), deps);
      }
      const circles: string[] = [];
      const done = new Set<string>();
      const path: string[] = [];
      const visit = (file: string) => {
        if (path.includes(file)) return void circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        if (done.has(file) || !graph.has(file)) return;
        path.push(file);
        for (const dep of graph.get(file)!) visit(dep);
        path.pop();
        done.add(file);
      };
      for (const file of graph.keys()) visit(file);
      assert.deepEqual(circles, [], 'move what both sides need into a module of its own');
    });
  }
});
