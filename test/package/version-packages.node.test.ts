/**
 * `npm run version-packages` (scripts/version-packages.mjs, docs/contributing.md "Releases"): while
 * bioid-sdk is at 0.x, a minor of it leaves bioid-simulator's peer range, and changesets proposes 1.0.0 for
 * the simulator though no changeset asked for it. The script writes the next minor instead. Each case runs
 * `changeset version` for real in a git repository of its own: the three manifests and changelogs of this
 * repository, set to 0.1.0, with the changesets the case writes.
 */
import { assert } from 'chai';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGES } from '../../scripts/tarball.mjs';
import { applyPendingChangesets, pendingChangesets, unaskedMajors, versionPackages } from '../../scripts/version-packages.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run version-packages: no 1.0.0 that nobody asked for', function () {
  // Several processes of changesets and npm: a bound for a hang, not a pace (over 30 s on a busy machine).
  this.timeout(120_000);
  let root: string;

  /** A repository whose packages are all at 0.1.0 (the simulator's peer range and the broker's range ^0.1.0), with these changesets. */
  function repository(changesets: Record<string, string>): string {
    root = mkdtempSync(join(tmpdir(), 'bioid-version-'));
    cpSync(join(ROOT, 'lerna.json'), join(root, 'lerna.json'));
    mkdirSync(join(root, '.changeset'));
    cpSync(join(ROOT, '.changeset/config.json'), join(root, '.changeset/config.json'));
    for (const { dir } of PACKAGES) {
      mkdirSync(join(root, dir), { recursive: true });
      const manifest = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
      manifest.version = '0.1.0';
      for (const field of ['dependencies', 'peerDependencies']) if (manifest[field]?.['bioid-sdk']) manifest[field]['bioid-sdk'] = '^0.1.0';
      writeFileSync(join(root, dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      writeFileSync(join(root, dir, 'CHANGELOG.md'), `# ${manifest.name}\n\n## 0.1.0\n\nThe first release.\n`);
    }
    for (const [name, text] of Object.entries(changesets)) writeFileSync(join(root, '.changeset', `${name}.md`), text);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('-c', 'user.email=test@example.com', '-c', 'user.name=test', 'commit', '-q', '-m', 'packages at 0.1.0');
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    return root;
  }
  const version = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).version;
  const changelog = (dir: string) => readFileSync(join(root, dir, 'CHANGELOG.md'), 'utf8');

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a bioid-sdk minor: the simulator, whose peer range it leaves, gets 0.2.0 (changesets alone writes 1.0.0); the broker follows as usual', () => {
    repository({ feature: "---\n'bioid-sdk': minor\n---\n\nA feature.\n" });
    const corrections = versionPackages(root, { lockfile: false, log: () => {} });
    assert.deepEqual(corrections, [{ name: 'bioid-simulator', from: '1.0.0', to: '0.2.0' }]);
    assert.strictEqual(version(''), '0.2.0');
    assert.strictEqual(version('simulator'), '0.2.0');
    assert.match(changelog('simulator'), /^# bioid-simulator\n\n## 0\.2\.0\n/);
    assert.notInclude(changelog('simulator'), '1.0.0');
    assert.strictEqual(version('broker'), '0.1.1', 'a dependency bump, as changesets writes it');
  });

  it('a major that a changeset asks for is left as it is', () => {
    repository({
      feature: "---\n'bioid-sdk': minor\n---\n\nA feature.\n",
      stable: "---\n'bioid-simulator': major\n---\n\nThe simulator is stable.\n",
    });
    assert.deepEqual(versionPackages(root, { lockfile: false, log: () => {} }), []);
    assert.strictEqual(version('simulator'), '1.0.0');
  });

  it('only a major from 0.x without a changeset of its own is corrected', () => {
    const release = { name: 'bioid-simulator', type: 'major' as const, newVersion: '1.0.0', changesets: [] };
    assert.deepEqual(unaskedMajors([{ ...release, oldVersion: '0.4.2' }]), [{ name: 'bioid-simulator', from: '1.0.0', to: '0.5.0' }]);
    assert.deepEqual(unaskedMajors([{ ...release, oldVersion: '1.2.0', newVersion: '2.0.0' }]), []);
    assert.deepEqual(unaskedMajors([{ ...release, oldVersion: '0.4.2', changesets: ['stable'] }]), []);
    assert.deepEqual(unaskedMajors([{ ...release, type: 'minor', oldVersion: '0.4.2', newVersion: '0.5.0' }]), []);
  });
});

describe('the next release as release:check packs it (applyPendingChangesets)', function () {
  this.timeout(120_000);
  const trees: string[] = [];
  after(() => trees.forEach((tree) => rmSync(tree, { recursive: true, force: true })));

  /**
   * A copy of the packages' manifests and changelogs, the pending changesets applied while git's clock (the
   * date a commit takes when nothing fixes it) reads `date`; its changelogs.
   */
  function applied(date: string): string[] {
    const tree = mkdtempSync(join(tmpdir(), 'bioid-next-release-'));
    trees.push(tree);
    for (const { dir } of PACKAGES) {
      mkdirSync(join(tree, dir), { recursive: true });
      for (const file of ['package.json', 'CHANGELOG.md']) cpSync(join(ROOT, dir, file), join(tree, dir, file));
    }
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
    const saved = { author: process.env.GIT_AUTHOR_DATE, committer: process.env.GIT_COMMITTER_DATE };
    process.env.GIT_AUTHOR_DATE = process.env.GIT_COMMITTER_DATE = date;
    try {
      applyPendingChangesets(tree);
    } finally {
      for (const [name, value] of [
        ['GIT_AUTHOR_DATE', saved.author],
        ['GIT_COMMITTER_DATE', saved.committer],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
    return PACKAGES.map(({ dir }) => readFileSync(join(tree, dir, 'CHANGELOG.md'), 'utf8'));
  }

  it('writes the same changelogs at any time: an entry names the same commit in every run, so the tarball keeps its size', function () {
    if (pendingChangesets().length === 0) this.skip(); // after `npm run version-packages`, nothing is pending
    // Two runs on two days of the clock, which a commit's hash would follow unless the commit's date is fixed.
    const first = applied('2026-01-01T10:00:00Z');
    assert.deepEqual(applied('2026-06-30T22:59:59Z'), first);
    assert.match(first[0]!, /\n- [0-9a-f]{7}: /, 'the entries name their commit');
  });
});
