/**
 * What each package's tarball holds (docs/versioning.md, "What is in the package"). The three packages are
 * packed once, as `npm run release:check` packs them (scripts/tarball.mjs: from a copy of the tree,
 * bioid-sdk from the dist/ of `npm run build`), and each tarball is read back: every file matches a pattern
 * of its package's allow list below (a file none matches fails the test, named, so nothing from the
 * repository leaks in by accident), every file package.json points at is in it, and bioid-sdk stays within
 * its ceiling (bench/budgets.json, "tarball"), packed as the next release publishes it (the pending changesets
 * applied). Reads dist/: run `npm run build` first.
 *
 * A new kind of file in a package is a decision: add its pattern here, with what it is for.
 */
import { assert } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TARBALL_BUDGET } from '../../bench/budgets.mjs';
import { formatBytes, packPackages, type PackedPackage } from '../../scripts/tarball.mjs';
import { applyPendingChangesets, pendingChangesets } from '../../scripts/version-packages.mjs';

/** Every package's own files; npm adds package.json, README and LICENSE, `files` names CHANGELOG.md. */
const OWN = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'];

/** Per package: each pattern a shipped file may match, and what such a file is for. */
const ALLOWED: Record<string, Array<[RegExp, string]>> = {
  'bioid-sdk': [
    [/^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/, 'the package itself'],
    [/^custom-elements\.json$/, 'the elements manifest, for editors and tools'],
    [/^dist\/(index|elements\/index|broker\/index|sw\/index)\.js$/, 'an entry point'],
    [/^dist\/elements\/tags\/bio-[a-z-]+\.js$/, 'a per-tag module, bioid-sdk/elements/<tag>.js'],
    [/^dist\/chunks\/[a-z][a-z-]*-[\w-]{8}\.js$/, 'code the entry points share'],
    [/^dist\/bioid-[a-z-]+\.js$/, 'the script-tag bundle (bioid-elements.js) and the files it loads on use'],
    [/^dist\/([a-z-]+\/)*[a-z-]+\.d\.ts$/, 'a declaration file'],
    [/^docs\/[a-z-]+\.md$/, 'a doc'],
    [/^docs\/recipes\/php\/([a-z-]+\/)?[a-z-]+\.php$/, 'a PHP recipe of docs/backends.md'],
  ],
  'bioid-broker': [
    [/^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/, 'the package itself'],
    [/^dist\/cli\.js$/, 'the bin, bioid-broker'],
  ],
  'bioid-simulator': [
    [/^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/, 'the package itself'],
    [/^dist\/cli\.js$/, 'the bin, bioid-simulator'],
    [/^dist\/chunks\/[a-z][a-z-]*-[A-Z0-9]{8}\.js$/, 'the servers the bin starts, loaded after --help'],
  ],
};

/**
 * The docs about this repository rather than the package, and the reference generated from the .d.ts and
 * custom-elements.json the package ships anyway: on GitHub only, the shipped docs link there.
 */
const REPOSITORY_ONLY_DOCS = [
  'docs/architecture.md',
  'docs/contributing.md',
  'docs/demo.md',
  'docs/development.md',
  'docs/performance.md',
  'docs/security-tests.md',
  'docs/spec-coverage.md',
  'docs/testing.md',
  'docs/wordpress.md',
  'docs/reference/',
];

interface Manifest {
  main?: string;
  types?: string;
  unpkg?: string;
  jsdelivr?: string;
  customElements?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  sideEffects?: boolean | string[];
}

/** Every path package.json points at, with the field it is in: `exports` at any depth, `bin`, `types`… */
function referencedPaths(manifest: Manifest): Array<{ field: string; path: string }> {
  const found: Array<{ field: string; path: string }> = [];
  const walk = (field: string, value: unknown) => {
    if (typeof value === 'string') found.push({ field, path: value });
    else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) walk(`${field}["${key}"]`, inner);
  };
  for (const field of ['main', 'types', 'unpkg', 'jsdelivr', 'customElements', 'bin', 'exports'] as const) walk(field, manifest[field]);
  if (Array.isArray(manifest.sideEffects)) manifest.sideEffects.forEach((path, i) => found.push({ field: `sideEffects[${i}]`, path }));
  return found;
}

