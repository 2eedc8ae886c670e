// Section 1: size, min+gzip (level 9) and brotli (quality 11), ours against the peers' browser bundles
// and a bare Lit element. Peers are fetched with `npm pack` into .cache/peers/ (never project
// dependencies); the cache is reused when present.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { BUNDLE_ALL_BUDGET, BUNDLE_BUDGET, CORE_BUDGET, withFixedBuildId } from './budgets.mjs';
import { scriptPartFiles } from '../scripts/script-parts.mjs';
import { atMost, fmt, notMeasured, row } from './report.mjs';
import { TERSER_OPTIONS } from '../scripts/terser-options.mjs';
import { measureTags, tagsOf } from './tag-sizes.mjs';

const SECTION = '1 Size';
export { BUNDLE_ALL_BUDGET, BUNDLE_BUDGET, CORE_BUDGET };

export const gzipSize = (code) => gzipSync(code, { level: 9 }).length;
export const brotliSize = (code) =>
  brotliCompressSync(code, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(code) },
  }).length;

/** The files of each peer that a page would load with a script tag. */
const PEERS = [
  {
    name: '@digitalpersona/websdk + @digitalpersona/fingerprint',
    parts: [
      { pkg: '@digitalpersona/websdk', file: 'dist/websdk.client.ui.min.js' },
      { pkg: '@digitalpersona/fingerprint', file: 'dist/fingerprint.sdk.min.js' },
    ],
  },
  { name: 'persona', parts: [{ pkg: 'persona', file: 'dist/persona.js' }] },
  { name: 'oidc-client-ts', parts: [{ pkg: 'oidc-client-ts', file: 'dist/browser/oidc-client-ts.min.js' }] },
  { name: 'keycloak-js', parts: [{ pkg: 'keycloak-js', file: 'lib/keycloak.js', module: true }] },
  { name: '@auth0/auth0-spa-js', parts: [{ pkg: '@auth0/auth0-spa-js', file: 'dist/auth0-spa-js.production.js' }] },
];

/**
 * A shipped file counts as minified when its lines are long (a minifier's output has a handful of
 * lines; hand-written source has tens of characters per line). Others are minified with terser.
 */
const looksMinified = (code) => code.length / Math.max(1, code.split('\n').length) > 200;

async function terserMinify(code, module) {
  const { minify } = await import('terser');
  const out = await minify(code, { ...TERSER_OPTIONS, module });
  if (typeof out.code !== 'string') throw new Error('terser produced no code');
  return out.code;
}

