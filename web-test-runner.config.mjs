// Browser tests in Chromium, Firefox and WebKit (test/support/wtr-engines.ts; BIOID_ENGINES narrows them): runtime-neutral
// core tests (*.test.ts, also run in Node) and browser-only tests (*.browser.test.ts). Node-only tests
// (*.node.test.ts) are excluded. Every test file uses mocha's globals (describe, it, before, after…);
// runtime-neutral tests import chai's assert from 'chai', browser-only tests use @open-wc/testing (chai's
// expect/assert, fixture).
//
// The runtime-neutral files run together, in one page per engine (NEUTRAL_PAGE): a page of its own cost
// each file about a second of CPU in Firefox and in Chromium to load, more than most of their tests, and a
// second of the browser stage's length in WebKit. They share a realm in Node too (a mocha worker runs one
// file after another), and none may have a hook outside its describe() (checked below).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createServer } from 'node:http';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { tsImport } from 'tsx/esm/api';
import { isRuntimeNeutral, testFiles } from './scripts/test-files.mjs';

// The launchers are the test harness's, TypeScript beside the tests (test/support/wtr-engines.ts); web-test-runner
// loads this config with plain Node, so tsx loads them. tsImport, not register(): tsx then loads these modules
// alone and leaves how Node loads everything else in web-test-runner's process as it was. One import, so one
// instance of test/support/engines.ts (its child processes and exit hook) serves every engine.
const { selectedLaunchers } = await tsImport('./test/support/wtr-engines.ts', import.meta.url);

const LOOPBACK = '127.0.0.1';

const NEUTRAL = testFiles().filter(isRuntimeNeutral);
// A hook outside describe() would wrap every file of the shared page, not its own.
for (const path of NEUTRAL) {
  if (/^(?:before|after)(?:Each)?\(/m.test(readFileSync(path, 'utf8'))) {
    throw new Error(`${path}: move its top-level before/after hook into its describe(); the runtime-neutral files share one page.`);
  }
}
const NEUTRAL_PAGE = 'node_modules/.cache/bioid-wtr/runtime-neutral.test.js';
mkdirSync(dirname(NEUTRAL_PAGE), { recursive: true });
writeFileSync(NEUTRAL_PAGE, NEUTRAL.map((path) => `import '/${path}';\n`).join(''));

/** A second origin (loopback, port 0) serving the same files without CORS headers, for cross-origin tests. */
let secondOrigin;
let secondServer;

const listen = (server, port) =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });

