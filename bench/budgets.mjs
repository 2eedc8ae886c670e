// Reads bench/budgets.json, the one table of ceilings (sizes, and the start-up ratio): the size test of `npm test`
// and `npm run bench` both take their numbers from here, the tarball test and `npm run release:check` theirs.
// @ts-check
import { readFileSync } from 'node:fs';

const table = JSON.parse(readFileSync(new URL('./budgets.json', import.meta.url), 'utf8'));

/**
 * Ceiling of dist/bioid-elements.js, bytes min+gzip: what a page loads before the first element renders.
 * @type {number}
 */
export const BUNDLE_BUDGET = table.bundle.ceiling;
/**
 * Ceiling of dist/bioid-elements.js and every file it may load on use (dist/bioid-*.js), each gzipped, summed.
 * @type {number}
 */
export const BUNDLE_ALL_BUDGET = table.bundleAll.ceiling;
/**
 * Ceiling of the core entry dist/index.js (bundled and minified in memory), bytes min+gzip.
 * @type {number}
 */
export const CORE_BUDGET = table.core.ceiling;
/**
 * Ceiling of the bioid-sdk tarball, bytes of the .tgz that npm pack writes (npm's "package size").
 * @type {number}
 */
export const TARBALL_BUDGET = table.tarball.ceiling;

/**
 * The script and each file it loads on use carry the build id, a hash of the sources
 * (scripts/script-parts.mjs), so any edit, a comment included, draws new hex digits that gzip codes a byte
 * longer or shorter. Sizes held against a ceiling are taken with one fixed id of the same length, so they
 * move only when the code does.
 * @param {string | Buffer} code
 * @returns {string}
 */
export const withFixedBuildId = (code) => String(code).replace(/bioid-build:[0-9a-f]{12}/g, 'bioid-build:9f86d081884c');
/**
 * Ceiling of the four-tag page's longest main-thread task at 6× CPU over four bare Lit elements' (a ratio; bench/blocking.mjs).
 * @type {number}
 */
export const STARTUP_BUDGET = table.startup.ceiling;
