// Reads bench/budgets.json, the one table of size ceilings: the size test of `npm test`
// and `npm run bench` both take their numbers from here, the tarball test and `npm run release:check` theirs.
import { readFileSync } from 'node:fs';

const table = JSON.parse(readFileSync(new URL('./budgets.json', import.meta.url), 'utf8'));

/** Ceiling of dist/bioid-elements.js, bytes min+gzip: what a page loads before the first element renders. */
export const BUNDLE_BUDGET = table.bundle.ceiling;
/** Ceiling of dist/bioid-elements.js and every file it may load on use (dist/bioid-*.js), each gzipped, summed. */
export const BUNDLE_ALL_BUDGET = table.bundleAll.ceiling;
/** Ceiling of the core entry dist/index.js (bundled and minified in memory), bytes min+gzip. */
export const CORE_BUDGET = table.core.ceiling;
/** Ceiling of the bioid-sdk tarball, bytes of the .tgz that npm pack writes (npm's "package size"). */
export const TARBALL_BUDGET = table.tarball.ceiling;
