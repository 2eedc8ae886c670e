// Chromium only, by design (docs/development.md): screenshot comparisons are not run in Firefox or WebKit and are not counted as skips.
/**
 * Each state of the elements (screenshot-scenes.ts) is pictured in headless Chromium
 * and compared with its committed image in test/screenshots/, with a small tolerance for font
 * rasterisation. The pictures are made deterministic: a fixed font ("DejaVu Sans", 16px), a 1× device
 * scale, reduced motion (a still scan bar) unless a scene freezes the animation at a set moment.
 *
 * Update the images after an intended change of the look:
 *   BIOID_UPDATE_SCREENSHOTS=1 node scripts/test-node.mjs test/elements/screenshots.node.test.ts
 * (only images that differ beyond the tolerance, or are missing, are rewritten). On a mismatch the
 * actual picture and a diff are written to .cache/screenshots/.
 */
import { assert } from 'chai';
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer-core';
import { launch, type Browser } from '../../scripts/engines.mjs';
import { comparePng } from '../support/png-compare.js';
import { SCENES } from './screenshot-scenes.js';

const path = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url));
const IMAGES = path('test/screenshots');
const OUT = path('.cache/screenshots');
const UPDATE = process.env.BIOID_UPDATE_SCREENSHOTS === '1';
const FONT = 'DejaVu Sans';
/** Differing pixels allowed (anti-aliasing aside): 0.1% of the picture, at least 8. */
const allowedPixels = (png: Buffer) => Math.max(8, Math.round(png.readUInt32BE(16) * png.readUInt32BE(20) * 0.001));

// A page that follows the system's colour scheme, and says so (the cards follow what the page declares).
const PAGE = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="color-scheme" content="light dark">
<title>bioid-sdk screenshots</title>
<style>
  body { margin: 0; padding: 8px; font: 16px/1.25 "${FONT}", sans-serif; background: #fff; }
  @media (prefers-color-scheme: dark) { body { background: #131314; } }
</style>
<div id="stage"></div>
<script src="/page.js"></script>`;

describe('screenshots of each state (Chromium only)', function () {
  this.timeout(20_000);
  let server: Server;
  let browser: Browser;
  let page: Page;

  before(async () => {
    const bundle = await build({
      entryPoints: [path('test/elements/screenshot-page.ts')],
      bundle: true,
      format: 'iife',
      target: 'es2022',
      write: false,
      tsconfig: path('tsconfig.json'),
      // package.json "sideEffects" names dist/ files only; honoured here it would drop the tag definitions.
      ignoreAnnotations: true,
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0]!.contents;
    server = createServer((req, res) => {
      const js = req.url === '/page.js';
      res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html; charset=utf-8' });
      res.end(js ? script : PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    browser = await launch('chromium');
    page = await browser.puppeteer!.newPage();
    await page.setViewport({ width: 420, height: 600, deviceScaleFactor: 1 });
    // <bio-diagnostics> shows the user agent: one fixed string, whatever Chromium runs the test.
    await page.setUserAgent('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36');
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { waitUntil: 'load' });
    const installed = await page.evaluate((family) => (window as unknown as { hasFont(f: string): boolean }).hasFont(family), FONT);
    assert.ok(
      installed,
      `The screenshots are drawn in "${FONT}", which this machine lacks: install it (Debian: apt-get install fonts-dejavu-core).`,
    );
    mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  it('with reduced motion asked for, the waiting glyph stands still; without, its scan bar sweeps', async () => {
    const animations = async (motion: 'reduce' | 'no-preference') => {
      await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: motion }]);
      return page.evaluate(async () => {
        await (window as unknown as { showScene(n: string): Promise<void> }).showScene('verify-waiting');
        return document.querySelector('#stage > * > *')!.shadowRoot!.getAnimations().length;
      });
    };
    assert.strictEqual(await animations('reduce'), 0);
    assert.strictEqual(await animations('no-preference'), 1);
  });

  for (const scene of SCENES) {
    it(`${scene.name} looks as in test/screenshots/${scene.name}.png`, async () => {
      // One page for every scene: a scene of another width resizes it.
      if (page.viewport()?.width !== (scene.width ?? 420))
        await page.setViewport({ width: scene.width ?? 420, height: 600, deviceScaleFactor: 1 });
      await page.emulateMediaFeatures([
        { name: 'prefers-color-scheme', value: scene.colorScheme ?? 'light' },
        { name: 'prefers-reduced-motion', value: scene.motion ?? 'reduce' },
      ]);
      await page.evaluate((name) => (window as unknown as { showScene(n: string): Promise<void> }).showScene(name), scene.name);
      const element = await page.$('#stage > * > *');
      const actual = Buffer.from(await element!.screenshot({ type: 'png' }));
      const file = `${IMAGES}/${scene.name}.png`;
      if (!existsSync(file)) {
        if (UPDATE) return writeFileSync(file, actual);
        assert.fail(`${file} is missing: run with BIOID_UPDATE_SCREENSHOTS=1 to create it.`);
      }
      const { diffPixels, diff, sizes } = comparePng(readFileSync(file), actual);
      const allowed = allowedPixels(actual);
      if (diffPixels <= allowed) return;
      if (UPDATE) return writeFileSync(file, actual);
      writeFileSync(`${OUT}/${scene.name}.actual.png`, actual);
      if (diff) writeFileSync(`${OUT}/${scene.name}.diff.png`, diff);
      assert.fail(
        `${scene.name}: ${diffPixels === Infinity ? `the size changed (${sizes})` : `${diffPixels} pixels differ (at most ${allowed} may)`}; ` +
          `see .cache/screenshots/${scene.name}.actual.png and .diff.png. If the change is intended: BIOID_UPDATE_SCREENSHOTS=1.`,
      );
    });
  }
});
