#!/usr/bin/env node
// `npm run version-packages` (docs/contributing.md, "Releases"): `changeset version`, one correction, then
// the lockfile. The correction: while a package is at 0.x, changesets proposes a major of a package that
// no changeset names when a bump of another leaves its peer range (a minor of bioid-sdk leaves
// bioid-simulator's `^0.1.0`), and that major is 1.0.0. Published, it could never be taken back (npm never
// frees a version), and it would promise a stability nobody decided. For a 0.x package the breaking step is
// the minor, so such a release is written as the next minor: its package.json version and the heading of
// its CHANGELOG.md entry. A major that a changeset asks for is left as it is.
// @ts-check
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGES } from './tarball.mjs';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * `changeset <args>` in `root`: the repository's own @changesets/cli, run by path, so a copy of the tree
 * (applyPendingChangesets) needs no node_modules of its own and no npx starts.
 */
const CHANGESET = createRequire(import.meta.url).resolve('@changesets/cli/bin.js');
/** @type {(root: string, args: string[], stdio: import('node:child_process').StdioOptions) => unknown} */
const changeset = (root, args, stdio) => execFileSync(process.execPath, [CHANGESET, ...args], { cwd: root, stdio });

/**
 * A release as `changeset status --output` proposes it.
 * @typedef {object} ProposedRelease
 * @property {string} name
 * @property {'major' | 'minor' | 'patch' | 'none'} type
 * @property {string} oldVersion
 * @property {string} newVersion
 * @property {string[]} changesets The changesets that name this package (empty for a bump that only follows a dependency).
 */
/**
 * A release written as another version than the one `changeset version` writes.
 * @typedef {{ name: string; from: string; to: string }} Correction
 */

/**
 * What `changeset status` proposes, read before `changeset version` consumes the changesets.
 * @param {string} root a git repository
 * @returns {ProposedRelease[]}
 */
export function proposedReleases(root) {
  const dir = mkdtempSync(join(tmpdir(), 'bioid-changesets-'));
  try {
    const file = join(dir, 'status.json');
    changeset(root, ['status', '--output', file], ['ignore', 'ignore', 'inherit']);
    return JSON.parse(readFileSync(file, 'utf8')).releases;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The releases to write as a minor instead: a major from 0.x that no changeset of the package asked for.
 * @param {ProposedRelease[]} releases
 * @returns {Correction[]}
 */
export function unaskedMajors(releases) {
  return releases
    .filter(({ type, oldVersion, changesets }) => type === 'major' && oldVersion.startsWith('0.') && changesets.length === 0)
    .map(({ name, oldVersion, newVersion }) => {
      const [, minor] = oldVersion.split('.').map(Number);
      return { name, from: newVersion, to: `0.${minor + 1}.0` };
    });
}

/**
 * Writes `release.to` where `changeset version` wrote `release.from`: the package's version and its changelog heading.
 * @param {string} root
 * @param {Correction} release
 * @returns {void}
 */
export function writeAsMinor(root, release) {
  const pkg = PACKAGES.find(({ name }) => name === release.name);
  if (!pkg) throw new Error(`${release.name} is not a package of this repository (scripts/tarball.mjs, PACKAGES)`);
  const manifestPath = join(root, pkg.dir, 'package.json');
  const manifest = readFileSync(manifestPath, 'utf8');
  const version = `"version": "${release.from}"`;
  if (!manifest.includes(version)) throw new Error(`${manifestPath} does not hold ${version}: run changeset version first`);
  writeFileSync(manifestPath, manifest.replace(version, `"version": "${release.to}"`));
  const changelogPath = join(root, pkg.dir, 'CHANGELOG.md');
  const changelog = readFileSync(changelogPath, 'utf8');
  const heading = `\n## ${release.from}\n`;
  if (!changelog.includes(heading)) throw new Error(`${changelogPath} has no "## ${release.from}" entry`);
  writeFileSync(changelogPath, changelog.replace(heading, `\n## ${release.to}\n`));
}

/**
 * The whole step: propose, version, correct; the lockfile unless `lockfile` is false.
 * @param {string} root
 * @param {{ lockfile?: boolean; log?: (line: string) => void; stdio?: 'inherit' | 'ignore' }} [options]
 * @returns {Correction[]}
 */
export function versionPackages(root, { lockfile = true, log = console.log, stdio = 'inherit' } = {}) {
  const corrections = unaskedMajors(proposedReleases(root));
  changeset(root, ['version'], stdio);
  for (const release of corrections) {
    writeAsMinor(root, release);
    log(`${release.name}: ${release.to}, not ${release.from} (a peer range left while at 0.x; no changeset asked for a major)`);
  }
  if (lockfile) execFileSync(NPM, ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  return corrections;
}

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * The paths of the changesets not yet applied by `npm run version-packages` (.changeset/*.md but its README).
 * @returns {string[]}
 */
export function pendingChangesets() {
  const dir = join(ROOT, '.changeset');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => join(dir, file));
}

/**
 * Makes the copy of this repository at `tree` (scripts/tarball.mjs) what the next release publishes: the
 * pending changesets applied as `npm run version-packages` applies them, so the packed CHANGELOG.md holds
 * their text and release:check and the tarball test measure what a release ships. changesets reads the
 * history, so the copy becomes a git repository of its own. Returns the packages' versions as written, or
 * undefined when no changeset is pending (as in the publish job, which runs after the versions).
 * @param {string} tree
 * @returns {Record<string, string> | undefined}
 */
export function applyPendingChangesets(tree) {
  if (pendingChangesets().length === 0) return undefined;
  cpSync(join(ROOT, '.changeset'), join(tree, '.changeset'), { recursive: true });
  cpSync(join(ROOT, 'lerna.json'), join(tree, 'lerna.json'));
  writeFileSync(join(tree, '.gitignore'), 'node_modules\n');
  // A fixed date, so the commit has the same hash in every run: the changelog writes each entry after the
  // commit that added its changeset ("- 1a2b3c4: …"), and a hash that changed with the clock changed the
  // packed CHANGELOG.md, and the tarball's size by a byte or two, from run to run.
  const date = '2000-01-01T00:00:00Z';
  const env = { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  const git = (/** @type {string[]} */ ...args) => execFileSync('git', args, { cwd: tree, stdio: 'ignore', env });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=release-check@localhost', '-c', 'user.name=release-check', 'commit', '-q', '-m', 'the tree as it is');
  versionPackages(tree, { lockfile: false, log: () => {}, stdio: 'ignore' });
  return Object.fromEntries(
    PACKAGES.map(({ name, dir }) => [name, JSON.parse(readFileSync(join(tree, dir, 'package.json'), 'utf8')).version]),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) versionPackages(ROOT);