/** `npm pack <pkg>` into .cache/peers/<dir>/ once; later runs reuse the unpacked folder. */
function fetchPeer(cacheDir, pkg) {
  const dir = join(cacheDir, pkg.replace(/^@/, '').replace(/\//g, '__'));
  const marker = join(dir, 'package', 'package.json');
  if (!existsSync(marker)) {
    mkdirSync(dir, { recursive: true });
    const out = execFileSync('npm', ['pack', pkg, '--json', '--pack-destination', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
    const [{ filename }] = JSON.parse(out);
    execFileSync('tar', ['xzf', join(dir, filename), '-C', dir]);
  }
  const version = JSON.parse(readFileSync(marker, 'utf8')).version;
  return { root: join(dir, 'package'), version };
}

/** The gzip size of `code` with the contents of every string and template literal removed (acorn). */
async function withoutStrings(code) {
  try {
    const acorn = await import('acorn');
    const ranges = [];
    const walk = (node) => {
      if (!node || typeof node.type !== 'string') return;
      if (node.type === 'Literal' && typeof node.value === 'string') ranges.push([node.start + 1, node.end - 1]);
      if (node.type === 'TemplateElement') ranges.push([node.start, node.end]);
      for (const value of Object.values(node)) {
        if (Array.isArray(value)) value.forEach(walk);
        else if (value && typeof value === 'object') walk(value);
      }
    };
    walk(acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'module' }));
    ranges.sort((a, b) => a[0] - b[0]);
    let out = '';
    let pos = 0;
    for (const [start, end] of ranges) {
      if (start < pos) continue;
      out += code.slice(pos, start);
      pos = end;
    }
    return gzipSize(out + code.slice(pos));
  } catch {
    return undefined; // acorn missing or the parse failed: the note is left out
  }
}

/** Rollup + node-resolve + terser, in memory. */
async function rollupBundle(input, { format, resolveBrowser = true, module = format === 'es', withMap = false }) {
  const { rollup } = await import('rollup');
  const { default: resolve } = await import('@rollup/plugin-node-resolve');
  const { default: terser } = await import('@rollup/plugin-terser');
  const build = await rollup({
    input,
    plugins: [resolve({ browser: resolveBrowser }), terser({ ...TERSER_OPTIONS, module })],
    onwarn: () => {},
  });
  const { output } = await build.generate({ format, inlineDynamicImports: true, sourcemap: withMap });
  await build.close();
  return withMap ? { code: output[0].code, map: output[0].map } : output[0].code;
}

/** The bare Lit floor as a classic script (also used by the start-up section). */
export async function bareLitBundle(root, { withMap = false } = {}) {
  return rollupBundle(join(root, 'bench/fixtures/bare-lit.js'), { format: 'iife', withMap });
}

/**
 * Which source modules weigh most in the script-tag bundle: esbuild bundles src/bundle.ts minified
 * with a metafile (bytes each input contributes to the output). esbuild's minifier differs a little
 * from terser, so these are shares, not the shipped figure.
 */
async function contributors(root, entry, format) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(root, entry)],
    bundle: true,
    minify: true,
    format,
    target: 'es2020',
    write: false,
    metafile: true,
    platform: 'browser',
    tsconfig: join(root, 'tsconfig.build.json'),
    // package.json "sideEffects" names dist/ files only; honoured here it would drop src/elements.
    ignoreAnnotations: true,
    logLevel: 'silent',
  });
  const [output] = Object.values(result.metafile.outputs);
  const groups = new Map();
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const pkg = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
    const key = pkg ? `${pkg} (dependency)` : path.replace(/^.*?\bsrc\//, 'src/');
    groups.set(key, (groups.get(key) ?? 0) + bytesInOutput);
  }
  const total = output.bytes;
  return { total, list: [...groups.entries()].sort((a, b) => b[1] - a[1]) };
}

