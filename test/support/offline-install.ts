/**
 * This repository's packages as an integrator gets them: packed from a copy of the tree (so a `prepack`
 * never empties the `dist/` that other tests read) and installed from the tarballs into an
 * empty project, without the network.
 *
 * Offline, npm needs each dependency's tarball (its cache has them, since this repository installed
 * them) and its registry metadata (which `npm ci` never fetched). So the empty project gets a lockfile
 * seeded from this repository's: the tarballs' dependencies at the very versions and places the
 * repository uses, which npm then installs from its cache by integrity.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pack as packTarball } from '../../scripts/tarball.mjs';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export interface Manifest {
  name: string;
  version: string;
  license?: string;
  files?: string[];
  bin?: Record<string, string>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export interface Packed {
  manifest: Manifest;
  /** Absolute path of the .tgz. */
  tarball: string;
}

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [field: string]: unknown;
}

export const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** `npm <args>` in `cwd`, its output returned; a failure says the command and npm's own words. */
export async function npm(cwd: string, args: string[], timeoutMs = 60_000): Promise<string> {
  try {
    const { stdout } = await run(NPM, args, { cwd, timeout: timeoutMs, env: { ...process.env, npm_config_update_notifier: 'false' } });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

/** `npm pack` in `dir` (with or without its prepack; scripts/tarball.mjs), the tarball written to `into`. */
export async function pack(dir: string, into: string, options: { ignoreScripts?: boolean } = {}): Promise<Packed> {
  return { manifest: readManifest(dir), tarball: await packTarball(dir, into, options) };
}

/** Where Node would find `name` from the package at lock path `from` ('' is the project itself). */
function lockPathOf(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const at = base.lastIndexOf('/node_modules/');
    base = at < 0 ? '' : base.slice(0, at);
  }
}

/**
 * Writes `package.json` and a `package-lock.json` for an empty project in `app`: the tarballs as its
 * dependencies, and every package they need, transitively, copied from the repository's lockfile.
 */
export function seedLockfile(app: string, repoLockfile: string, packed: Packed[], also: string[] = []): void {
  const repo = (JSON.parse(readFileSync(repoLockfile, 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const alsoVersions = Object.fromEntries(also.map((name) => [name, repo[`node_modules/${name}`]?.version ?? '*']));
  const dependencies = { ...Object.fromEntries(packed.map((p) => [p.manifest.name, `file:${p.tarball}`])), ...alsoVersions };
  const packages: Record<string, unknown> = { '': { name: 'app', version: '1.0.0', dependencies } };
  const queue: string[] = [];
  const need = (from: string, names: Record<string, string> | undefined, optional: boolean) => {
    for (const name of Object.keys(names ?? {})) {
      if (packed.some((p) => p.manifest.name === name)) continue;
      const path = lockPathOf(repo, from, name);
      if (!path) {
        if (optional) continue;
        throw new Error(
          `${name} (needed by ${from || 'the packed packages'}) is not in package-lock.json; the offline install cannot get it.`,
        );
      }
      if (path in packages) continue;
      // dev/peer flags describe the repository's tree; npm recomputes them for this one.
      const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = repo[path]!;
      packages[path] = entry;
      queue.push(path);
    }
  };
  for (const { manifest, tarball } of packed) {
    packages[`node_modules/${manifest.name}`] = {
      version: manifest.version,
      resolved: `file:${tarball}`,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      ...(manifest.license ? { license: manifest.license } : {}),
      ...(manifest.dependencies ? { dependencies: manifest.dependencies } : {}),
      ...(manifest.peerDependencies ? { peerDependencies: manifest.peerDependencies } : {}),
      ...(manifest.bin ? { bin: manifest.bin } : {}),
      ...(manifest.engines ? { engines: manifest.engines } : {}),
    };
    need('', manifest.dependencies, false);
  }
  need('', alsoVersions, false);
  while (queue.length > 0) {
    const path = queue.shift()!;
    const entry = repo[path]!;
    need(path, entry.dependencies, false);
    need(path, entry.optionalDependencies, true);
    need(path, entry.peerDependencies, true);
  }
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  writeFileSync(
    join(app, 'package-lock.json'),
    `${JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
}

/**
 * `npm install --offline <tarballs>` into `app`, after seeding its lockfile; `also` names packages of the
 * repository's own lockfile the project installs beside them (a quick start's `npm install … express`).
 */
export async function installOffline(app: string, repoLockfile: string, packed: Packed[], also: string[] = []): Promise<void> {
  seedLockfile(app, repoLockfile, packed, also);
  await npm(app, ['install', '--offline', '--no-audit', '--no-fund', ...packed.map((p) => p.tarball)], 120_000);
}
