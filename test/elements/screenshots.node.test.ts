// Chromium only, by design (docs/testing.md): screenshot comparisons are not run in Firefox or WebKit and are not counted as skips.
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
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer-core';
import { launch, type Browser } from '../support/engines.js';
import { comparePng } from '../support/png-compare.js';
import { SCENES } from './screenshot-scenes.js';
import { FONT, USER_AGENT, startScreenshotPage, type ScreenshotPage } from './screenshot-server.js';

const path = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url));
const IMAGES = path('test/screenshots');
const OUT = path('.cache/screenshots');
const UPDATE = process.env.BIOID_UPDATE_SCREENSHOTS === '1';
/** Differing pixels allowed (anti-aliasing aside): 0.1% of the picture, at least 8. */
const allowedPixels = (png: Buffer) => Math.max(8, Math.round(png.readUInt32BE(16) * png.readUInt32BE(20) * 0.001));

describe('screenshots of each state (Chromium only)', function () {
  this.timeout(20_000);
  let server: ScreenshotPage;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startScreenshotPage();
    browser = await launch('chromium');
    page = await browser.puppeteer!.newPage();
    await page.setViewport({ width: 420, height: 600, deviceScaleFactor: 1 });
    await page.setUserAgent(USER_AGENT);
    await page.goto(server.url, { waitUntil: 'load' });
    const installed = await page.evaluate((family) => (window as unknown as { hasFont(f: string): boolean }).hasFont(family), FONT);
    assert.ok(
      installed,
      `The screenshots are drawn in "${FONT}", which this machine lacks: install it (Debian: apt-get install fonts-dejavu-core).`,
    );
    mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
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
