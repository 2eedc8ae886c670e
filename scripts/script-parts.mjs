// A rollup plugin (rollup.config.mjs): the script-tag bundle with files that load on use (src/script-parts.ts
// says why import()). Rollup builds src/bundle.ts as ES modules with code splitting, so it links the parts to
// the script itself: the entry chunk exports what a part uses, and the part imports it from the entry. This
// plugin turns that pair into what a page can load with one classic <script> tag:
//  - the entry chunk becomes a classic script (an IIFE): its export list becomes the `kit` object, and each
//    `import('./bioid-<part>.js')` becomes `loadRarePart('./bioid-<part>.js', () => kit)`. The kit is declared
//    last, after every module's code, and read only when the part has arrived, by then always: an element
//    that asks for its part while the script still runs (one already in the page, upgraded as its tag is
//    defined) would otherwise read the kit before its declaration, a ReferenceError;
//  - each part stays an ES module whose default export receives the kit and returns the part's exports.
// The kit holds values: an exported binding the script reassigns later would go stale in a part, so the
// build fails on one (none is today). The kit also carries the build's id, which each part checks: a part
// from another build (a cached file of the version before) would read the wrong bindings, so it refuses.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { relative, sep } from 'node:path';
import MagicString from 'magic-string';

const KIT = '__bioidKit';

/**
 * The files the script loads on use, beside it in `distDir` (rollup.config.mjs names them bioid-<part>.js).
 * @param {string} distDir
 * @returns {string[]}
 */
export function scriptPartFiles(distDir) {
  return readdirSync(distDir)
    .filter((f) => /^bioid-[\w-]+\.js$/.test(f) && f !== 'bioid-elements.js')
    .sort();
}
const LOADER = 'loadRarePart';

/** `{ exported: local }` of a chunk's `export { local as exported }` statements, which are removed. */
function takeExports(ast, ms, chunkName) {
  const names = {};
  for (const node of ast.body) {
    if (node.type === 'ExportNamedDeclaration' && !node.declaration && !node.source) {
      for (const s of node.specifiers) names[s.exported.name ?? s.exported.value] = s.local.name;
      ms.remove(node.start, node.end);
    } else if (node.type === 'ExportNamedDeclaration' && node.declaration && !node.source) {
      // `export function f` / `export const x = …`: the declaration stays, without `export`.
      const declared = node.declaration.declarations?.map((d) => d.id) ?? [node.declaration.id];
      for (const id of declared) {
        if (id.type !== 'Identifier') throw new Error(`script-parts: ${chunkName} exports a pattern`);
        names[id.name] = id.name;
      }
      ms.remove(node.start, node.declaration.start);
    } else if (node.type.startsWith('Export')) {
      throw new Error(
        `script-parts: ${chunkName} has an export rollup was not expected to write (${node.type}${node.source ? ` from ${node.source.value}` : ''})`,
      );
    }
  }
  return names;
}

/** Fails the build on an exported `let` or `var` that is assigned again: a part would keep its first value. */
function assertConstant(ast, locals, chunkName) {
  const variables = new Set();
  for (const node of ast.body) {
    if (node.type === 'VariableDeclaration' && node.kind !== 'const') {
      for (const d of node.declarations) if (d.id.type === 'Identifier' && locals.has(d.id.name)) variables.add(d.id.name);
    }
  }
  if (!variables.size) return;
  const walk = (node) => {
    if (!node || typeof node.type !== 'string') return;
    const target = node.type === 'AssignmentExpression' ? node.left : node.type === 'UpdateExpression' ? node.argument : undefined;
    if (target?.type === 'Identifier' && variables.has(target.name)) {
      throw new Error(`script-parts: ${chunkName} reassigns ${target.name}, which a part uses; export a getter instead`);
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') walk(value);
    }
  };
  walk(ast);
}

const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

