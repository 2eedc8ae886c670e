// The three packages as npm publishes them: packed from a copy of the tree (so the prepack of bioid-broker
// and bioid-simulator never empties a dist/ that tests read), and each tarball read back: its files, its
// size (the .tgz, what npm prints as "package size") and its unpacked size (the files' bytes summed, npm's
// "unpacked size"). `npm run release:check` (scripts/release-check.mjs) and the tests that install a
// package from its tarball (test/package/, test/frameworks/) pack through here. bioid-sdk is packed without its prepack, from the
// dist/ of `npm run build`. docs/versioning.md, "What is in the package".
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * A package of this repository.
 * @typedef {object} PackageDir
 * @property {string} name
 * @property {string} dir Its folder in this repository, '' for bioid-sdk.
 * @property {boolean} ignoreScripts Packed without its prepack (bioid-sdk, from the dist/ of `npm run build`).
 */
/**
 * A file of a tarball.
 * @typedef {object} TarballFile
 * @property {string} path Its path in the package, without npm's leading `package/`.
 * @property {number} size
 * @property {number} mode
 * @property {Buffer} contents
 */
/**
 * What readTarball reads.
 * @typedef {object} TarballContents
 * @property {number} packed The .tgz's size in bytes: npm's "package size".
 * @property {number} unpacked The files' sizes summed: npm's "unpacked size".
 * @property {TarballFile[]} files Sorted by path.
 */
/** @typedef {PackageDir & TarballContents & { tarball: string }} PackedPackage A packed package; `tarball`: the .tgz's absolute path. */

/**
 * The packages of this repository by folder ('' is bioid-sdk); only bioid-sdk is packed without its prepack.
 * @type {PackageDir[]}
 */
export const PACKAGES = [
  { name: 'bioid-sdk', dir: '', ignoreScripts: true },
  { name: 'bioid-broker', dir: 'broker', ignoreScripts: false },
  { name: 'bioid-simulator', dir: 'simulator', ignoreScripts: false },
];

/**
 * Bytes as npm prints them (1 kB = 1000 B, one decimal), so the figures here read like `npm pack`'s.
 * @param {number} bytes
 * @returns {string}
 */
export function formatBytes(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 999_950) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A tar field: text up to its first NUL. */
const field = (block, start, length) => {
  const text = block.toString('utf8', start, start + length);
  const end = text.indexOf('\0');
  return end < 0 ? text : text.slice(0, end);
};

/**
 * The files of a .tgz, read from the file itself: each path without npm's leading `package/`, its size, mode
 * and contents; `packed` is the .tgz's size, `unpacked` the files' sizes summed.
 * @param {string} tarball
 * @returns {TarballContents}
 */
export function readTarball(tarball) {
  const tar = gunzipSync(readFileSync(tarball));
  const files = [];
  let longPath;
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) break;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] || 48);
    const body = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      // A pax header: `<length> path=<path>\n` for a path longer than the header holds.
      longPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
      continue;
    }
    if (type !== '0') {
      longPath = undefined;
      continue;
    }
    const prefix = field(header, 345, 155);
    const path = longPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longPath = undefined;
    files.push({ path: path.replace(/^package\//, ''), size, mode: parseInt(field(header, 100, 8).trim() || '0', 8), contents: body });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  return { packed: statSync(tarball).size, unpacked: files.reduce((sum, file) => sum + file.size, 0), files };
}

/**
 * The package at `from` copied to `to`: with `onlyFiles` its package.json, README, LICENSE and `files`
 * (bioid-sdk, packed from the dist/ already built), else all but node_modules and dist (a package whose
 * prepack builds it, with the repository's tools linked above it: copyTree).
 * @param {string} from
 * @param {string} to
 * @param {boolean} onlyFiles
 * @returns {void}
 */
export function copyPackage(from, to, onlyFiles) {
  const manifest = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  if (onlyFiles) {
    for (const entry of ['package.json', 'README.md', 'LICENSE', ...(manifest.files ?? []).filter((f) => !f.startsWith('!'))]) {
      if (existsSync(join(from, entry))) cpSync(join(from, entry), join(to, entry), { recursive: true });
    }
  } else {
    cpSync(from, to, {
      recursive: true,
      filter: (source) => !['node_modules', 'dist'].includes(source.slice(from.length + 1).split('/')[0]),
    });
  }
}

/**
 * The packages of `dirs` (PACKAGES' folders) copied into `work`/tree as copyPackage copies them, bioid-sdk's
 * files only; returns the tree's path. The repository's node_modules is linked into `work`, above the
 * packages: a build in a package's prepack finds its tools there (Node looks for a module in every folder
 * above the importer), while the packages hold no node_modules. npm pack reads every package.json of a
 * package's own node_modules (through a link too), which cost two of the three and a half CPU seconds of a
 * pack.
 * @param {string} work
 * @param {string[]} [dirs]
 * @returns {string}
 */
export function copyTree(work, dirs = PACKAGES.map((pkg) => pkg.dir)) {
  const tree = join(work, 'tree');
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  for (const dir of dirs) copyPackage(join(ROOT, dir), join(tree, dir), dir === '');
  return tree;
}

/**
 * Packs the three packages from a copy of the tree made in `work` (which must exist and be empty), the
 * tarballs written to `work`/tarballs; each result is its PACKAGES entry, the tarball's path and
 * readTarball's figures. `prepare` changes the copy before it is packed (release:check applies the pending
 * changesets). The packs run at once (two of them run an esbuild build).
 * @param {string} work
 * @param {{ prepare?: (tree: string) => unknown }} [options]
 * @returns {Promise<PackedPackage[]>}
 */
export async function packPackages(work, { prepare } = {}) {
  if (!existsSync(join(ROOT, 'dist/index.js')) || !existsSync(join(ROOT, 'custom-elements.json'))) {
    throw new Error('dist/ or custom-elements.json is missing: run `npm run build` first.');
  }
  const tree = copyTree(work);
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  prepare?.(tree);
  return Promise.all(
    PACKAGES.map(async (pkg) => {
      const tarball = await pack(join(tree, pkg.dir), tarballs, { ignoreScripts: pkg.ignoreScripts });
      return { ...pkg, tarball, ...readTarball(tarball) };
    }),
  );
}

/**
 * `npm pack` in `dir` (with its prepack unless `ignoreScripts`), the tarball written to `into`; resolves to
 * its path. Every pack of this repository's tests and release check goes through here.
 * @param {string} dir
 * @param {string} into
 * @param {{ ignoreScripts?: boolean }} [options]
 * @returns {Promise<string>}
 */
export async function pack(dir, into, { ignoreScripts = false } = {}) {
  mkdirSync(into, { recursive: true });
  const args = ['pack', '--silent', '--pack-destination', into, ...(ignoreScripts ? ['--ignore-scripts'] : [])];
  // The npm test run's own npm_config_* (prefix, workspace…) must not steer the nested npm.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
  try {
    const { stdout } = await run(NPM, args, {
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...env, npm_config_update_notifier: 'false', NO_COLOR: '1' },
    });
    return join(into, stdout.trim().split('\n').pop());
  } catch (error) {
    throw new Error(
      `npm pack failed in ${dir}:\n${error.stdout ?? ''}${error.stderr ?? ''}${error.stdout || error.stderr ? '' : error.message}`,
    );
  }
}
