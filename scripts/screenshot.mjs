#!/usr/bin/env node
// `npm run screenshot`: pictures for the docs, in headless system Chromium (puppeteer-core through the test
// harness, test/support/engines.ts: CHROME_PATH, else the one scripts/browsers.mjs finds).
//   npm run screenshot [-- output.png]   the README's demo screenshot (docs/demo.png): runs `npm start` on
//                                        free ports, signs in, enrolls, verifies and test-captures on the
//                                        plain page, takes the picture, and stops the demo.
//   npm run screenshot -- --states       the state sheets: every state of every element (the STATES of
//                                        test/elements/screenshot-scenes.ts) in both themes, at 320 px and on
//                                        a 1280 px desktop, one sheet each in test/screenshots/states/
//                                        (docs/elements.md shows them).
// Runs under tsx (package.json), which loads the harness's and the screenshot page's TypeScript.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { launch } from '../test/support/engines.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (process.argv.includes('--states')) await stateSheets(join(root, 'test', 'screenshots', 'states'));
else await demoScreenshot(resolve(process.argv[2] ?? join(root, 'docs', 'demo.png')));

/**
 * One sheet per width and theme: each state's card as the screenshot tests picture it (the same page, font
 * and user agent), captioned with its scene's name, in a grid on the theme's page colour.
 */
async function stateSheets(dir) {
  const { STATES } = await import('../test/elements/screenshot-scenes.ts');
  const { FONT, USER_AGENT, startScreenshotPage } = await import('../test/elements/screenshot-server.ts');
  const server = await startScreenshotPage();
  const browser = await launch('chromium');
  try {
    const page = await browser.puppeteer.newPage();
    await page.setUserAgent(USER_AGENT);
    page.setDefaultTimeout(15_000);
    mkdirSync(dir, { recursive: true });
    for (const [label, width] of [
      ['320', 320],
      ['desktop', 1280],
    ])
      for (const theme of ['light', 'dark']) {
        await page.setViewport({ width, height: 800, deviceScaleFactor: 1 });
        await page.emulateMediaFeatures([
          { name: 'prefers-color-scheme', value: theme },
          { name: 'prefers-reduced-motion', value: 'reduce' },
        ]);
        await page.goto(server.url, { waitUntil: 'load' });
        const shots = [];
        for (const scene of STATES) {
          await page.evaluate((name) => window.showScene(name), scene.name);
          const png = await (await page.$('#stage > * > *')).screenshot({ type: 'png', encoding: 'base64' });
          shots.push([scene.name, png]);
        }
        await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
        await page.setContent(sheet(shots, theme, width, FONT), { waitUntil: 'load' });
        const file = join(dir, `${label}-${theme}.png`);
        writeFileSync(file, await page.screenshot({ type: 'png', fullPage: true }));
        console.log(`${STATES.length} states, ${width} px, ${theme}: ${file}`);
      }
  } finally {
    await browser.close();
    await server.close();
  }
}

/** A sheet's page: the pictures in rows, each over its caption. */
function sheet(shots, theme, width, font) {
  const [ink, paper] = theme === 'dark' ? ['#c4c7c5', '#131314'] : ['#444746', '#fff'];
  const figures = shots.map(
    ([name, png]) => `<figure><img src="data:image/png;base64,${png}" alt=""><figcaption>${name}</figcaption></figure>`,
  );
  return `<!doctype html><meta charset="utf-8"><style>
    body { margin: 0; padding: 16px; background: ${paper}; color: ${ink}; font: 13px/1.3 "${font}", sans-serif; }
    h1 { font-size: 15px; margin: 0 0 12px; }
    main { display: flex; flex-wrap: wrap; gap: 20px 16px; align-items: start; }
    figure { margin: 0; } img { display: block; } figcaption { margin-block-start: 4px; }
  </style><h1>Every state at ${width} px, ${theme}</h1><main>${figures.join('')}</main>`;
}

async function demoScreenshot(output) {
  const demo = spawn(process.execPath, [join(root, 'scripts/start.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      BIOID_DEMO_PORT: '0',
      BIOID_IDP_PORT: '0',
      BIOID_MIDDLEWARE_PORT: '0',
      BIOID_LOCAL_SERVICE_PORT: '0',
      BIOID_CAPTURE_DELAY_MS: '200-300',
      BIOID_DEMO_USER: 'demo',
      BIOID_DEMO_PASSWORD: 'fingerprint',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });

  const url = await new Promise((resolveUrl, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`the demo did not start within 120 s:\n${text}`)), 120_000);
    demo.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /DEMO_READY (\S+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    });
    demo.on('exit', (code) => reject(new Error(`the demo exited (${code}) before it was ready:\n${text}`)));
  });

  const browser = await launch('chromium');
  try {
    const page = await browser.puppeteer.newPage();
    await page.setViewport({ width: 1280, height: 860, deviceScaleFactor: 1 });
    page.setDefaultTimeout(15_000);
    // /plain sends a visitor who is not signed in to the sign-in form, which comes back to /plain.
    await page.goto(`${url}plain`);
    await page.locator('input[name=username]').fill('demo');
    await page.locator('input[name=password]').fill('fingerprint');
    await Promise.all([page.waitForNavigation(), page.click('form.signin button[type=submit]')]);
    await page.waitForSelector('#simulator[data-ready]');
    await page.waitForFunction(() => customElements.get('bio-verify'));
    await page.select('#sim-finger', 'finger-a');

    const finish = (selector) =>
      page.evaluate(
        (sel) =>
          new Promise((done) => {
            const el = document.querySelector(sel);
            el.addEventListener('bio-result', () => done(), { once: true });
            el.addEventListener('bio-error', () => done(), { once: true });
          }),
        selector,
      );
    for (const selector of ['bio-enroll', 'bio-verify']) {
      const done = finish(selector);
      // `>>>`: puppeteer's selector into the element's shadow root.
      await page.locator(`${selector} >>> button[part~="button"]`).click();
      await done;
    }
    await page.click('#sim-test-capture');
    await page.waitForSelector('#sim-capture:not([hidden])');
    await sleep(300); // let the live regions settle
    mkdirSync(dirname(output), { recursive: true });
    await page.screenshot({ path: output });
    console.log(`Screenshot written to ${output}`);
  } finally {
    await browser.close();
    demo.kill('SIGINT');
  }
}
