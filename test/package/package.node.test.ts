/**
 * The integrator's first hour: the package as an integrator gets it. Each package is packed
 * from a copy of its files (scripts/tarball.mjs's copyPackage: packing never touches the dist/ other tests read) with the dist/
 * that `npm run build` made (npm test builds first; prepack would only build it again), installed from
 * its tarball into an empty temporary project, and used from there: Node's resolver for the entry points,
 * TypeScript for a React 19 TSX app and a Vue 3 usage (test/package/consumer/), and the components of
 * docs/frameworks.md as the page shows them: React's and Angular's through tsc, Vue's through vue-tsc.
 *
 * To add a package (the simulator), add it to PACKAGES; its tests read `project` and `tarballs`.
 */
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { copyPackage, pack, readTarball } from '../../scripts/tarball.mjs';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const requireFromRoot = createRequire(join(root, 'package.json'));

/** The packages of this repository, by folder; each is packed and installed into the one project. */
const PACKAGES = [{ name: 'bioid-sdk', dir: '.' }];

/** Tools of the type check, linked from this repository's node_modules: no network for them. */
const TYPE_CHECK_TOOLS = ['@types/react', 'vue', 'vue-tsc', '@angular/core', 'rxjs'];

interface Packed {
  name: string;
  tarball: string;
  files: string[];
}

let work: string;
let project: string;
const tarballs = new Map<string, Packed>();

async function npm(args: string[], cwd: string): Promise<string> {
  const { stdout } = await run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
    // The npm test run's own npm_config_* (prefix, workspace…) must not steer the nested npm.
    env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_'))),
  });
  return stdout;
}

async function packFromCopy(pkg: (typeof PACKAGES)[number]): Promise<Packed> {
  const source = join(root, pkg.dir);
  const copy = join(work, 'copies', pkg.name);
  // bioid-sdk as it ships (its files, with the dist/ already built); another package whole, to build in its prepack.
  copyPackage(source, copy, pkg.dir === '.');
  const tarball = await pack(copy, work, { ignoreScripts: true });
  return { name: pkg.name, tarball, files: readTarball(tarball).files.map((f) => f.path) };
}

/** Runs an ES module in the project (its own resolver, as the integrator's code resolves) and returns its stdout. */
async function inProject(code: string): Promise<string> {
  const file = join(project, `check-${Date.now()}.mjs`);
  writeFileSync(file, code);
  return (await run(process.execPath, [file], { cwd: project })).stdout;
}

/**
 * Parsed files, shared by this file's type checks: each check is still its own program (one consumer
 * file and what it imports, as `tsc -p` builds it), only a file already parsed under the same settings
 * (lib.dom.d.ts, React's and the package's declarations) is not parsed again.
 */
const parsed = new Map<string, ts.SourceFile | undefined>();

function sharingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const settings = JSON.stringify([options.target, options.module, options.moduleResolution, options.jsx, options.strict]);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const key = `${settings} ${JSON.stringify(languageVersion)} ${fileName}`;
    if (!parsed.has(key)) parsed.set(key, parse(fileName, languageVersion, onError, shouldCreate));
    return parsed.get(key);
  };
  return host;
}

/** Compiler options a check sets over test/package/consumer/tsconfig.json. */
interface CheckOptions {
  skipLibCheck?: boolean;
  module?: string;
  moduleResolution?: string;
  allowJs?: boolean;
  checkJs?: boolean;
  noImplicitAny?: boolean;
  types?: string[];
  jsx?: string;
}

/**
 * JavaScript as an editor checks it (checkJs), strict but for implicit any: a plain JavaScript parameter has
 * no annotation to give. What the package's types say (props, attributes, events) is checked in full.
 */
const JAVASCRIPT: CheckOptions = { allowJs: true, checkJs: true, noImplicitAny: false };

