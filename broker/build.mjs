#!/usr/bin/env node
// Builds the bin of bioid-broker: broker/src (TypeScript) into one ES module for Node 20, dist/cli.js, with
// its `#!` line and the executable bit. Its dependencies and bioid-sdk stay imports, resolved where the
// package is installed. esbuild comes from the repository's devDependencies (the package is built from
// this repository; `npm pack` in broker/ runs this through prepack).
import { chmodSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
rmSync(join(here, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { cli: join(here, 'src/cli.ts') },
  outdir: join(here, 'dist'),
  bundle: true,
  packages: 'external',
  // Named too: the repository's tsconfig maps these names to src/ (for tsx and tsc), which esbuild
  // would follow and inline; the bin must use the installed bioid-sdk instead.
  external: ['bioid-sdk', 'bioid-sdk/*'],
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(join(here, 'dist/cli.js'), 0o755);
