/**
 * WebKit only, by design: test/support/engines.ts starting WebKit sessions when the display fails them. Each
 * case runs the helper in a child process whose MiniBrowser is a wrapper script: it logs the DISPLAY it
 * was given and, when told to, fails the way MiniBrowser does on a display it cannot open.
 */
import { assert } from 'chai';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserPaths } from '../../scripts/browsers.mjs';

const ENGINES = new URL('../support/engines.ts', import.meta.url).href;

/** Runs `body` (module source with `launch` in scope, the harness loaded through tsx) with the wrapper as MiniBrowser; resolves its output. */
function run(dir: string, body: string): Promise<{ code: number | null; output: string }> {
  const source = `import { launch } from ${JSON.stringify(ENGINES)};\n${body}`;
  const proc = spawn(process.execPath, ['--import=tsx', '--input-type=module', '-e', source], {
    env: { ...process.env, MINIBROWSER_PATH: join(dir, 'MiniBrowser') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout.on('data', (c) => (output += c));
  proc.stderr.on('data', (c) => (output += c));
  return new Promise((resolve) => proc.once('exit', (code) => resolve({ code, output })));
}

/** Opens a context, shows a page and reads it back; prints the result. */
const OPEN_PAGE = `{
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('data:text/html,<p>served</p>');
  console.log('page:', await page.evaluate(() => document.querySelector('p').textContent));
  await context.close();
}`;

describe('test/support/engines.ts: WebKit sessions on a display that fails them', function () {
  this.timeout(120_000);
  let dir: string;

  beforeEach(function () {
    if (!browserPaths().xvfb) this.skip(); // a DISPLAY of the user's own: nothing of ours to restart
    dir = mkdtempSync(join(tmpdir(), 'bioid-webkit-'));
    // Fails (as MiniBrowser does) while the file "fail" holds a count above zero, then runs the real one.
    writeFileSync(
      join(dir, 'MiniBrowser'),
      `#!/bin/sh
echo "$DISPLAY" >> "${dir}/displays"
left=$(cat "${dir}/fail" 2>/dev/null || echo 0)
if [ "$left" -gt 0 ]; then
  echo $((left - 1)) > "${dir}/fail"
  echo "(MiniBrowser:1): Gtk-WARNING **: cannot open display: $DISPLAY" >&2
  exit 1
fi
exec "${browserPaths().miniBrowser}" "$@"
`,
    );
    chmodSync(join(dir, 'MiniBrowser'), 0o755);
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const displays = () => readFileSync(join(dir, 'displays'), 'utf8').trim().split('\n');

  it('a browser that cannot open its display is given up at once and started again; the page is served', async () => {
    writeFileSync(join(dir, 'fail'), '1');
    const started = Date.now();
    const { code, output } = await run(dir, `const browser = await launch('webkit');\n${OPEN_PAGE}\nawait browser.close();`);
    assert.strictEqual(code, 0, output);
    assert.include(output, 'page: served');
    assert.match(output, /session attempt 1 of 3 failed, trying again: .*could not open display :\d+/);
    assert.lengthOf(displays(), 2);
    assert.isBelow(Date.now() - started, 60_000, 'no wait for a browser that is gone');
  });

  it('three failures in a row fail the context with what the browser said', async () => {
    writeFileSync(join(dir, 'fail'), '3');
    const { code, output } = await run(
      dir,
      `const browser = await launch('webkit');\ntry {\n${OPEN_PAGE}\n} finally { await browser.close(); }`,
    );
    assert.notStrictEqual(code, 0);
    assert.match(output, /could not open display :\d+/);
    assert.match(output, /Gtk-WARNING \*\*: cannot open display/);
    assert.notInclude(output, 'page: served');
  });

  it('after its Xvfb has gone, the next contexts run on one new Xvfb, also when two open at once', async () => {
    // Kills the helper's Xvfb: the child process of the helper's process named Xvfb (from /proc).
    const body = `const browser = await launch('webkit');
${OPEN_PAGE}
const { existsSync, readdirSync, readFileSync } = await import('node:fs');
const xvfb = readdirSync('/proc').filter((pid) => /^\\d+$/.test(pid)).find((pid) => {
  try {
    const stat = readFileSync('/proc/' + pid + '/stat', 'utf8');
    return stat.includes('(Xvfb)') && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
  } catch { return false; }
});
process.kill(Number(xvfb), 'SIGKILL');
while (existsSync('/proc/' + xvfb)) await new Promise((resolve) => setTimeout(resolve, 20));
await Promise.all([(async () => ${OPEN_PAGE})(), (async () => ${OPEN_PAGE})()]);
await browser.close();`;
    const { code, output } = await run(dir, body);
    assert.strictEqual(code, 0, output);
    assert.strictEqual(output.match(/page: served/g)?.length, 3, output);
    assert.strictEqual(output.match(/Xvfb on :\d+ no longer answers; starting another/g)?.length, 1, output);
    const later = displays().slice(1);
    assert.lengthOf(later, 2, output);
    assert.strictEqual(later[0], later[1], 'both on the one new display');
    assert.notInclude(output, 'session attempt');
  });
});