/** The first code block in `lang` of a section of docs/frameworks.md, as the page shows it. */
function frameworksSnippet(heading: string, lang: string): string {
  const doc = readFileSync(join(root, 'docs/frameworks.md'), 'utf8');
  const start = doc.indexOf(`\n## ${heading}`);
  assert.isAtLeast(start, 0, `docs/frameworks.md has a section "${heading}"`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const block = new RegExp(`\`\`\`${lang}\n([\\s\\S]*?)\`\`\``).exec(section);
  assert.ok(block, `docs/frameworks.md, "${heading}": a \`\`\`${lang} block`);
  return block[1]!;
}

/** TypeScript on one consumer file, with test/package/consumer/tsconfig.json, as `tsc -p` does; fails with its report. */
function typeCheck(file: string, compilerOptions: CheckOptions = {}): void {
  const config = join(project, `tsconfig.${file}.json`);
  writeFileSync(config, JSON.stringify({ extends: './tsconfig.json', compilerOptions, files: [file] }));
  const unreadable: ts.Diagnostic[] = [];
  const read = ts.getParsedCommandLineOfConfigFile(
    config,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => unreadable.push(d) },
  );
  const program = read
    ? ts.createProgram({
        rootNames: read.fileNames,
        options: read.options,
        host: sharingHost(read.options),
        projectReferences: read.projectReferences,
        configFileParsingDiagnostics: read.errors,
      })
    : undefined;
  const diagnostics = [...unreadable, ...(program ? ts.getPreEmitDiagnostics(program) : [])];
  if (diagnostics.length > 0) {
    const report = ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => project,
      getNewLine: () => '\n',
    });
    assert.fail(`tsc on ${file} against the installed package failed:\n${report}`);
  }
}

const installed = (name: string, path = 'package.json') => join(project, 'node_modules', name, path);

/**
 * What an integrator imports types from: each path of the installed bioid-sdk's exports that has types, one
 * per tag for bioid-sdk/elements/<tag>.js; but bioid-sdk/vue, whose declarations bring Vue's own (15 s to
 * check; the build checks the generated vue.d.ts, scripts/framework-types.mjs).
 */
function typedEntryPoints(): string[] {
  const { exports } = JSON.parse(readFileSync(installed('bioid-sdk'), 'utf8')) as { exports: Record<string, string | { types?: string }> };
  return Object.entries(exports).flatMap(([path, target]) => {
    if (typeof target === 'string' || !target.types || path === './vue') return [];
    const spec = `bioid-sdk${path.slice(1)}`;
    if (!path.includes('*')) return [spec];
    const [dir, suffix] = target.types.split('*') as [string, string];
    return readdirSync(installed('bioid-sdk', dir))
      .filter((name) => name.endsWith(suffix))
      .map((name) => spec.replace('*', name.slice(0, -suffix.length)));
  });
}

