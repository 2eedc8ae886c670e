#!/usr/bin/env node
// `npm run test:soak`: runs `npm test` several times in a row and lists every test that failed, by name,
// with the run it failed in, so a test that fails once in a while is found before CI finds it
// (docs/testing.md, "A suite that is green every time"). No retries: each run is a fresh `npm test`.
//
//   npm run test:soak                 five runs
//   npm run test:soak -- --runs 3     three runs
//   npm run test:soak -- --hog        each run beside a busy loop on one core (a machine not idle)
//   npm run test:soak -- -- <cmd…>    soaks another command, e.g. `-- -- npx web-test-runner`
//
// Each run's output goes to a log file in a temporary folder (named at the end); the summary gives each
// run's time, the load average at its start and end, and the failures with their test names.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const command = dashes === -1 ? ['npm', 'test'] : args.slice(dashes + 1);
const own = dashes === -1 ? args : args.slice(0, dashes);
const runsAt = own.indexOf('--runs');
const runs = runsAt === -1 ? 5 : Number(own[runsAt + 1]);
const hog = own.includes('--hog');
if (!Number.isInteger(runs) || runs < 1) {
  console.error('test:soak: --runs takes a whole number of runs, at least 1 (default 5).');
  process.exit(2);
}

/** The failing tests a run's output names: mocha's numbered failures and web-test-runner's ❌ lines. */
function failuresIn(output) {
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const found = [];
  let file = '';
  for (const [i, line] of lines.entries()) {
    // web-test-runner: a file's name on a line of its own, then its failures as "❌ suite > test".
    const fileLine = /^\s*(test\/\S+\.test\.ts):?\s*$/.exec(line);
    if (fileLine) file = fileLine[1];
    const wtr = /❌\s+(.+)$/.exec(line);
    if (wtr) found.push(`${file ? `${file}: ` : ''}${wtr[1].trim()}`);
    // mocha (spec reporter), after "N failing": "  1) suite" and the test's title on the next lines.
    const mocha = /^\s{2}(\d+)\) (.+)$/.exec(line);
    if (mocha && lines.slice(0, i).some((l) => /^\s+\d+ failing/.test(l))) {
      const title = [mocha[2].trim()];
      for (let j = i + 1; j < lines.length && lines[j].trim() !== '' && !/Error|^\s+at /.test(lines[j]); j++) title.push(lines[j].trim());
      found.push(title.join(' ').replace(/:$/, ''));
    }
  }
  return [...new Set(found)];
}

function run(index, dir) {
  return new Promise((resolve) => {
    const started = Date.now();
    const loadBefore = loadavg()[0];
    const child = spawn(command[0], command.slice(1), { env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    const keep = (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => {
      const log = join(dir, `run-${index}.log`);
      writeFileSync(log, output);
      resolve({
        index,
        code,
        seconds: (Date.now() - started) / 1000,
        loadBefore,
        loadAfter: loadavg()[0],
        failures: failuresIn(output),
        log,
      });
    });
  });
}

/** A busy loop on one core, in a process of its own, until the soak ends. */
function startHog() {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

const dir = mkdtempSync(join(tmpdir(), 'bioid-soak-'));
const busy = hog ? startHog() : undefined;
const results = [];
try {
  for (let i = 1; i <= runs; i++) {
    console.log(`\n=== test:soak: run ${i} of ${runs}${hog ? ' (a busy loop on one core beside it)' : ''}: ${command.join(' ')}\n`);
    results.push(await run(i, dir));
  }
} finally {
  busy?.kill();
}

console.log(`\ntest:soak: ${runs} runs of \`${command.join(' ')}\`${hog ? ', each beside a busy loop on one core' : ''}; logs in ${dir}`);
for (const r of results) {
  const verdict = r.code === 0 ? 'green' : `failed (exit ${r.code})`;
  console.log(
    `  run ${r.index}: ${verdict}, ${r.seconds.toFixed(0)} s, load average ${r.loadBefore.toFixed(1)} → ${r.loadAfter.toFixed(1)}`,
  );
  for (const failure of r.failures) console.log(`    ✗ ${failure}`);
  if (r.code !== 0 && r.failures.length === 0) console.log(`    (no test named: see ${r.log})`);
}
const failed = results.filter((r) => r.code !== 0).length;
console.log(failed === 0 ? `  all ${runs} green` : `  ${failed} of ${runs} failed`);
process.exit(failed === 0 ? 0 : 1);