export default {
  // The shared page first: it is among the longest, and an engine's last file runs alone.
  files: [NEUTRAL_PAGE, 'test/**/*.browser.test.ts'],
  nodeResolve: { exportConditions: ['browser', 'development'] },
  rootDir: fileURLToPath(new URL('.', import.meta.url)),
  hostname: LOOPBACK,
  concurrency: 1,
  // The three engines side by side: with two at a time WebKit ran alone after Firefox, a third of the run
  // on one engine; its 200-run fuzz tests pass beside the other two.
  concurrentBrowsers: 3,
  // A bound for a test that hangs, not a pace: tests wait for states (test/support/wait.ts gives up on one
  // after 8 s, naming it), and three engines at once on a busy 2-core machine take seconds where an idle
  // one takes milliseconds.
  testFramework: { config: { timeout: 30000 } },
  // The same for a whole file (web-test-runner's default is 120 s): the fuzz file's 1,000 cases took longer in
  // WebKit on a busy machine.
  testsFinishTimeout: 600_000,
  browsers: selectedLaunchers(),
  middleware: [
    function testRoutes(ctx, next) {
      // Where the second origin is (test/core/local-service-cors.browser.test.ts).
      if (ctx.path === '/__test/second-origin') {
        ctx.body = { origin: secondOrigin };
        return undefined;
      }
      // What a page posted, answered back with its content type, as a server would read the form
      // (test/elements/form.browser.test.ts: what jQuery's $.post() sends).
      if (ctx.path === '/__test/echo' && ctx.method === 'POST') {
        return text(ctx.req).then((body) => {
          ctx.body = { type: ctx.get('Content-Type'), body };
        });
      }
      // A token endpoint that bounces to a login page on another origin, as a gateway in front of an
      // integrator's broker does when the session is gone (test/elements/broker-redirect.browser.test.ts).
      if (ctx.path === '/__test/token-behind-login') {
        ctx.status = 302;
        ctx.set('Location', `${secondOrigin}/login?return=%2Ftoken`);
        return undefined;
      }
      // The script and the files it loads on use, as a site or a CDN serves them (test/elements/script-parts.browser.test.ts):
      // /__test/parts/<way>/<file> is dist/<file>; `slow` holds bioid-diagnostics.js back 300 ms, `hang` until the
      // page goes away (a server that never answers), `cdn` adds the Access-Control-Allow-Origin: * of jsDelivr and
      // unpkg, `missing` has none of the files (404: bioid-diagnostics.js, bioid-de.js…), `stale` has one from another build (a cached file of the
      // version before).
      const part = /^\/__test\/parts\/(same|slow|hang|cdn|missing|stale)\/(bioid-[\w-]+\.js)$/.exec(ctx.path);
      if (part) {
        const [, way, file] = part;
        const diagnostics = file === 'bioid-diagnostics.js';
        if (way === 'missing' && file !== 'bioid-elements.js') {
          ctx.status = 404;
          ctx.body = 'not found';
          return undefined;
        }
        if (way === 'stale' && diagnostics) {
          ctx.type = 'js';
          ctx.body = readFileSync('dist/bioid-diagnostics.js', 'utf8').replace(/"bioid-build:[0-9a-f]+"/g, '"bioid-build:000000000000"');
          return undefined;
        }
        if (way === 'hang' && diagnostics) {
          return new Promise((resolve) => ctx.res.once('close', resolve)).then(() => (ctx.status = 204));
        }
        if (way === 'cdn') ctx.set('Access-Control-Allow-Origin', '*');
        ctx.path = `/dist/${file}`;
        return way === 'slow' && diagnostics ? new Promise((resolve) => setTimeout(resolve, 300)).then(next) : next();
      }
      // A browser as old as the baseline lets it be (test/elements/old-browsers.browser.test.ts): the page script
      // test/elements/old-browser-page.js takes away what is newer, then the script loads.
      if (ctx.path === '/__test/old-browser') {
        ctx.type = 'html';
        ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<script src="/test/elements/old-browser-page.js"></script>
<script src="/dist/bioid-elements.js"></script>
</head><body></body></html>`;
        return undefined;
      }
      // A page of the script under a Content-Security-Policy header, as docs/cms.md shows it.
      if (ctx.path === '/__test/parts/page') {
        const way = ctx.query.way ?? 'same';
        // The page's language (en unless the test asks for de): a German page loads bioid-de.js.
        const lang = ctx.query.lang === 'de' ? 'de' : 'en';
        // <bio-diagnostics>' timeout-ms, when the test sets one.
        const timeout = ctx.query.timeout ? ` timeout-ms="${Number(ctx.query.timeout)}"` : '';
        // With a CMS's ?ver=, which the files it loads carry too.
        const script = `${way === 'cdn' ? secondOrigin : ''}/__test/parts/${way}/bioid-elements.js?ver=0.1.0`;
        const csp = {
          none: undefined,
          nonce: "script-src 'nonce-parts-n0nce' 'strict-dynamic'; object-src 'none'; base-uri 'none'",
          'nonce-only': "script-src 'nonce-parts-n0nce'; object-src 'none'",
          self: "script-src 'self'; object-src 'none'",
          'trusted-types': "script-src 'self'; require-trusted-types-for 'script'",
          cdn: `script-src 'self' ${secondOrigin}`,
        }[ctx.query.csp ?? 'none'];
        if (csp) ctx.set('Content-Security-Policy', csp);
        ctx.type = 'html';
        ctx.body = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8">
<script nonce="parts-n0nce" src="/test/elements/script-parts-page.js"></script>
<script nonce="parts-n0nce" src="${script}"></script>
</head><body>
<bio-reader-status local-service-url="/__test/none"></bio-reader-status>
<bio-diagnostics local-service-url="/__test/none" token-endpoint="/__test/none" middleware-url="/__test/none"${timeout}></bio-diagnostics>
</body></html>`;
        return undefined;
      }
      // The script where sites put it (test/elements/placement.browser.test.ts): /__test/placement/<placement> is a
      // page with every tag, the script in <head> (head), with defer or async, at the end of <body> (body-end), added by
      // another script after the markup as a tag manager does (injected), or with the tags inserted by script before
      // the script runs (inserted-before) or after (inserted-after: the test inserts them). Settings are page defaults
      // (test/elements/placement-page.js).
      const placed = /^\/__test\/placement\/(head|defer|async|body-end|injected|inserted-before|inserted-after)$/.exec(ctx.path);
      if (placed) {
        const [, placement] = placed;
        const script = (how = '') => `<script${how} src="/dist/bioid-elements.js"></script>`;
        const tags = `<bio-enroll subject-id="alice"></bio-enroll><bio-verify subject-id="alice"></bio-verify><bio-search></bio-search>
<bio-enrolled subject-id="alice"></bio-enrolled><bio-reader-status></bio-reader-status><bio-diagnostics></bio-diagnostics>`;
        const head = { head: script(), defer: script(' defer'), async: script(' async') }[placement] ?? '';
        const body =
          {
            'body-end': `${tags}${script()}`,
            injected: `${tags}<script>addScript()</script>`,
            'inserted-before': `<script>insertTags()</script>${script()}`,
            'inserted-after': script(),
          }[placement] ?? tags;
        ctx.type = 'html';
        ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<script src="/test/elements/placement-page.js"></script>
${head}
</head><body>
<template id="tags">${tags}</template>
${body}
</body></html>`;
        return undefined;
      }
      return next();
    },
  ],
  plugins: [
    {
      // The dev server binds every interface for "127.0.0.1"; tests here stay on loopback: rebind it to
      // 127.0.0.1 on the same port (nothing has connected yet), and start the second origin beside it.
      name: 'loopback-only',
      async serverStart({ server, app, config }) {
        await new Promise((resolve) => server.close(resolve));
        await listen(server, config.port);
        secondServer = createServer(app.callback());
        await listen(secondServer, 0);
        secondOrigin = `http://${LOOPBACK}:${secondServer.address().port}`;
      },
      async serverStop() {
        await new Promise((resolve) => (secondServer ? secondServer.close(resolve) : resolve()));
      },
    },
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }),
  ],
};