describe('the packages as installed from their tarballs', function () {
  this.timeout(120_000);

  before(async () => {
    assert.ok(existsSync(join(root, 'dist/bioid-elements.js')), 'dist/ is missing: run `npm run build` first (npm test does).');
    work = mkdtempSync(join(tmpdir(), 'bioid-package-'));
    project = join(work, 'app');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'integrator-app', private: true, type: 'module' }));
    for (const pkg of PACKAGES) tarballs.set(pkg.name, await packFromCopy(pkg));
    // From the tarballs; their dependencies come from npm's cache when it has them.
    await npm(
      ['install', '--prefer-offline', '--ignore-scripts', '--no-package-lock', ...[...tarballs.values()].map((p) => p.tarball)],
      project,
    );
    for (const tool of TYPE_CHECK_TOOLS) {
      const link = join(project, 'node_modules', tool);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(dirname(requireFromRoot.resolve(`${tool}/package.json`)), link, 'dir');
    }
    cpSync(join(root, 'test/package/consumer'), project, { recursive: true });
  });

  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe('bioid-sdk', () => {
    it('the tarball ships LICENSE, the README, the manifest, the framework types and one entry per tag, and no sources or tests', () => {
      const { files } = tarballs.get('bioid-sdk')!;
      for (const path of [
        'LICENSE',
        'README.md',
        'package.json',
        'custom-elements.json',
        'dist/bioid-elements.js',
        'dist/bioid-diagnostics.js',
        'dist/bioid-de.js',
        'dist/bioid-es.js',
        'dist/bioid-fr.js',
        'dist/react.d.ts',
        'dist/vue.d.ts',
        'dist/elements/tags/bio-verify.js',
        'dist/elements/tags/bio-verify.d.ts',
      ]) {
        assert.include(files, path);
      }
      assert.deepEqual(
        files.filter((path) => /^(src|test|demo|scripts|bench)\//.test(path)),
        [],
      );
      // Images stay in the repository (the docs link to them there); no source maps: dist/ is readable as
      // shipped but for the script, whose map would have to carry the sources (docs/versioning.md).
      assert.deepEqual(
        files.filter((path) => /\.(png|jpe?g|gif)$/.test(path)),
        [],
        'no images',
      );
      assert.deepEqual(
        files.filter((path) => path.endsWith('.map')),
        [],
        'no source maps',
      );
    });

    it('every relative link and image of the packaged docs resolves to a file inside the package', () => {
      const { files } = tarballs.get('bioid-sdk')!;
      const broken: string[] = [];
      for (const doc of files.filter((path) => path.endsWith('.md'))) {
        const text = readFileSync(installed('bioid-sdk', doc), 'utf8');
        for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^([a-z][a-z0-9+.-]*:|#)/i.test(target!)) continue;
          const path = join(dirname(doc), decodeURIComponent(target!.split('#')[0]!))
            .split('\\')
            .join('/');
          if (!files.includes(path) && !files.some((file) => file.startsWith(`${path}/`))) broken.push(`${doc}: ${target}`);
        }
      }
      assert.deepEqual(broken, [], 'links that lead outside the package: make them absolute to the repository');
    });

    it('package.json names its repository, homepage, bugs and keywords, and unpkg and jsdelivr serve the script bundle', () => {
      const pkg = JSON.parse(readFileSync(installed('bioid-sdk'), 'utf8'));
      assert.match(pkg.repository?.url, /^git\+https:\/\//);
      assert.match(pkg.homepage, /^https:\/\//);
      assert.match(pkg.bugs?.url, /^https:\/\//);
      assert.includeMembers(pkg.keywords, ['biometrics', 'fingerprint', 'web-components']);
      assert.equal(pkg.unpkg, './dist/bioid-elements.js');
      assert.equal(pkg.jsdelivr, './dist/bioid-elements.js');
      assert.ok(existsSync(installed('bioid-sdk', 'LICENSE')));
    });

    it('bioid-sdk/dist/bioid-elements.js resolves, to the same file as bioid-sdk/bioid-elements.js', async () => {
      const [viaDist, short] = JSON.parse(
        await inProject(
          `console.log(JSON.stringify([import.meta.resolve('bioid-sdk/dist/bioid-elements.js'), import.meta.resolve('bioid-sdk/bioid-elements.js')]));`,
        ),
      ) as [string, string];
      assert.equal(viaDist, short);
      assert.equal(fileURLToPath(viaDist), installed('bioid-sdk', 'dist/bioid-elements.js'));
      // After V8's compile hint, a line of its own (scripts/compile-hints.mjs).
      const script = readFileSync(fileURLToPath(viaDist), 'utf8').replace(/^\/\/# allFunctionsCalledOnLoad\n/, '');
      assert.match(script, /^!?\(?function|^\(function|^var |^\(\(\)/, 'a classic script');
    });

    it('the file the script loads on use resolves next to it, by both names', async () => {
      const [viaDist, short] = JSON.parse(
        await inProject(
          `console.log(JSON.stringify([import.meta.resolve('bioid-sdk/dist/bioid-diagnostics.js'), import.meta.resolve('bioid-sdk/bioid-diagnostics.js')]));`,
        ),
      ) as [string, string];
      assert.equal(viaDist, short);
      assert.equal(fileURLToPath(viaDist), installed('bioid-sdk', 'dist/bioid-diagnostics.js'));
    });

    it('every tag of custom-elements.json has bioid-sdk/elements/<tag>.js, with types, that defines that tag only, listed in sideEffects', async () => {
      const pkg = JSON.parse(readFileSync(installed('bioid-sdk'), 'utf8'));
      const manifest = JSON.parse(readFileSync(installed('bioid-sdk', 'custom-elements.json'), 'utf8')) as {
        modules: { declarations?: { tagName?: string }[] }[];
      };
      const tags = manifest.modules.flatMap((m) => m.declarations ?? []).flatMap((d) => (d.tagName ? [d.tagName] : []));
      assert.includeMembers(tags, ['bio-enroll', 'bio-verify', 'bio-search', 'bio-reader-status', 'bio-enrolled']);
      const resolved = JSON.parse(
        await inProject(
          `console.log(JSON.stringify(${JSON.stringify(tags)}.map((tag) => import.meta.resolve('bioid-sdk/elements/' + tag + '.js'))));`,
        ),
      ) as string[];
      const sideEffects = (pkg.sideEffects as string[]).map(
        (glob) => new RegExp(`^${glob.replace(/^\.\//, '').replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`),
      );
      tags.forEach((tag, i) => {
        const file = fileURLToPath(resolved[i]!);
        const code = readFileSync(file, 'utf8');
        const defined = [...code.matchAll(/\.define\('([a-z-]+)'\)/g)].map((m) => m[1]);
        assert.deepEqual(defined, [tag], `${file} defines <${tag}> and nothing else`);
        assert.ok(existsSync(file.replace(/\.js$/, '.d.ts')), `types beside ${file}`);
        const inPackage = relative(installed('bioid-sdk', ''), file).split('\\').join('/');
        assert.ok(
          sideEffects.some((glob) => glob.test(inPackage)),
          `${inPackage} is listed in sideEffects`,
        );
      });
    });

    for (const resolution of ['Bundler', 'NodeNext'] as const) {
      it(`every declaration file an entry point of the package brings compiles for a consumer without skipLibCheck (the TypeScript default), moduleResolution ${resolution}`, () => {
        // bioid-sdk/broker's adapter for node:http names two of Node's types, which a project on Node has.
        // Declared here, open: checking Node's own declarations (@types/node) took this check 30 s. A name
        // the package takes from Node beyond these fails the check, to be added here.
        const node = 'export interface IncomingMessage { [key: string]: any } export interface ServerResponse { [key: string]: any }';
        writeFileSync(join(project, 'node-http.d.ts'), `declare module 'node:http' { ${node} }\n`);
        const file = `declarations-${resolution}.ts`;
        const imports = typedEntryPoints().map((spec, i) => `import type * as entry${i} from '${spec}';\n`);
        writeFileSync(join(project, file), ['/// <reference path="./node-http.d.ts" />\n', ...imports].join(''));
        const options = { skipLibCheck: false };
        typeCheck(file, resolution === 'NodeNext' ? { ...options, module: 'NodeNext', moduleResolution: 'NodeNext' } : options);
      });

      it(`quick start 2 (docs/quick-start.md), pasted into a .ts file, type-checks under strict with moduleResolution ${resolution}`, () => {
        const section = readFileSync(join(root, 'docs/quick-start.md'), 'utf8').split('## Quick start 2')[1]!;
        const snippet = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
        const file = `quick-start-2-${resolution}.ts`;
        writeFileSync(join(project, file), snippet);
        typeCheck(file, resolution === 'NodeNext' ? { module: 'NodeNext', moduleResolution: 'NodeNext' } : {});
      });
    }

    it('bio-result is typed per element: detail.result of a <bio-verify> is a VerifyResult (a wrong field is an error)', () => {
      const file = 'typed-events.ts';
      writeFileSync(
        join(project, file),
        [
          "import 'bioid-sdk/elements/bio-verify.js';",
          "document.querySelector('bio-verify')?.addEventListener('bio-result', ({ detail }) => {",
          '  const match: boolean = detail.result.match;',
          '  // @ts-expect-error: a VerifyResult has no candidates',
          '  const candidates: unknown[] = detail.result.candidates;',
          '  void match;',
          '  void candidates;',
          '});',
          '',
        ].join('\n'),
      );
      typeCheck(file);
    });

    it('window.BioIDElementsConfig and window.BioIDSDK are declared for a TypeScript page', () => {
      const file = 'window-globals.ts';
      writeFileSync(
        join(project, file),
        [
          "import type {} from 'bioid-sdk/elements';",
          "window.BioIDElementsConfig = { workstationId: 'ws-1', deviceId: 'dev-1', strings: { en: { verify: 'Check' } } };",
          '// @ts-expect-error: not an option',
          "window.BioIDElementsConfig = { clientSecret: 'x' };",
          'window.BioIDSDK?.clearBrokerTokens();',
          "const reader = window.BioIDSDK?.createFingerprintReader({ middlewareUrl: 'https://mw.example.com', getToken: async () => 't' });",
          'void reader;',
          '',
        ].join('\n'),
      );
      typeCheck(file);
    });

    it('a React 19 TSX app type-checks against bioid-sdk/react, bio-result typed per tag, and misspelled attributes are errors', () => {
      typeCheck('react-app.tsx');
    });

    it('a Vue 3 usage type-checks against bioid-sdk/vue, bio-result typed per tag, and misspelled attributes are errors', () => {
      typeCheck('vue-app.ts');
    });

    describe("docs/frameworks.md's components, pasted as the page shows them", () => {
      it('React 19: the JSX type-checks against bioid-sdk/react, subjectId bound as a property', () => {
        writeFileSync(join(project, 'Approve.jsx'), frameworksSnippet('React 19', 'jsx'));
        // A JavaScript project names the typings in its jsconfig's types; TypeScript imports them (the page says both).
        typeCheck('Approve.jsx', { ...JAVASCRIPT, types: ['bioid-sdk/react'] });
      });

      it("Vue 3: the single-file component type-checks against bioid-sdk/vue under vue-tsc's strictTemplates", async () => {
        writeFileSync(join(project, 'Approve.vue'), frameworksSnippet('Vue 3', 'vue'));
        const config = join(project, 'tsconfig.Approve.vue.json');
        writeFileSync(
          config,
          JSON.stringify({
            extends: './tsconfig.json',
            // skipLibCheck as for vue-app.ts; strictTemplates makes an unknown prop or listener an error, as a
            // misspelled one is: the template's :subjectId and @bio-result must be in the typings.
            compilerOptions: { ...JAVASCRIPT, skipLibCheck: true, jsx: 'preserve', types: ['bioid-sdk/vue'] },
            files: ['Approve.vue'],
            vueCompilerOptions: { strictTemplates: true },
          }),
        );
        const vueTsc = join(project, 'node_modules', 'vue-tsc', 'bin', 'vue-tsc.js');
        await run(process.execPath, [vueTsc, '-p', config, '--noEmit'], { cwd: project }).catch((failure: { stdout?: string }) =>
          assert.fail(`vue-tsc on Approve.vue against the installed package failed:\n${failure.stdout ?? failure}`),
        );
      });

      it("Angular: the component type-checks against bioid-sdk/elements' event detail types", () => {
        writeFileSync(join(project, 'approve.ts'), frameworksSnippet('Angular', 'ts'));
        typeCheck('approve.ts');
      });
    });
  });
});