export async function runSize({ root, log }) {
  const rows = [];
  const extras = [];
  const cacheDir = join(root, '.cache/peers');
  mkdirSync(cacheDir, { recursive: true });

  // The bare Lit floor first: every ratio is against it.
  const bare = await bareLitBundle(root);
  mkdirSync(join(root, '.cache/bench'), { recursive: true });
  writeFileSync(join(root, '.cache/bench/bare-lit.js'), bare);
  const floor = { gzip: gzipSize(bare), brotli: brotliSize(bare), min: Buffer.byteLength(bare) };
  const sizeFigure = (s) => `${fmt(s.gzip)} B gzip / ${fmt(s.brotli)} B br (${fmt(s.min)} B min)`;
  const vsFloor = (s) => `${(s.gzip / floor.gzip).toFixed(1)}× the bare Lit floor`;

  let ours;
  const bundlePath = join(root, 'dist/bioid-elements.js');
  if (existsSync(bundlePath)) {
    const code = withFixedBuildId(readFileSync(bundlePath, 'utf8'));
    ours = { gzip: gzipSize(code), brotli: brotliSize(code), min: Buffer.byteLength(code) };
    const v = atMost(ours.gzip, BUNDLE_BUDGET, ' B');
    // Which of the package's tags the script carries (a tag name appears in it as a string literal).
    const tags = tagsOf(root).map((t) => t.tag);
    const absent = tags.filter((t) => !new RegExp(`["'\`]${t}["'\`]`).test(code));
    const carries = absent.length ? `leaves out ${absent.map((t) => `<${t}>`).join(', ')}` : `all ${tags.length} tags`;
    rows.push(
      row(
        SECTION,
        'dist/bioid-elements.js (before the first element renders; as built, its build id fixed)',
        sizeFigure(ours),
        `≤ ${fmt(BUNDLE_BUDGET)} B gzip`,
        v.verdict,
        [v.note, vsFloor(ours), carries].filter(Boolean).join('; '),
      ),
    );
    // The files it loads on use (dist/bioid-<part>.js), each fetched and gzipped on its own, and the sum.
    const all = { ...ours };
    const parts = scriptPartFiles(join(root, 'dist'));
    for (const part of parts) {
      const partCode = withFixedBuildId(readFileSync(join(root, 'dist', part), 'utf8'));
      const size = { gzip: gzipSize(partCode), brotli: brotliSize(partCode), min: Buffer.byteLength(partCode) };
      for (const k of Object.keys(all)) all[k] += size[k];
      rows.push(row(SECTION, `dist/${part} (loaded on use)`, sizeFigure(size)));
    }
    const va = atMost(all.gzip, BUNDLE_ALL_BUDGET, ' B');
    rows.push(
      row(
        SECTION,
        'the script and every file it may load, in all',
        sizeFigure(all),
        `≤ ${fmt(BUNDLE_ALL_BUDGET)} B gzip`,
        va.verdict,
        [va.note, `dist/bioid-elements.js + ${parts.join(' + ') || 'no file'}, each gzipped alone`].filter(Boolean).join('; '),
      ),
    );
  } else {
    rows.push(
      notMeasured(
        SECTION,
        'dist/bioid-elements.js',
        'dist/bioid-elements.js is missing; run npm run build',
        `≤ ${fmt(BUNDLE_BUDGET)} B gzip`,
      ),
    );
  }

  const coreEntry = join(root, 'dist/index.js');
  let core;
  if (existsSync(coreEntry)) {
    const code = await rollupBundle(coreEntry, { format: 'es' });
    core = { gzip: gzipSize(code), brotli: brotliSize(code), min: Buffer.byteLength(code) };
    const v = atMost(core.gzip, CORE_BUDGET, ' B');
    const bare = await withoutStrings(code);
    const strings =
      bare === undefined
        ? ''
        : `${fmt(core.gzip - bare)} B of it are string literals (error messages mostly): ${fmt(bare)} B gzip with every string emptied`;
    rows.push(
      row(
        SECTION,
        'core ESM entry dist/index.js (rollup + terser, in memory)',
        sizeFigure(core),
        `≤ ${fmt(CORE_BUDGET)} B gzip`,
        v.verdict,
        [v.note, strings].filter(Boolean).join('; '),
      ),
    );
  } else {
    rows.push(notMeasured(SECTION, 'core ESM entry', 'dist/index.js is missing; run npm run build', `≤ ${fmt(CORE_BUDGET)} B gzip`));
  }

  rows.push(row(SECTION, 'bare Lit element (floor; rollup + node-resolve + terser)', sizeFigure(floor)));

  // Bytes per tag: each tag's share of the script, and the tag alone in a script of its own.
  try {
    const t0 = performance.now();
    const { all, tags } = await measureTags(root, { gzipSize, terserOptions: TERSER_OPTIONS });
    for (const { tag, share, shareInAll, alone } of tags) {
      rows.push(
        row(
          SECTION,
          `<${tag}>: its share before the first render / in all / alone`,
          `${fmt(share)} B / ${fmt(shareInAll)} B / ${fmt(alone)} B gzip`,
        ),
      );
    }
    const shared = all - tags.reduce((sum, t) => sum + t.share, 0);
    rows.push(
      row(
        SECTION,
        'the script rebuilt for the per-tag figures (every tag)',
        `${fmt(all)} B gzip`,
        '',
        '—',
        `${ours ? `shipped: ${fmt(ours.gzip)} B; ` : ''}${fmt(shared)} B of it belong to no one tag (Lit, the core, the base classes, styles, translations, window.BioIDSDK); ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      ),
    );
  } catch (error) {
    rows.push(
      notMeasured(SECTION, 'bytes per tag', `the per-tag builds failed (${error instanceof Error ? error.message.split('\n')[0] : error})`),
    );
  }

  for (const peer of PEERS) {
    try {
      const total = { gzip: 0, brotli: 0, min: 0 };
      const versions = [];
      const minified = [];
      for (const part of peer.parts) {
        const { root: pkgRoot, version } = fetchPeer(cacheDir, part.pkg);
        versions.push(`${part.pkg}@${version}`);
        let code = readFileSync(join(pkgRoot, part.file), 'utf8');
        if (!looksMinified(code)) {
          code = await terserMinify(code, part.module === true);
          minified.push(part.file);
        }
        total.gzip += gzipSize(code);
        total.brotli += brotliSize(code);
        total.min += Buffer.byteLength(code);
      }
      const notes = [vsFloor(total)];
      if (ours) notes.push(`ours is ${(ours.gzip / total.gzip).toFixed(2)}× of it`);
      // keycloak-js is an SDK core without UI, like ours: the fair peer of the core entry.
      if (core && peer.name === 'keycloak-js') notes.push(`our core entry is ${(core.gzip / total.gzip).toFixed(2)}× of it`);
      if (minified.length) notes.push(`${minified.join(', ')} minified here with terser`);
      if (peer.parts.length > 1) notes.push('files gzipped separately and summed (two script tags)');
      rows.push(row(SECTION, `peer ${versions.join(' + ')}`, sizeFigure(total), '', '—', notes.join('; ')));
    } catch (error) {
      rows.push(
        notMeasured(SECTION, `peer ${peer.name}`, `npm pack failed (${error instanceof Error ? error.message.split('\n')[0] : error})`),
      );
    }
  }

  for (const [entry, format, title, shipped] of [
    ['src/bundle.ts', 'iife', 'the script-tag bundle', ours?.min],
    ['src/index.ts', 'esm', 'the core entry', undefined],
  ]) {
    try {
      const { total, list } = await contributors(root, entry, format);
      const top = list.slice(0, 12);
      extras.push(
        `### Biggest contributors to ${title}\n\nesbuild bundle of ${entry}, minified (${fmt(total)} B before gzip${shipped ? `; terser's shipped output is ${fmt(shipped)} B` : ''}). Bytes each module adds to the minified output (esbuild's minifier differs a little from terser: read these as shares):\n\n| Module | Bytes | Share |\n|---|---|---|\n${top
          .map(([name, bytes]) => `| ${name} | ${fmt(bytes)} | ${((bytes / total) * 100).toFixed(1)}% |`)
          .join('\n')}`,
      );
      log(
        `  ${title}, biggest: ${top
          .slice(0, 5)
          .map(([n, b]) => `${n} ${b} B`)
          .join(', ')}`,
      );
    } catch (error) {
      extras.push(
        `### Biggest contributors to ${title}\n\nnot measured: esbuild failed (${error instanceof Error ? error.message.split('\n')[0] : error}).`,
      );
    }
  }

  return {
    rows,
    extras,
    methods: [
      'Bytes per tag (bench/tag-sizes.mjs): a tag\'s share is the script-tag bundle with every tag minus the same bundle without that tag (its own class, styles and strings; what the shared base costs is counted in no tag), once without the files the script loads on use (before the first render) and once with them inlined (in all); "alone" is a classic script that defines that one tag only (shared base, Lit and the core parts it uses included). Both are built like dist/bioid-elements.js (rollup, the template minifier, node-resolve, terser with the build\'s options; TypeScript stripped by esbuild), the tag list read from src/elements/tags.ts.',
      'Size: gzip level 9 and brotli quality 11 of each file (node:zlib). Ours: dist/bioid-elements.js as built by `npm run build` (rollup + terser); the core entry: dist/index.js and its chunks bundled by rollup with @rollup/plugin-terser in memory (the same terser options as rollup.config.mjs). Peers: `npm pack` into .cache/peers/ (not dependencies), their shipped browser files; a file that is not minified (keycloak-js lib/keycloak.js) is minified with the same terser options. The floor is bench/fixtures/bare-lit.js (one property, one button) bundled with rollup + node-resolve + terser.',
    ],
    floor,
    ours,
    listedPeers: readdirSync(cacheDir),
  };
}
