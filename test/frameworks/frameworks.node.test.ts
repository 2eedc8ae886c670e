/**
 * Chromium only, by design: <bio-verify> in real framework apps, each built by its own toolchain.
 *
 * test/frameworks/{react,vue,angular,svelte}/ are four small apps (React 19 and Vue 3 and Svelte 5 on
 * Vite, Angular through its CLI's application builder), each one component with <bio-verify> inside the
 * framework's form, its settings written as attributes, `subjectId` set as a property, `bio-result` and
 * `bio-error` handled the framework's way into the DOM. Each app's package.json and lockfile name its
 * toolchain only; bioid-sdk comes from the tarball packed here.
 *
 * The toolchains install once per machine into `~/.cache/bioid-sdk/frameworks/<hash>/<framework>/`
 * ($XDG_CACHE_HOME when set; `npm ci` from the app's lockfile; the hash is of the four package.json and
 * lockfiles, so a changed app installs anew, and every clone and worktree of this repository with the same
 * apps reuses it: some 400 MB, which a fresh clone would otherwise unpack again). Each run installs the
 * bioid-sdk tarball once, offline, into an empty project, copies the app's sources and that project into a
 * fresh folder inside the app's toolchain's (Node and the bundlers find the toolchain one folder up), builds
 * it, and serves the built files with the simulator's defaults (quick start 1's addresses, which the apps
 * use) replaced by this run's ports. The toolchain installs and builds run two at a time, Angular's first.
 *
 * docs/frameworks.md shows each app's component as written here (checked below). Like every test that
 * reads `dist/`, this one needs `npm run build` first.
 */
