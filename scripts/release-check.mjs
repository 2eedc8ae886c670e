#!/usr/bin/env node
// `npm run release:check`: the three packages as npm would publish them. Each is packed from a copy of
// the tree (scripts/tarball.mjs, as test/package/tarball.node.test.ts packs them, so the prepack of
// bioid-broker and bioid-simulator never empties a dist/ that tests read), then each tarball goes through
// publint (package.json, `files` and `exports` against what the tarball holds) and @arethetypeswrong/cli
// (attw: what TypeScript resolves for every entry point), and its sizes are printed as npm prints them:
// packed (the .tgz) and unpacked, 1 kB = 1000 B, with the bytes. Any problem either tool finds fails the
// check, and so does a bioid-sdk tarball over its ceiling (bench/budgets.json, "tarball"). The packages
// are packed as the next release publishes them: with the pending changesets applied, whose text grows
// each CHANGELOG.md (scripts/version-packages.mjs, applyPendingChangesets).
// bioid-sdk is packed without its prepack, from the dist/ of `npm run build` (npm test builds first).
// docs/contributing.md, "Releasing".
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TARBALL_BUDGET } from '../bench/budgets.mjs';
import { formatBytes, packPackages } from './tarball.mjs';
import { applyPendingChangesets } from './version-packages.mjs';

const run = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const NODE_MODULES = join(ROOT, 'node_modules');
const BIN = (name) => join(NODE_MODULES, '.bin', process.platform === 'win32' ? `${name}.cmd` : name);

/**
 * attw's profile: `esm-only`, as all three packages are ES modules only (`"type": "module"`, no
 * `require` condition): it leaves out node10 (which reads no `exports`, so every subpath fails to
 * resolve) and node16 from CommonJS (where a `require` of an ES module is reported); an ES module package
 * cannot pass either, by design. The per-tag modules are named too: attw skips wildcard subpaths.
 */
const ATTW = {
  'bioid-sdk': ['--profile', 'esm-only', '--include-entrypoints', './elements/bio-verify.js', './elements/bio-enroll.js'],
  'bioid-broker': ['--profile', 'esm-only'],
  'bioid-simulator': ['--profile', 'esm-only'],
};

/** The one package held to a size ceiling. */
const CEILINGS = { 'bioid-sdk': TARBALL_BUDGET };

async function sh(command, args, cwd) {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false', FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error) {
    return { ok: false, output: `${error.stdout ?? ''}${error.stderr ?? ''}${error.stdout || error.stderr ? '' : error.message}` };
  }
}

/** `242.7 kB (242,723 B)`: npm's figure, then the exact bytes. */
const size = (bytes) => `${formatBytes(bytes)} (${bytes.toLocaleString('en-US')} B)`;

const work = mkdtempSync(join(tmpdir(), 'bioid-release-check-'));
let failed = false;
try {
  // What the next release publishes: the pending changesets applied, their text in each CHANGELOG.md.
  let versions;
  const packed = await packPackages(work, { prepare: (tree) => (versions = applyPendingChangesets(tree)) });
  if (versions) {
    const list = Object.entries(versions).map(([name, version]) => `${name} ${version}`);
    console.log(`The next release, with the pending changesets applied (npm run version-packages): ${list.join(', ')}`);
  }
  const checked = await Promise.all(
    packed.map(async (pkg) => {
      const [publint, types] = await Promise.all([
        sh(BIN('publint'), ['run', pkg.tarball, '--strict'], work),
        sh(BIN('attw'), [pkg.tarball, ...ATTW[pkg.name], '--format', 'ascii', '--no-emoji'], work),
      ]);
      return { ...pkg, publint, types };
    }),
  );
  for (const { name, dir, tarball, packed: bytes, unpacked, files, publint, types } of checked) {
    // publint prints "All good!" with no finding; any suggestion, warning or error fails (--strict
    // makes warnings errors; suggestions are not allowed either).
    const publintClean = publint.ok && /All good!/.test(publint.output);
    const ceiling = CEILINGS[name];
    const over = ceiling !== undefined && bytes > ceiling;
    console.log(`${tarball.slice(join(work, 'tarballs').length + 1)}  (${dir || '.'})`);
    console.log(
      `  packed ${size(bytes)}${ceiling === undefined ? '' : `, ceiling ${size(ceiling)}${over ? `: OVER by ${size(bytes - ceiling)}` : ''}`}`,
    );
    console.log(`  unpacked ${size(unpacked)}, ${files.length} files`);
    console.log(`  publint: ${publintClean ? 'clean' : 'PROBLEMS'}`);
    if (!publintClean) console.log(publint.output.replace(/^/gm, '    '));
    console.log(`  attw ${types.ok ? 'clean' : 'PROBLEMS'} (${ATTW[name].join(' ')})`);
    if (!types.ok) console.log(types.output.replace(/^/gm, '    '));
    if (over) {
      const largest = [...files]
        .sort((a, b) => b.size - a.size)
        .slice(0, 5)
        .map((f) => `${f.path} ${formatBytes(f.size)}`);
      console.log(`  ${name} is over its ceiling (bench/budgets.json, "tarball"); its largest files, unpacked: ${largest.join(', ')}`);
    }
    failed ||= !publintClean || !types.ok || over;
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  failed = true;
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed) {
  console.error(
    'release:check failed: fix what publint or attw report (package.json "exports", "types", "files"), or the size over the ceiling.',
  );
  process.exit(1);
}
