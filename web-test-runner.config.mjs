// Browser tests in headless Chromium: runtime-neutral core tests (*.test.ts, also run in Node) and
// browser-only tests (*.browser.test.ts). Node-only tests (*.node.test.ts) are excluded.
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, chromiumPath } from './scripts/chromium.mjs';

const shims = {
  'node:test': '/test/support/browser/node-test.js',
  'node:assert/strict': '/test/support/browser/node-assert.js',
  'node:assert': '/test/support/browser/node-assert.js',
};

export default {
  files: ['test/**/*.test.ts', '!test/**/*.node.test.ts', '!node_modules/**'],
  nodeResolve: { exportConditions: ['browser', 'development'] },
  rootDir: fileURLToPath(new URL('.', import.meta.url)),
  concurrency: 1,
  testFramework: { config: { timeout: 10000 } },
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: chromiumPath(),
        args: CHROMIUM_ARGS,
      },
    }),
  ],
  middleware: [
    // A token endpoint that bounces to a login page on another origin, as a gateway in front of an
    // integrator's broker does when the session is gone (test/elements/broker-redirect.browser.test.ts).
    function loginRedirect(ctx, next) {
      if (ctx.path !== '/__test/token-behind-login') return next();
      const [, port] = ctx.host.split(':');
      const otherHost = ctx.hostname === '127.0.0.1' ? 'localhost' : '127.0.0.1';
      ctx.status = 302;
      ctx.set('Location', `http://${otherHost}:${port}/login?return=%2Ftoken`);
      return undefined;
    },
  ],
  plugins: [
    {
      // Lets one test file run under node:test in Node and under mocha in Chromium.
      name: 'node-test-shims',
      resolveImport({ source }) {
        return shims[source];
      },
    },
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: fileURLToPath(new URL('./tsconfig.json', import.meta.url)) }),
  ],
};