import { assert } from 'chai';
import { execFile, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import { launch, type Browser } from '../support/engines.js';
import { installOffline, npm, pack, type Packed } from '../support/offline-install.js';
import { copyPackage } from '../../scripts/tarball.mjs';
import type { Ready } from '../../simulator/src/cli.js';
import { assertConfirmedMatch, startSimulator } from '../support/simulator-run.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const CACHE = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'bioid-sdk', 'frameworks');
/** A toolchain no run has used for this long goes (another clone may be on other versions of the apps). */
const UNUSED_MS = 14 * 24 * 3600_000;
const run = promisify(execFile);

interface Framework {
  dir: 'react' | 'vue' | 'angular' | 'svelte';
  name: string;
  /** The toolchain's build command in the app's folder (a bin of its node_modules) and where it writes. */
  build: string[];
  output: string;
  /** Files docs/frameworks.md shows verbatim, each with its code block's language. */
  documented: Array<[file: string, lang: string]>;
}

// Angular first: its install and build take the longest, so the other three run beside it.
const FRAMEWORKS: Framework[] = [
  {
    dir: 'angular',
    name: 'Angular (its CLI, @angular/build:application, CUSTOM_ELEMENTS_SCHEMA)',
    build: ['ng', 'build'],
    output: 'dist/browser',
    documented: [['src/approve.ts', 'ts']],
  },
  { dir: 'react', name: 'React 19 (Vite)', build: ['vite', 'build'], output: 'dist', documented: [['src/Approve.jsx', 'jsx']] },
  {
    dir: 'vue',
    name: 'Vue 3 (Vite)',
    build: ['vite', 'build'],
    output: 'dist',
    documented: [
      ['src/Approve.vue', 'vue'],
      ['vite.config.js', 'js'],
    ],
  },
  { dir: 'svelte', name: 'Svelte 5 (Vite)', build: ['vite', 'build'], output: 'dist', documented: [['src/Approve.svelte', 'svelte']] },
];

/** The simulator's default addresses, as quick start 1 and the apps write them. */
const DEFAULTS = {
  middlewareUrl: 'http://127.0.0.1:18081',
  tokenEndpoint: 'http://127.0.0.1:18082/token',
  localServiceUrl: 'http://127.0.0.1:18065',
} as const;

/** The key of the installed toolchains: every app's package.json and lockfile, and the platform. */
function toolchainKey(): string {
  const hash = createHash('sha256').update(`${process.platform}-${process.arch}\n`);
  for (const { dir } of FRAMEWORKS) {
    for (const file of ['package.json', 'package-lock.json']) hash.update(`${dir}/${file}\n`).update(readFileSync(join(here, dir, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Runs `tasks` at most `limit` at a time, in order; each result (or failure) is its own promise. */
function bounded<T>(limit: number, tasks: Array<() => Promise<T>>): Array<Promise<T>> {
  let active = 0;
  const waiting: Array<() => void> = [];
  const slot = async () => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
  };
  const release = () => {
    active -= 1;
    waiting.shift()?.();
  };
  return tasks.map(async (task) => {
    await slot();
    try {
      return await task();
    } finally {
      release();
    }
  });
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** What runs that were killed left in `dir`: the entries `pattern` matches whose process (group 1) is gone. */
function removeLeftovers(dir: string, pattern: RegExp): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const pid = pattern.exec(name)?.[1];
    if (pid && Number(pid) !== process.pid && !alive(Number(pid))) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** `npm ci` of the app's toolchain into the cache, unless a previous run left it there. */
async function toolchain(key: string, fw: Framework, timings: string[]): Promise<string> {
  const dir = join(CACHE, key, fw.dir);
  if (existsSync(join(dir, '.installed'))) {
    timings.push('toolchain cached');
    return dir;
  }
  const started = Date.now();
  const staging = `${dir}.${process.pid}`;
  removeLeftovers(join(CACHE, key), new RegExp(`^${fw.dir}\\.(\\d+)$`));
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(here, fw.dir, file), join(staging, file));
  try {
    await npm(staging, ['ci', '--prefer-offline', '--no-audit', '--no-fund'], 300_000);
  } catch (error) {
    throw new Error(
      `The ${fw.dir} app's toolchain installs from the npm registry on the first run (then it stays in ${CACHE}):\n${(error as Error).message}`,
    );
  }
  writeFileSync(join(staging, '.installed'), `${new Date().toISOString()}\n`);
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another run installed it meanwhile
  }
  timings.push(`toolchain installed ${seconds(started)}`);
  return dir;
}

/**
 * bioid-sdk installed from its tarball, offline, into an empty project in `work`: its package.json,
 * lockfile and node_modules, which each app gets a copy of. One install for the four apps: npm would write
 * the same files four times, at some 5 CPU seconds each.
 */
async function installSdk(work: string, sdk: Packed): Promise<string> {
  const project = join(work, 'installed');
  mkdirSync(project);
  await installOffline(project, join(root, 'package-lock.json'), [sdk]);
  return project;
}

/** This run's copy of the app beside its toolchain, with bioid-sdk as installed in `sdk` (installSdk), built. */
async function buildApp(toolchainDir: string, fw: Framework, sdk: string, timings: string[]): Promise<string> {
  removeLeftovers(toolchainDir, /^app-(\d+)-/);
  const app = mkdtempSync(join(toolchainDir, `app-${process.pid}-`));
  for (const name of readdirSync(join(here, fw.dir))) {
    if (['package.json', 'package-lock.json', 'node_modules', 'dist', '.angular'].includes(name)) continue;
    cpSync(join(here, fw.dir, name), join(app, name), { recursive: true });
  }
  cpSync(sdk, app, { recursive: true });
  const started = Date.now();
  const [bin, ...args] = fw.build;
  try {
    await run(join(toolchainDir, 'node_modules', '.bin', bin!), args, {
      cwd: app,
      timeout: 240_000,
      env: { ...process.env, NG_CLI_ANALYTICS: 'false', CI: '1', NODE_NO_WARNINGS: '1' },
    });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${fw.build.join(' ')} failed for the ${fw.dir} app:\n${stdout}\n${stderr}`);
  }
  timings.push(`built ${seconds(started)}`);
  return app;
}

/** The built files with the simulator's default addresses replaced by this run's. */
function pointAt(dir: string, ready: Ready): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      pointAt(path, ready);
    } else if (/\.(m?js|html)$/.test(name)) {
      const text = readFileSync(path, 'utf8');
      const replaced = text
        .replaceAll(DEFAULTS.tokenEndpoint, ready.tokenEndpoint)
        .replaceAll(DEFAULTS.middlewareUrl, ready.middlewareUrl)
        .replaceAll(DEFAULTS.localServiceUrl, ready.localServiceUrl);
      if (replaced !== text) writeFileSync(path, replaced);
    }
  }
}

/** The docs' code blocks: each documented file must appear in one, verbatim. */
const doc = () => readFileSync(join(root, 'docs', 'frameworks.md'), 'utf8');

describe('bioid-sdk in React, Vue, Angular and Svelte apps built with their own toolchains (Chromium)', function () {
  this.timeout(300_000);
  let work: string;
  let simulator: { child: ChildProcess; ready: Ready } | undefined;
  let simulatorStarting: Promise<{ child: ChildProcess; ready: Ready }> | undefined;
  let browser: Browser | undefined;
  const servers: Server[] = [];
  const apps: string[] = [];
  const timings = new Map<Framework['dir'], string[]>();
  let builds = new Map<Framework['dir'], Promise<string>>();
  const started = Date.now();

  before(async function () {
    assert.ok(existsSync(join(root, 'dist', 'elements', 'index.js')), 'dist/ is missing: run npm run build first');
    const key = toolchainKey();
    // This run's toolchains are marked used; those no run used for two weeks go.
    mkdirSync(join(CACHE, key), { recursive: true });
    utimesSync(join(CACHE, key), new Date(), new Date());
    for (const name of readdirSync(CACHE))
      if (name !== key && Date.now() - statSync(join(CACHE, name)).mtimeMs > UNUSED_MS)
        rmSync(join(CACHE, name), { recursive: true, force: true });
    // The toolchains install (on a first run) while bioid-sdk is packed and the simulator starts.
    work = mkdtempSync(join(tmpdir(), 'bioid-frameworks-'));
    const tree = join(work, 'tree');
    mkdirSync(tree);
    copyPackage(root, tree, true);
    const packed = pack(tree, work, { ignoreScripts: true });
    const sdk = packed.then((tarball) => installSdk(work, tarball));
    sdk.catch(() => undefined); // awaited below
    simulatorStarting = startSimulator(process.execPath, ['--import', 'tsx', 'simulator/src/cli.ts'], {
      cwd: root,
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
    });
    simulatorStarting.catch(() => undefined); // awaited below and in after()
    const chains = bounded(
      2,
      FRAMEWORKS.map((fw) => async () => {
        const log: string[] = [];
        timings.set(fw.dir, log);
        const installed = await toolchain(key, fw, log);
        const app = await buildApp(installed, fw, await sdk, log);
        apps.push(app);
        return app;
      }),
    );
    for (const chain of chains) chain.catch(() => undefined); // each test awaits its own
    builds = new Map(FRAMEWORKS.map((fw, i) => [fw.dir, chains[i]!]));
    await sdk;
    simulator = await simulatorStarting;
    browser = await launch('chromium');
  });

  after(async () => {
    await Promise.allSettled(builds.values());
    await browser?.close().catch(() => undefined);
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    simulator ??= await simulatorStarting?.catch(() => undefined);
    if (simulator && simulator.child.exitCode === null) simulator.child.kill('SIGKILL');
    for (const app of apps) rmSync(app, { recursive: true, force: true });
    if (work) rmSync(work, { recursive: true, force: true });
    if (timings.size > 0) {
      console.log(`    framework apps (${seconds(started)} in all):`);
      for (const fw of FRAMEWORKS) console.log(`      ${fw.dir}: ${(timings.get(fw.dir) ?? []).join(', ')}`);
    }
  });

  /** The built app served on a free port, pointed at this run's simulator. */
  async function serve(fw: Framework): Promise<string> {
    const app = await builds.get(fw.dir)!;
    const out = join(app, fw.output);
    pointAt(out, simulator!.ready);
    const page = express();
    page.use(express.static(out));
    const server = await new Promise<Server>((resolve) => {
      const listening = page.listen(0, '127.0.0.1', () => resolve(listening));
    });
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  for (const fw of FRAMEWORKS) {
    it(`${fw.name}: the app's own handlers show bio-error when signed out, then a verified match, and its form sends the verification id`, async () => {
      const pageUrl = await serve(fw);
      const { ready } = simulator!;
      const context = await browser!.newContext();
      const tab = await context.newPage();
      tab.timeout = 30_000;

      // Signed out: the broker answers 401, the framework's bio-error handler writes the code.
      await tab.goto(pageUrl);
      await tab.waitForFunction(() => customElements.get('bio-verify') !== undefined && document.querySelector('form bio-verify') !== null);
      const set = await tab.evaluate(() => {
        const el = document.querySelector('bio-verify') as HTMLElement & { subjectId?: string; middlewareUrl?: string };
        return {
          subjectId: el.subjectId,
          middlewareUrl: el.middlewareUrl,
          attributes: el.getAttributeNames().sort(),
          insideForm: el.closest('form') !== null,
        };
      });
      assert.deepStrictEqual(set.subjectId, 'alice', 'subjectId set as a property');
      assert.strictEqual(set.middlewareUrl, ready.middlewareUrl, 'middleware-url read from the attribute');
      assert.includeMembers(set.attributes, ['name', 'required', 'middleware-url', 'token-endpoint', 'integrator-id', 'local-service-url']);
      assert.notInclude(set.attributes, 'subjectid', 'no lower-cased attribute instead of the property');
      assert.isTrue(set.insideForm);
      await tab.click('bio-verify >>> button[part~="button"]');
      assert.strictEqual(await tab.waitForText('#outcome', /\S/), 'Error: session-expired');

      // Signed in (the simulator's sign-in comes back to the page): a match, shown by the bio-result handler.
      await tab.goto(`${ready.signInUrl}?return_to=${encodeURIComponent(pageUrl)}`);
      assert.strictEqual(await tab.url(), pageUrl);
      await tab.waitForFunction(() => customElements.get('bio-verify') !== undefined && document.querySelector('form bio-verify') !== null);
      await tab.click('bio-verify >>> button[part~="button"]');
      const outcome = await tab.waitForText('#outcome', /\S/);
      const verified = /^Verified: (\S+)$/.exec(outcome);
      assert.ok(verified, outcome);
      const verificationId = verified[1]!;

      // The framework's form submits the element's value under its name.
      await tab.click('form > button');
      assert.strictEqual(await tab.waitForText('#sent', /\S/), `Sent ${verificationId}`);
      await context.close();

      // A match the middleware confirms for alice, as the integrator's server would check it.
      await assertConfirmedMatch(ready, verificationId);
    });
  }

  it('importing bioid-sdk/elements in Node, as server-side rendering does (Next.js, Nuxt), does not throw', async () => {
    const app = await builds.get('react')!;
    const script = `
      const elements = await import('bioid-sdk/elements');
      await import('bioid-sdk/elements/bio-verify.js');
      await import('bioid-sdk');
      if (typeof elements.BioVerify !== 'function') throw new Error('no BioVerify');
      console.log('imported');`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app, timeout: 30_000 });
    assert.strictEqual(stdout.trim(), 'imported');
    assert.ok(existsSync(join(app, 'node_modules', 'bioid-sdk', 'package.json')), 'from the installed tarball');
  });

  it("docs/frameworks.md shows each app's component as the test builds it", () => {
    const text = doc();
    for (const fw of FRAMEWORKS) {
      for (const [file, lang] of fw.documented) {
        const source = readFileSync(join(here, fw.dir, file), 'utf8');
        assert.include(text, `\`\`\`${lang}\n${source}\`\`\`\n`, `docs/frameworks.md: ${fw.dir}/${file} as written`);
      }
    }
  });
});
