// Two builds from one source tree:
//  1. ESM entry points for bundlers and Node (`bioid-sdk`, `/elements`, `/elements/<tag>.js`, `/broker`, `/sw`) with .d.ts,
//     dependencies left external so an app dedupes lit and workbox-window.
//  2. The script-tag bundle `dist/bioid-elements.js`: a classic IIFE script, minified, for pages that cannot
//     use modules or import maps; code a page needs only when a rare tag appears sits in files next to it
//     that it loads on use (`dist/bioid-<part>.js`, scripts/script-parts.mjs).
import typescript from '@rollup/plugin-typescript';
import resolve from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import { builtinModules } from 'node:module';
import { compileHints } from './scripts/compile-hints.mjs';
import { readdirSync, rmSync } from 'node:fs';
import { minifyTemplates } from './scripts/minify-templates.mjs';
import { reachableTypes } from './scripts/reachable-types.mjs';
import { scriptParts } from './scripts/script-parts.mjs';
import { TERSER_OPTIONS } from './scripts/terser-options.mjs';

// Chunk names carry hashes: start from an empty dist/ so no stale chunk is ever published.
rmSync('dist', { recursive: true, force: true });

const nodeBuiltins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const ownDependencies = ['lit', 'workbox-window', 'express'];
const isExternal = (id) => nodeBuiltins.has(id) || ownDependencies.some((dep) => id === dep || id.startsWith(`${dep}/`));

// One entry per tag (`bioid-sdk/elements/<tag>.js`): every file in src/elements/tags/ defines its tag.
// The whole-set entry imports these same files, so each tag's define call stays in its own entry file
// (listed in package.json `sideEffects`), never in a shared chunk a bundler could drop.
const tagEntries = Object.fromEntries(
  readdirSync('src/elements/tags')
    .filter((file) => file.endsWith('.ts'))
    .map((file) => [`elements/tags/${file.slice(0, -3)}`, `src/elements/tags/${file}`]),
);

const withMap = process.env.BIOID_SOURCEMAP === '1';

export default [
  {
    input: {
      index: 'src/index.ts',
      'elements/index': 'src/elements/index.ts',
      ...tagEntries,
      'broker/index': 'src/broker/index.ts',
      'sw/index': 'src/sw/index.ts',
    },
    external: isExternal,
    output: {
      dir: 'dist',
      format: 'es',
      // Not minified, so readable as shipped, and an integrator's bundler makes its own maps: maps here would
      // only weigh on the tarball.
      sourcemap: false,
      entryFileNames: '[name].js',
      chunkFileNames: 'chunks/[name]-[hash].js',
    },
    plugins: [
      typescript({ tsconfig: './tsconfig.build.json' }),
      minifyTemplates(),
      reachableTypes(),
      // The code as it is, without its comments: the .d.ts files carry the documentation an integrator reads,
      // src/ the reasons a maintainer reads, and the comments were 40 % of the tarball (97 of 272 kB).
      // Names and structure stay (no compression, no mangling), so a stack trace reads as the source does; the
      // annotations bundlers act on and the quotes as written stay too.
      terser({
        module: true,
        compress: false,
        mangle: false,
        format: { beautify: true, indent_level: 2, quote_style: 3, comments: /[@#]__(?:PURE|NO_SIDE_EFFECTS)__|@license|@preserve/ },
      }),
    ],
  },
  {
    input: 'src/bundle.ts',
    // ES modules with code splitting, made a classic script and its parts by scriptParts(); the entry chunk
    // keeps its own exports and adds those the parts import (no facade chunk).
    preserveEntrySignatures: 'allow-extension',
    output: {
      dir: 'dist',
      format: 'es',
      entryFileNames: 'bioid-elements.js',
      // Each file a part: bioid-diagnostics.js is src/elements/bio-diagnostics/diagnostics.ts and what only it uses.
      chunkFileNames: 'bioid-[name].js',
      // No source map (docs/versioning.md, "What is in the package"): one that shows the sources would have to
      // embed them (src/ is not in the package), about 55 kB more gzipped in a tarball held to 250 kB; one
      // without them shows nothing but makes DevTools fetch it. BIOID_SOURCEMAP=1 makes one for this
      // repository's own use (bench/startup-profile.mjs maps its samples to src/ through it).
      sourcemap: withMap,
    },
    plugins: [
      resolve({ browser: true }),
      typescript({
        tsconfig: './tsconfig.build.json',
        // Emitted without a second type check of src/: the build above checks the same files (and emits their
        // .d.ts), and `npm run lint` runs tsc on everything. The JavaScript is the same either way.
        noCheck: true,
        declaration: false,
        declarationDir: undefined,
        outDir: 'dist',
        sourceMap: withMap,
      }),
      minifyTemplates(),
      scriptParts(),
      terser({ ...TERSER_OPTIONS, module: false }),
      compileHints(),
    ],
  },
];
