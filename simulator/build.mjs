#!/usr/bin/env node
// Builds the bin of bioid-simulator: simulator/src (TypeScript) into ES modules for Node 20: dist/cli.js
// and, split off so that `--help` loads none of it, the servers it starts (dist/chunks/). Its dependencies and bioid-sdk (a peer: the integrator's own copy) stay imports, resolved where
// the package is installed. esbuild comes from the repository's devDependencies (the simulator is built
// from this repository; `npm pack` in simulator/ runs this through prepack).
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
rmSync(join(here, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { cli: join(here, 'src/cli.ts') },
  outdir: join(here, 'dist'),
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
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
