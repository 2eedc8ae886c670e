// Browser tests in Chromium, Firefox and WebKit (scripts/wtr-engines.mjs; BIOID_ENGINES narrows them): runtime-neutral core tests (*.test.ts, also run in Node) and
// browser-only tests (*.browser.test.ts). Node-only tests (*.node.test.ts) are excluded.
// Every test file uses mocha's globals (describe, it, before, after…); runtime-neutral tests import
// chai's assert from 'chai', browser-only tests use @open-wc/testing (chai's expect/assert, fixture).
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { selectedEngines } from './scripts/engines.mjs';
import { engineLauncher } from './scripts/wtr-engines.mjs';

const LOOPBACK = '127.0.0.1';

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
  files: ['test/**/*.test.ts', '!test/**/*.node.test.ts', '!node_modules/**'],
  nodeResolve: { exportConditions: ['browser', 'development'] },
  rootDir: fileURLToPath(new URL('.', import.meta.url)),
  hostname: LOOPBACK,
  concurrency: 1,
  // The three engines side by side: with two at a time WebKit ran alone after Firefox, a third of the run
  // on one engine; its 200-run fuzz tests pass beside the other two.
  concurrentBrowsers: 3,
  testFramework: { config: { timeout: 10000 } },
  browsers: selectedEngines().map(engineLauncher),
  middleware: [
    function testRoutes(ctx, next) {
      // Where the second origin is (test/core/local-service-cors.browser.test.ts).
      if (ctx.path === '/__test/second-origin') {
        ctx.body = { origin: secondOrigin };
        return undefined;
      }
      // A token endpoint that bounces to a login page on another origin, as a gateway in front of an
      // integrator's broker does when the session is gone (test/elements/broker-redirect.browser.test.ts).
      if (ctx.path === '/__test/token-behind-login') {
        ctx.status = 302;
        ctx.set('Location', `${secondOrigin}/login?return=%2Ftoken`);
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
