#!/usr/bin/env node
// Takes the README's demo screenshot (docs/demo.png): runs `npm start` on free ports, signs in with
// headless system Chromium (puppeteer-core through scripts/engines.mjs: CHROME_PATH, else the one
// scripts/browsers.mjs finds), enrolls, verifies and test-captures on the plain page, takes the
// picture, and stops the demo. Usage: node scripts/screenshot.mjs [output.png]
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { launch } from './engines.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const output = resolve(process.argv[2] ?? join(root, 'docs', 'demo.png'));

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
