// A rollup plugin for the ESM build: ships only the .d.ts files that an entry point's types reach. The
// TypeScript plugin emits one declaration file per module, but a consumer can only reach those the entry
// points' declarations import (package.json "exports" names no other); the rest (declarations of tables
// and helpers that no public type mentions) would only weigh on the tarball (bench/budgets.json "tarball").
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** The declaration files package.json's "exports" name, relative to dist/, as patterns (`*` a wildcard). */
function exportedTypes() {
  const found = [];
  const walk = (value) => {
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'types') found.push(inner);
      else walk(inner);
    }
  };
  walk(JSON.parse(readFileSync('package.json', 'utf8')).exports);
  return found.map(
    (path) =>
      new RegExp(
        `^${path
          .replace(/^\.\/dist\//, '')
          .replace(/\./g, '\\.')
          .replace(/\*/g, '[^/]+')}$`,
      ),
  );
}

/** The relative modules a declaration file imports or re-exports (`from './x.js'`, `import('./x.js')`). */
function importsOf(fileName, source) {
  const found = [];
  for (const [, specifier] of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    found.push(normalize(join(dirname(fileName), specifier)).replace(/\.js$/, '.d.ts'));
  }
  return found;
}

export function reachableTypes() {
  return {
    name: 'bioid-reachable-types',
    generateBundle(_options, bundle) {
      const declarations = new Map(
        Object.entries(bundle)
          .filter(([fileName, file]) => fileName.endsWith('.d.ts') && file.type === 'asset')
          .map(([fileName, file]) => [fileName, String(file.source)]),
      );
      const entries = Object.values(bundle)
        .filter((file) => file.type === 'chunk' && file.isEntry)
        .map((chunk) => chunk.fileName.replace(/\.js$/, '.d.ts'));
      const missing = entries.filter((fileName) => !declarations.has(fileName));
      if (missing.length) this.error(`reachable-types: no declarations for the entry points ${missing.join(', ')}`);
      // The script-tag bundle's types (dist/bundle.d.ts) come from this build too: TypeScript declares the whole program.
      const exported = exportedTypes();
      const reached = new Set();
      const queue = [...entries, ...[...declarations.keys()].filter((fileName) => exported.some((pattern) => pattern.test(fileName)))];
      while (queue.length) {
        const fileName = queue.pop();
        if (reached.has(fileName) || !declarations.has(fileName)) continue;
        reached.add(fileName);
        queue.push(...importsOf(fileName, declarations.get(fileName)));
      }
      for (const fileName of declarations.keys()) if (!reached.has(fileName)) delete bundle[fileName];
    },
  };
}
