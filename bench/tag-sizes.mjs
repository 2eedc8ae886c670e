// Bytes per tag, two figures for each tag that src/elements/tags.ts defines:
//  - its share of the script-tag bundle: the bundle with every tag minus the bundle without this one
//    (what the tag adds to dist/bioid-elements.js; the code the tags share is counted in none);
//  - alone: a classic script that defines this one tag and nothing else (what a page would load for a
//    one-tag script: the tag, the shared base, Lit and the core parts it uses).
// Each bundle is built the way the shipped one is: rollup, the template minifier of the build, node-resolve,
// terser with the build's options, gzip level 9. TypeScript is stripped with esbuild (tsconfig's
// useDefineForClassFields: false kept), so the "every tag" figure is printed beside the shipped one.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { minifyTemplates } from '../scripts/minify-templates.mjs';

const TAGS_MODULE = 'src/elements/tags.ts';
const VIRTUAL_TAGS = '\0bioid-tags';
const VIRTUAL_ENTRY = '\0bioid-one-tag';

/** [{ tag, className, file }] from tags.ts, so the list never drifts from the one the bundle defines. */
export function tagsOf(root) {
  const source = readFileSync(join(root, TAGS_MODULE), 'utf8');
  // `export { BioEnroll } from './tags/bio-enroll.js';`: each file in tags/ defines the tag it is named after.
  return [...source.matchAll(/export \{ (\w+) \} from '\.\/tags\/([\w-]+)\.js';/g)].map(([, className, tag]) => ({
    tag,
    className,
    file: `tags/${tag}`,
  }));
}

/** A rollup plugin that strips TypeScript with esbuild and resolves `./x.js` imports to `./x.ts`. */
function typescriptByEsbuild(esbuild) {
  return {
    name: 'typescript-by-esbuild',
    resolveId(source, importer) {
      if (!importer || !source.startsWith('.') || importer.startsWith('\0')) return null;
      const ts = resolvePath(dirname(importer), source.replace(/\.js$/, '.ts'));
      return existsSync(ts) ? ts : null;
    },
    async transform(code, id) {
      if (!id.endsWith('.ts')) return null;
      const out = await esbuild.transform(code, {
        loader: 'ts',
        format: 'esm',
        target: 'es2022',
        sourcefile: id,
        tsconfigRaw: { compilerOptions: { useDefineForClassFields: false, verbatimModuleSyntax: true } },
      });
      return { code: out.code, map: null };
    },
  };
}

/** `tags.ts` with only `keep` defined (imports, defines and the export list). */
function tagsModule(root, keep) {
  const imports = keep.map((t) => `import { ${t.className} } from ${JSON.stringify(join(root, 'src/elements', `${t.file}.ts`))};`);
  const defines = keep.map((t) => `${t.className}.define(${JSON.stringify(t.tag)});`);
  return [...imports, ...defines, `export { ${keep.map((t) => t.className).join(', ')} };`].join('\n');
}

/**
 * `inAll`: every file the script may load on use inlined (what a page with every tag loads in the end);
 * else those files are left out (what loads before the first element renders).
 */
async function build(root, { input, virtual, inAll = true }, terserOptions) {
  const { rollup } = await import('rollup');
  const { default: resolve } = await import('@rollup/plugin-node-resolve');
  const { default: terser } = await import('@rollup/plugin-terser');
  const esbuild = await import('esbuild');
  const bundle = await rollup({
    input,
    plugins: [
      {
        name: 'virtual-tags',
        resolveId(source, importer) {
          if (source in virtual) return source;
          // The bundle entry's `./elements/tags.js`, replaced by the chosen tags.
          if (importer?.endsWith('src/bundle.ts') && source === './elements/tags.js') return VIRTUAL_TAGS;
          return null;
        },
        resolveDynamicImport: (specifier) => (!inAll && typeof specifier === 'string' ? { id: specifier, external: true } : null),
        load: (id) => virtual[id] ?? null,
      },
      typescriptByEsbuild(esbuild),
      minifyTemplates(),
      resolve({ browser: true }),
      terser({ ...terserOptions, module: false }),
    ],
    onwarn: () => {},
  });
  const { output } = await bundle.generate({ format: 'iife', inlineDynamicImports: inAll });
  await bundle.close();
  return output[0].code;
}

/**
 * The figures: { all, tags: [{ tag, share, shareInAll, alone }] } in gzip bytes: `share` counts what loads before
 * the first element renders, `shareInAll` adds the files the tag loads on use. `gzipSize` and the terser
 * options come from the size section, so every figure is measured alike.
 */
export async function measureTags(root, { gzipSize, terserOptions }) {
  const tags = tagsOf(root);
  const scriptWith = async (keep, inAll) =>
    gzipSize(
      await build(root, { input: join(root, 'src/bundle.ts'), inAll, virtual: { [VIRTUAL_TAGS]: tagsModule(root, keep) } }, terserOptions),
    );
  const all = await scriptWith(tags, false);
  const allInAll = await scriptWith(tags, true);
  const rows = [];
  for (const t of tags) {
    const others = tags.filter((other) => other !== t);
    const share = all - (await scriptWith(others, false));
    const shareInAll = allInAll - (await scriptWith(others, true));
    const alone = gzipSize(await build(root, { input: VIRTUAL_ENTRY, virtual: { [VIRTUAL_ENTRY]: tagsModule(root, [t]) } }, terserOptions));
    rows.push({ tag: t.tag, share, shareInAll, alone });
  }
  return { all, tags: rows };
}
