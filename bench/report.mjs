// The one table of `npm run bench`: rows collected by the sections, printed to the terminal and written
// to docs/performance.md with the date and the machine, so a figure is never read without its context.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/**
 * A row: what was measured, the figure, the budget it is held to (if any) and the verdict.
 * `verdict` is 'pass', 'MISS', '—' (no budget: context only) or 'not measured'.
 */
export function row(section, item, figure, budget = '', verdict = budget ? 'pass' : '—', note = '') {
  return { section, item, figure: String(figure), budget, verdict, note };
}

/** A row that could not be measured, with the reason instead of a figure. */
export function notMeasured(section, item, why, budget = '') {
  return { section, item, figure: `not measured: ${why}`, budget, verdict: 'not measured', note: '' };
}

/** Verdict for "figure ≤ limit"; a miss says by how much. */
export function atMost(value, limit, unit = '') {
  if (value <= limit) return { verdict: 'pass', note: '' };
  const over = value - limit;
  const pct = limit === 0 ? '' : ` (${((over / limit) * 100).toFixed(1)}%)`;
  return { verdict: 'MISS', note: `over by ${fmt(over)}${unit}${pct}` };
}

/** Verdict for "figure ≥ limit". */
export function atLeast(value, limit, unit = '') {
  if (value >= limit) return { verdict: 'pass', note: '' };
  const under = limit - value;
  return { verdict: 'MISS', note: `short by ${fmt(under)}${unit} (${((under / limit) * 100).toFixed(1)}%)` };
}

export function fmt(n, digits = 2) {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export function machine(chromiumVersion, loadStart) {
  const cpus = os.cpus();
  let npmVersion = '';
  try {
    npmVersion = execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    npmVersion = 'unknown';
  }
  return {
    cpu: cpus[0]?.model ?? 'unknown CPU',
    cores: cpus.length,
    memoryGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    npm: npmVersion,
    chromium: chromiumVersion ?? 'not started',
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadStart: loadStart?.toFixed(1) ?? '?',
  };
}

const COLUMNS = [
  ['section', 'Section'],
  ['item', 'Measure'],
  ['figure', 'Figure'],
  ['budget', 'Budget'],
  ['verdict', 'Verdict'],
  ['note', 'Note'],
];

/** A fixed-width table for the terminal. */
export function textTable(rows) {
  const widths = COLUMNS.map(([key, title]) => Math.max(title.length, ...rows.map((r) => r[key].length)));
  const line = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
  const out = [line(COLUMNS.map(([, title]) => title)), widths.map((w) => '-'.repeat(w)).join('-|-')];
  let last = '';
  for (const r of rows) {
    out.push(line(COLUMNS.map(([key]) => (key === 'section' && r.section === last ? '' : r[key]))));
    last = r.section;
  }
  return out.join('\n');
}

const cell = (s) => s.replace(/\|/g, '\\|');

export function markdownTable(rows) {
  const out = [`| ${COLUMNS.map(([, t]) => t).join(' | ')} |`, `|${COLUMNS.map(() => '---').join('|')}|`];
  for (const r of rows) out.push(`| ${COLUMNS.map(([key]) => cell(r[key])).join(' | ')} |`);
  return out.join('\n');
}

/** docs/performance.md: the table, where it ran, how each section measures, and the notes. */
export function writeDoc(path, { rows, machine: m, startedAt, seconds, methods, extras, built }) {
  const misses = rows.filter((r) => r.verdict === 'MISS');
  const unmeasured = rows.filter((r) => r.verdict === 'not measured');
  const text = `# Performance

Written by \`npm run bench\` (scripts/bench.mjs, sections in bench/); do not edit by hand, run the bench again.

- Date: ${startedAt.toISOString()} (bench took ${seconds.toFixed(0)} s)
- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, ${m.os}
- Node ${m.node}, npm ${m.npm}, Chromium ${m.chromium}
- Measured build: ${built} (the bench reads dist/ as built; run \`npm run build\` first)
- Load average (1 min) at start and end: ${m.loadStart} / ${os.loadavg()[0].toFixed(1)}. The machine is shared: timings (broker requests per second, start-up) vary from run to run, by tens of percent under load; counts and sizes do not.

## Results

${markdownTable(rows)}

${misses.length ? `## Budgets missed\n\n${misses.map((r) => `- **${r.section}: ${r.item}**: ${r.figure} against ${r.budget}; ${r.note}.`).join('\n')}\n` : '## Budgets missed\n\nNone.\n'}
${unmeasured.length ? `\n## Not measured\n\n${unmeasured.map((r) => `- ${r.section}: ${r.item}: ${r.figure.replace(/^not measured: /, '')}`).join('\n')}\n` : ''}
## How each figure is measured

${methods.map((s) => `- ${s}`).join('\n')}
${extras.length ? `\n${extras.join('\n\n')}\n` : ''}`;
  writeFileSync(path, text + keptSections(path));
}

/** Sections written by other commands (`node bench/startup-profile.mjs --write`), kept from the file as it is. */
export const KEPT_HEADING = '\n## Where start-up goes\n';

function keptSections(path) {
  if (!existsSync(path)) return '';
  const old = readFileSync(path, 'utf8');
  const at = old.indexOf(KEPT_HEADING);
  return at < 0 ? '' : old.slice(at);
}
