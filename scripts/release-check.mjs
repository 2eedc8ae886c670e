#!/usr/bin/env node
// `npm run release:check`: the three packages as npm would publish them. Each is packed from a copy of
// the tree (as test/support/offline-install.ts does, so the prepack of bioid-broker and bioid-simulator
// never empties a dist/ that tests read), then each tarball goes through publint (package.json, `files`
// and `exports` against what the tarball holds) and @arethetypeswrong/cli (attw: what TypeScript resolves
// for every entry point), and its size is printed. Any problem either tool finds fails the check.
// bioid-sdk is packed without its prepack, from the dist/ of `npm run build` (npm test builds first).
// docs/development.md, "Releasing".
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const NODE_MODULES = join(ROOT, 'node_modules');
const BIN = (name) => join(NODE_MODULES, '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * attw's profile: `esm-only`, as all three packages are ES modules only (`"type": "module"`, no
 * `require` condition): it leaves out node10 (which reads no `exports`, so every subpath fails to
 * resolve) and node16 from CommonJS (where a `require` of an ES module is reported); an ES module package
 * cannot pass either, by design. The per-tag modules are named too: attw skips wildcard subpaths.
 */
const ATTW_SDK = ['--profile', 'esm-only', '--include-entrypoints', './elements/bio-verify.js', './elements/bio-enroll.js'];

const PACKAGES = [
  { dir: '', ignoreScripts: true, attw: ATTW_SDK },
  { dir: 'broker', ignoreScripts: false, attw: ['--profile', 'esm-only'] },
  { dir: 'simulator', ignoreScripts: false, attw: ['--profile', 'esm-only'] },
];

async function sh(command, args, cwd) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false', FORCE_COLOR: '0', NO_COLOR: '1' } });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    return { ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}${error.stdout || error.stderr ? '' : error.message}` };
  }
}

/** The package at `from` copied to `to`: bioid-sdk its package.json, README, LICENSE and `files`; the others all but node_modules and dist. */
function copy(from, to, onlyFiles) {
  const manifest = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  if (onlyFiles) {
    for (const entry of ['package.json', 'README.md', 'LICENSE', ...(manifest.files ?? []).filter((f) => !f.startsWith('!'))]) {
      if (existsSync(join(from, entry))) cpSync(join(from, entry), join(to, entry), { recursive: true });
    }
  } else {
    cpSync(from, to, { recursive: true, filter: (source) => !['node_modules', 'dist'].includes(source.slice(from.length + 1).split('/')[0]) });
  }
  symlinkSync(NODE_MODULES, join(to, 'node_modules'), 'dir');
}

const kB = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;

if (!existsSync(join(ROOT, 'dist/index.js')) || !existsSync(join(ROOT, 'custom-elements.json'))) {
  console.error('release:check: dist/ or custom-elements.json is missing: run `npm run build` first.');
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'bioid-release-check-'));
const tarballs = join(work, 'tarballs');
mkdirSync(tarballs);
let failed = false;
try {
  const tree = join(work, 'tree');
  copy(ROOT, tree, true);
  for (const { dir } of PACKAGES.slice(1)) copy(join(ROOT, dir), join(tree, dir), false);
  // The three packs at once: two of them run an esbuild build.
  const packed = await Promise.all(PACKAGES.map(async ({ dir, ignoreScripts, attw }) => {
    const cwd = join(tree, dir);
    const result = await sh(NPM, ['pack', '--silent', '--pack-destination', tarballs, ...(ignoreScripts ? ['--ignore-scripts'] : [])], cwd);
    if (!result.ok) throw new Error(`npm pack failed in ${dir || '.'}:\n${result.output}`);
    const name = result.output.trim().split('\n').pop();
    return { dir, attw, tarball: join(tarballs, name) };
  }));
  const checked = await Promise.all(packed.map(async ({ dir, attw, tarball }) => {
    const [publint, types, files] = await Promise.all([
      sh(BIN('publint'), ['run', tarball, '--strict'], work),
      sh(BIN('attw'), [tarball, ...attw, '--format', 'ascii', '--no-emoji'], work),
      sh('tar', ['-tzf', tarball], work),
    ]);
    return { dir, tarball, publint, types, files: files.output.trim().split('\n').length };
  }));
  for (const { dir, tarball, publint, types, files } of checked) {
    const name = tarball.slice(tarballs.length + 1);
    // publint prints "All good!" with no finding; any suggestion, warning or error fails (--strict
    // makes warnings errors; suggestions are not allowed either).
    const publintClean = publint.ok && /All good!/.test(publint.output);
    console.log(`${name}  ${kB(statSync(tarball).size)} packed, ${files} files  (${dir || '.'})`);
    console.log(`  publint: ${publintClean ? 'clean' : 'PROBLEMS'}`);
    if (!publintClean) console.log(publint.output.replace(/^/gm, '    '));
    console.log(`  attw ${types.ok ? 'clean' : 'PROBLEMS'} (${attwArgs(dir)})`);
    if (!types.ok) console.log(types.output.replace(/^/gm, '    '));
    failed ||= !publintClean || !types.ok;
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  failed = true;
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed) {
  console.error('release:check failed: fix what publint or attw report (package.json "exports", "types", "files").');
  process.exit(1);
}

function attwArgs(dir) {
  return PACKAGES.find((p) => p.dir === dir).attw.join(' ');
}
