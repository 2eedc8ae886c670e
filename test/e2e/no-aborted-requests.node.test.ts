/**
 * A request whose answer the SDK has read in full is never aborted afterwards: in Chromium's network log
 * (the DevTools protocol, as DevTools shows it) the status poll of the local service, the token fetch from
 * the broker and the operations' POSTs to the middleware end in loadingFinished, never in loadingFailed
 * with net::ERR_ABORTED. The demo's plain page against the simulator, through the built element bundle.
 */
import { assert } from 'chai';
import type { CDPSession, Page as PuppeteerPage } from 'puppeteer-core';
import { elementsReady, runOperation, startHarness, type DemoHarness } from './harness.js';

interface Loading {
  url: string;
  method: string;
  finished?: boolean;
  failed?: string;
  status?: number;
  log: string[];
}

describe('the SDK never aborts a request it has read (Chromium network log)', function () {
  this.timeout(120_000);
  let h: DemoHarness;
  before(async () => {
    h = await startHarness('chromium');
  });
  after(() => h?.close());

  it('the status poll, the token fetch and enroll/verify each end in loadingFinished, none in net::ERR_ABORTED', async () => {
    const { context, page } = await h.signedIn('/plain');
    try {
      const raw = (page as unknown as { page: PuppeteerPage }).page;
      const cdp: CDPSession = await raw.createCDPSession();
      const requests = new Map<string, Loading>();
      cdp.on('Network.requestWillBeSent', (e) => {
        if (!requests.has(e.requestId)) requests.set(e.requestId, { url: e.request.url, method: e.request.method, log: [] });
        requests.get(e.requestId)!.log.push(`sent ${e.timestamp}`);
      });
      cdp.on('Network.responseReceived', (e) => {
        const r = requests.get(e.requestId);
        if (r) r.status = e.response.status;
        r?.log.push(`response ${e.timestamp}`);
      });
      cdp.on('Network.dataReceived', (e) => requests.get(e.requestId)?.log.push(`data ${e.dataLength} ${e.timestamp}`));
      cdp.on('Network.loadingFinished', (e) => {
        const r = requests.get(e.requestId);
        if (r) r.finished = true;
        r?.log.push(`finished ${e.timestamp}`);
      });
      cdp.on('Network.loadingFailed', (e) => {
        const r = requests.get(e.requestId);
        if (r) r.failed = e.errorText;
        r?.log.push(`failed ${e.errorText} canceled=${e.canceled} ${e.timestamp}`);
      });
      await cdp.send('Network.enable');
      await raw.reload({ waitUntil: 'load' });
      await elementsReady(page);
      // A status poll of the page's watcher has ended, before any operation.
      for (const until = Date.now() + 10_000; ![...requests.values()].some((r) => /\/status$/.test(r.url) && (r.finished || r.failed));) {
        assert.isBelow(Date.now(), until, 'no status poll within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await page.fill('#subject', 'network-alice');
      await page.select('#sim-finger', 'finger-a');
      await page.waitForFunction(() => document.getElementById('sim-message')?.textContent?.includes('Finger A'));
      const enrolled = await runOperation(page, 'bio-enroll');
      assert.strictEqual(enrolled.type, 'bio-result', JSON.stringify(enrolled.detail));
      // Whether Chromium ends a drained body as aborted is a race (about half the time): several reads make it show.
      for (let i = 0; i < 3; i++) {
        const verified = await runOperation(page, 'bio-verify');
        assert.strictEqual(verified.type, 'bio-result', JSON.stringify(verified.detail));
        assert.strictEqual(verified.detail.result?.match, true);
      }
      // Whatever an abort after the read would do has happened by now.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await cdp.detach();

      // The SDK's requests: the local service (not the page's own /sim/ controls), the middleware, the broker.
      const ours = [...requests.values()].filter(
        (r) =>
          (r.url.startsWith(h.sim.localService.url) && !r.url.includes('/sim/')) ||
          r.url.startsWith(h.sim.middleware.url) ||
          r.url.startsWith(`${h.demo.url}/token`),
      );
      const aborted = ours
        .filter((r) => r.failed === 'net::ERR_ABORTED')
        .map((r) => `${r.method} ${r.url} (HTTP ${r.status}; ${r.log.join(', ')})`);
      assert.deepStrictEqual(aborted, [], 'requests that ended in net::ERR_ABORTED');
      const finished = (pattern: RegExp, method = 'GET') => ours.filter((r) => r.method === method && pattern.test(r.url) && r.finished);
      assert.isNotEmpty(finished(/\/status$/), 'a status poll of the local service finished');
      assert.isNotEmpty(finished(/\/token$/), 'a token fetch from the broker finished');
      assert.isNotEmpty(finished(/\/orchestrator\/verify$/, 'POST'), 'the verify POST finished');
    } finally {
      await context.close();
    }
  });
});