/** @returns {import('rollup').Plugin} */
export function scriptParts() {
  let build = '';
  return {
    name: 'script-parts',
    renderStart() {
      // The same source gives the same id; any change in any module gives another. Modules are named by
      // their path in the project or in node_modules, not on this machine: the id is a string of the script,
      // terser picks its short names by the script's character counts, so an absolute path would make each
      // checkout's script differ (and its size by a byte or two). test/size/reproducible.node.test.ts.
      const hash = createHash('sha256');
      const nameOf = (id) => {
        const path = id.split(sep).join('/');
        const dependency = path.lastIndexOf('/node_modules/');
        return dependency >= 0 ? path.slice(dependency + 1) : relative(process.cwd(), id).split(sep).join('/');
      };
      const ids = [...this.getModuleIds()].map((id) => [nameOf(id), id]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [name, id] of ids) hash.update(`${name}\0${this.getModuleInfo(id)?.code ?? ''}\0`);
      build = `bioid-build:${hash.digest('hex').slice(0, 12)}`;
    },
    renderChunk(code, chunk) {
      const ast = this.parse(code);
      const ms = new MagicString(code);
      if (chunk.isEntry) {
        const exported = takeExports(ast, ms, chunk.fileName);
        if ('build' in exported) throw new Error(`script-parts: ${chunk.fileName} exports a binding named build, the kit's own key`);
        const loader = exported[LOADER];
        if (!loader) throw new Error(`script-parts: ${chunk.fileName} must export ${LOADER} (src/bundle.ts)`);
        assertConstant(ast, new Set(Object.values(exported)), chunk.fileName);
        const walk = (node) => {
          if (!node || typeof node.type !== 'string') return;
          if (node.type === 'ImportExpression' && node.source.type === 'Literal' && typeof node.source.value === 'string') {
            ms.overwrite(node.start, node.source.start, `${loader}(`);
            ms.overwrite(node.source.end, node.end, `, () => ${KIT})`);
          }
          for (const value of Object.values(node)) {
            if (Array.isArray(value)) value.forEach(walk);
            else if (value && typeof value === 'object') walk(value);
          }
        };
        walk(ast);
        const kit = Object.entries(exported).map(([name, local]) => (name === local ? name : `${key(name)}: ${local}`));
        ms.prepend("(function () {\n'use strict';\n");
        ms.append(`\nconst ${KIT} = { ${kit.join(', ')}, build: ${JSON.stringify(build)} };\n})();\n`);
      } else {
        const bindings = [];
        const namespaces = [];
        for (const node of ast.body) {
          if (node.type !== 'ImportDeclaration') continue;
          for (const s of node.specifiers) {
            if (s.type === 'ImportNamespaceSpecifier') namespaces.push(`const ${s.local.name} = ${KIT};`);
            else if (s.type === 'ImportSpecifier') bindings.push(`${key(s.imported.name ?? s.imported.value)}: ${s.local.name}`);
            else throw new Error(`script-parts: ${chunk.fileName} imports a default export`);
          }
          ms.remove(node.start, node.end);
        }
        const exported = takeExports(ast, ms, chunk.fileName);
        const result = Object.entries(exported).map(([name, local]) => `${key(name)}: ${local}`);
        const imports = [bindings.length ? `const { ${bindings.join(', ')} } = ${KIT};` : '', ...namespaces];
        const check = `if (${KIT}.build !== ${JSON.stringify(build)}) throw new Error(${JSON.stringify(`${chunk.fileName} is from another build than the script that loads it`)});`;
        ms.prepend(`export default (${KIT}) => {\n${check}\n${imports.join('\n')}\n`);
        ms.append(`\nreturn { ${result.join(', ')} };\n};\n`);
      }
      return { code: ms.toString(), map: ms.generateMap({ hires: true }) };
    },
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((file) => file.type === 'chunk');
      const shared = chunks.filter((c) => !c.isEntry && !c.isDynamicEntry);
      if (shared.length)
        throw new Error(
          `script-parts: a chunk no import() asks for (${shared.map((c) => c.fileName).join(', ')}): the classic script could not load it`,
        );
      // Each part is exported by the package (so tools that copy assets can resolve it), and an export
      // without types is a problem for type checkers: say what it is, a module for the script alone.
      for (const part of chunks.filter((c) => c.isDynamicEntry)) {
        this.emitFile({
          type: 'asset',
          fileName: part.fileName.replace(/\.js$/, '.d.ts'),
          source:
            '// Loaded by bioid-elements.js when first needed (docs/elements.md): not a module to import.\ndeclare const part: (kit: unknown) => unknown;\nexport default part;\n',
        });
      }
    },
  };
}