/** The files a package.json path names: one, or those a `*` pattern matches. */
function matching(path: string, files: string[]): string[] {
  const relative = path.replace(/^\.\//, '');
  if (!relative.includes('*')) return files.filter((file) => file === relative);
  const pattern = new RegExp(
    `^${relative
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );
  return files.filter((file) => pattern.test(file));
}

describe('What each package ships (docs/versioning.md, "What is in the package")', function () {
  this.timeout(180_000);
  let work: string;
  const packed = new Map<string, PackedPackage>();
  const tarball = (name: string) => packed.get(name)!;
  const paths = (name: string) => tarball(name).files.map((file) => file.path);

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'bioid-tarball-'));
    // As the next release publishes them: the pending changesets applied, their text in each CHANGELOG.md.
    for (const pkg of await packPackages(work, { prepare: applyPendingChangesets })) packed.set(pkg.name, pkg);
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const name of Object.keys(ALLOWED)) {
    it(`${name} ships only what its users need: every file matches a pattern of its allow list`, () => {
      const unexpected = paths(name).filter((path) => !ALLOWED[name]!.some(([pattern]) => pattern.test(path)));
      assert.deepEqual(
        unexpected,
        [],
        `${name} would publish files nobody decided to ship: keep them out through "files" in its package.json, or add a pattern to this test saying what they are for`,
      );
    });

    it(`${name} ships its package.json, README, LICENSE and CHANGELOG`, () => {
      assert.includeMembers(paths(name), OWN);
    });

    it(`${name}: every file its package.json points at (exports, bin, types, sideEffects…) is in the tarball`, () => {
      const manifest = JSON.parse(
        tarball(name)
          .files.find((file) => file.path === 'package.json')!
          .contents.toString('utf8'),
      ) as Manifest;
      const references = referencedPaths(manifest);
      assert.isNotEmpty(
        references.filter((r) => r.field.startsWith('exports') || r.field.startsWith('bin')),
        'an entry point or a bin',
      );
      const missing = references
        .filter(({ path }) => matching(path, paths(name)).length === 0)
        .map(({ field, path }) => `${field}: ${path}`);
      assert.deepEqual(missing, [], `package.json of ${name} points at files the tarball does not hold`);
    });
  }

  it(`bioid-sdk packs to at most ${TARBALL_BUDGET / 1000} kB: the .tgz npm publishes, its bytes as npm counts them (bench/budgets.json, "tarball")`, () => {
    const { packed: bytes, unpacked, files } = tarball('bioid-sdk');
    const largest = [...files]
      .sort((a, b) => b.size - a.size)
      .slice(0, 8)
      .map((f) => `${f.path} ${formatBytes(f.size)}`);
    assert.isAtMost(
      bytes,
      TARBALL_BUDGET,
      `bioid-sdk packs to ${bytes} B (${formatBytes(bytes)}; ${formatBytes(unpacked)} unpacked, ${files.length} files), ` +
        `${bytes - TARBALL_BUDGET} B over its ${TARBALL_BUDGET} B ceiling. Its largest files, unpacked: ${largest.join(', ')}.`,
    );
  });

  it("bioid-sdk is measured as the next release publishes it: its CHANGELOG.md holds every pending changeset's text for it", () => {
    const changelog = tarball('bioid-sdk')
      .files.find((file) => file.path === 'CHANGELOG.md')!
      .contents.toString('utf8');
    const pending = pendingChangesets()
      .map((file) => /^---\n([\s\S]*?)\n---\n\s*([\s\S]*?)\s*$/.exec(readFileSync(file, 'utf8'))!)
      .filter(([, releases]) => /^['"]?bioid-sdk['"]?:/m.test(releases!));
    for (const [, , text] of pending) assert.include(changelog, text!.split('\n')[0]);
  });

  it('bioid-sdk ships the script, the files it loads on use (diagnostics, languages), the per-tag modules, their declarations and the elements manifest', () => {
    const files = paths('bioid-sdk');
    assert.includeMembers(files, [
      'custom-elements.json',
      'dist/bioid-elements.js',
      'dist/bioid-diagnostics.js',
      'dist/bioid-de.js',
      'dist/bioid-es.js',
      'dist/bioid-fr.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/react.d.ts',
      'dist/vue.d.ts',
      'dist/elements/tags/bio-verify.js',
      'dist/elements/tags/bio-verify.d.ts',
    ]);
  });

  it('bioid-sdk ships no source maps, and no file of it names one (DevTools would ask for a file that is not there)', () => {
    const { files } = tarball('bioid-sdk');
    assert.deepEqual(
      files.filter((f) => f.path.endsWith('.map')).map((f) => f.path),
      [],
      'source maps',
    );
    const naming = files
      .filter((f) => f.path.endsWith('.js') && /\/[/*][#@] sourceMappingURL=/.test(f.contents.toString('utf8')))
      .map((f) => f.path);
    assert.deepEqual(naming, [], 'files naming a source map');
  });

  it('bioid-sdk ships the docs for using it as text: images stay in the repository (the docs link to them on GitHub), and so do the docs about the repository', () => {
    const files = paths('bioid-sdk');
    assert.deepEqual(
      files.filter((path) => /\.(png|jpe?g|gif|svg|webp)$/.test(path)),
      [],
      'images',
    );
    assert.deepEqual(
      files.filter((path) => REPOSITORY_ONLY_DOCS.some((doc) => (doc.endsWith('/') ? path.startsWith(doc) : path === doc))),
      [],
      'docs about the repository',
    );
    assert.includeMembers(files, ['docs/elements.md', 'docs/core.md', 'docs/broker.md', 'docs/broker-contract.md', 'docs/versioning.md']);
  });

  it('custom-elements.json describes the public surface of the elements: no private or protected members', () => {
    const manifest = JSON.parse(
      tarball('bioid-sdk')
        .files.find((f) => f.path === 'custom-elements.json')!
        .contents.toString('utf8'),
    ) as {
      modules: Array<{ path: string; declarations?: Array<{ name: string; members?: Array<{ name: string; privacy?: string }> }> }>;
    };
    const hidden = manifest.modules.flatMap((mod) =>
      (mod.declarations ?? []).flatMap((d) =>
        (d.members ?? [])
          .filter((m) => (m.privacy ?? 'public') !== 'public' || /^[_#]/.test(m.name))
          .map((m) => `${d.name}.${m.name} (${m.privacy ?? 'public'})`),
      ),
    );
    assert.deepEqual(hidden, []);
    assert.isNotEmpty(manifest.modules, 'modules');
  });
});
