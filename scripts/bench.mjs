#!/usr/bin/env node
// `npm run bench`: one table of sizes, token economy, broker throughput, start-up, polling and leaks,
// each figure against its budget, printed and written to docs/performance.md.
// `npm run bench -- --only size,tokens` runs some sections only (the doc is then not written).
// Each section is bounded (seconds to a minute); a section whose dependency is missing prints
// "not measured: <why>" instead of a figure.
import { register } from 'tsx/esm/api';
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { closeBrowser } from '../bench/browser.mjs';
import { machine, notMeasured, textTable, writeDoc } from '../bench/report.mjs';

// The token-economy and broker sections import the TypeScript sources (core, broker, demo IdP).
register();

const root = fileURLToPath(new URL('..', import.meta.url));
const only = (() => {
  const i = process.argv.indexOf('--only');
  return i > 0 ? new Set(process.argv[i + 1].split(',')) : undefined;
})();

const SECTIONS = [
  ['size', '1 Size', () => import('../bench/size.mjs').then((m) => m.runSize)],
  ['tokens', '2 Token economy', () => import('../bench/tokens.mjs').then((m) => m.runTokens)],
  ['broker', '3 Broker', () => import('../bench/broker.mjs').then((m) => m.runBroker)],
  ['store', '3b Shared store', () => import('../bench/store.mjs').then((m) => m.runStore)],
  ['startup', '4 Start-up', () => import('../bench/startup.mjs').then((m) => m.runStartup)],
  ['blocking', '4b Start-up, 6× CPU', () => import('../bench/blocking.mjs').then((m) => m.runBlocking)],
  ['polling', '5 Polling', () => import('../bench/polling.mjs').then((m) => m.runPolling)],
  ['leaks', '6 Leaks', () => import('../bench/leaks.mjs').then((m) => m.runLeaks)],
];

const log = (message) => process.stderr.write(`${message}\n`);
const startedAt = new Date();
const loadStart = os.loadavg()[0];
const rows = [];
const methods = [];
const extras = [];
const shared = { root, log, chromiumVersion: undefined };

for (const [key, title, load] of SECTIONS) {
  if (only && !only.has(key)) continue;
  const t0 = performance.now();
  log(`bench: ${title} …`);
  try {
    const run = await load();
    const result = await run(shared);
    rows.push(...result.rows);
    methods.push(...(result.methods ?? []));
    extras.push(...(result.extras ?? []));
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    log(`bench: ${title} failed: ${error instanceof Error ? error.stack : error}`);
    rows.push(notMeasured(title, 'section', `the section failed (${why})`));
  }
  log(`bench: ${title} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

await closeBrowser().catch(() => {});
const seconds = (Date.now() - startedAt.getTime()) / 1000;
const m = machine(shared.chromiumVersion, loadStart);
const bundle = new URL('../dist/bioid-elements.js', import.meta.url);
const built = existsSync(bundle) ? `dist/bioid-elements.js of ${statSync(bundle).mtime.toISOString()}` : 'dist/ missing';
console.log(textTable(rows));
console.log(`\n${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; Node ${m.node}; Chromium ${m.chromium}; ${seconds.toFixed(0)} s`);
if (!only) {
  writeDoc(new URL('../docs/performance.md', import.meta.url), { rows, machine: m, startedAt, seconds, methods, extras, built });
  console.log('Written to docs/performance.md');
}
// Servers and browsers are closed by their sections; nothing should keep the process alive, but a
// stray handle in a dependency must not hang the bench.
process.exit(0);
