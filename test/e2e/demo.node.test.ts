/**
 * The demo pages in real Chromium against the real IdP, broker, simulated middleware and workstation.
 * One browser for the whole file; each test gets its own context (cookies, caches, service workers).
 */
import { assert } from 'chai';
import { WORKSTATION_OFFLINE_TEXT } from '../../src/core/errors.js';
import { elementsReady, runOperation, startHarness, type DemoHarness } from './harness.js';

describe('demo pages in Chromium', function () {
  this.timeout(180_000);
  let h: DemoHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h?.close());

  it('sign-in gates the pages and the token broker (401 signed out, a token signed in)', async () => {
    const context = await h.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${h.demo.url}/plain`);
      assert.match(page.url(), /\/signin\?next=%2Fplain$/);
      const signedOut = await page.request.get(`${h.demo.url}/token`, { headers: { 'X-CSRF': '1' } });
      assert.strictEqual(signedOut.status(), 401);
      await page.fill('input[name=username]', 'tester');
      await page.fill('input[name=password]', 'wrong');
      await page.click('form.signin button[type=submit]');
      assert.match(await page.locator('[role=alert]').innerText(), /Wrong user name or password/);
      const cookies = await context.cookies();
      assert.strictEqual(cookies.length, 0);
    } finally {
      await context.close();
    }
    const { context: signed, page } = await h.signedIn('/plain');
    try {
      const [cookie] = await signed.cookies();
      assert.strictEqual(cookie?.httpOnly, true);
      assert.strictEqual(cookie?.sameSite, 'Lax');
      const token = await page.request.get(`${h.demo.url}/token`, { headers: { 'X-CSRF': '1' } });
      assert.strictEqual(token.status(), 200);
      assert.strictEqual(token.headers()['cache-control'], 'no-store');
      const noCsrf = await page.request.get(`${h.demo.url}/token`);
      assert.strictEqual(noCsrf.status(), 403);
    } finally {
      await signed.close();
    }
  });

  it('plain page: enroll, verify match and non-match, search finds the subject, test capture image', async () => {
    const { context, page } = await h.signedIn('/plain');
    try {
      await elementsReady(page);
      await page.fill('#subject', 'plain-alice');
      await page.selectOption('#sim-finger', 'finger-a'); // the page's own simulator control
      await page.waitForFunction(() => document.getElementById('sim-message')?.textContent?.includes('Finger A'));

      const enrolled = await runOperation(page, 'bio-enroll');
      assert.strictEqual(enrolled.type, 'bio-result', JSON.stringify(enrolled.detail));
      assert.strictEqual(enrolled.detail.result?.subjectId, 'plain-alice');
      assert.strictEqual(enrolled.detail.workstationId, h.sim.workstationId);

      const match = await runOperation(page, 'bio-verify');
      assert.strictEqual(match.type, 'bio-result', JSON.stringify(match.detail));
      assert.strictEqual(match.detail.result?.match, true);

      await h.control('finger', { finger: 'finger-b' });
      const noMatch = await runOperation(page, 'bio-verify');
      assert.strictEqual(noMatch.type, 'bio-result');
      assert.strictEqual(noMatch.detail.result?.match, false);

      await h.control('finger', { finger: 'finger-a' });
      const search = await runOperation(page, 'bio-search');
      assert.strictEqual(search.type, 'bio-result');
      const candidates = search.detail.result?.candidates as Array<{ subjectId: string }>;
      assert.strictEqual(candidates[0]?.subjectId, 'plain-alice');

      const log = await page.locator('#event-log').innerText();
      assert.match(log, /bio-verify bio-result/);
      assert.notMatch(log, /eyJ[\w-]+\./, 'no token in the event log');

      await page.click('#sim-test-capture');
      await page.waitForSelector('#sim-capture:not([hidden])');
      assert.match((await page.getAttribute('#sim-capture-image', 'src')) ?? '', /^data:image\/svg\+xml;base64,/);
      assert.match(await page.locator('#sim-capture-quality').innerText(), /Quality 92/);
    } finally {
      await context.close();
    }
  });

  it('workstation offline: the element reports "Target workstation is not currently live."', async () => {
    const { context, page } = await h.signedIn('/plain');
    try {
      await elementsReady(page);
      await page.fill('#subject', 'offline-bob');
      await page.uncheck('#sim-online');
      await page.waitForFunction(() => document.getElementById('sim-message')?.textContent === 'Workstation offline.');
      const outcome = await runOperation(page, 'bio-enroll');
      assert.strictEqual(outcome.type, 'bio-error');
      assert.strictEqual(outcome.detail.code, 'workstation-offline');
      assert.match(String(outcome.detail.message), new RegExp(WORKSTATION_OFFLINE_TEXT.replace('.', '\\.')));
      assert.match(await page.locator('bio-enroll').evaluate((el) => el.shadowRoot!.textContent ?? ''), /not currently live/);
    } finally {
      await h.control('workstation', { online: true });
      await context.close();
    }
  });

  it('unplugged reader: discovery reports no connected device', async () => {
    const { context, page } = await h.signedIn('/plain');
    try {
      await elementsReady(page);
      await page.uncheck('#sim-device');
      await page.waitForFunction(() => document.getElementById('sim-message')?.textContent === 'Reader unplugged.');
      const outcome = await runOperation(page, 'bio-search');
      assert.strictEqual(outcome.type, 'bio-error');
      assert.strictEqual(outcome.detail.code, 'no-device');
      assert.match(String(outcome.detail.message), /No fingerprint reader is connected/);
    } finally {
      await h.control('device', { connected: true });
      await context.close();
    }
  });

  it('jQuery page: a delegated $(document).on("bio-result", "bio-verify") handler sees the result', async () => {
    const { context, page } = await h.signedIn('/jquery');
    try {
      await elementsReady(page);
      await page.waitForFunction(() => typeof (window as unknown as { jQuery?: unknown }).jQuery === 'function');
      await page.fill('#subject', 'jq-carol');
      await h.control('finger', { finger: 'finger-c' });
      assert.strictEqual((await runOperation(page, 'bio-enroll')).type, 'bio-result');
      assert.strictEqual((await runOperation(page, 'bio-verify')).type, 'bio-result');
      await page.waitForFunction(() => document.getElementById('jquery-verdict')?.textContent?.includes('Match'));
      assert.match(await page.locator('#jquery-verdict').innerText(), /jQuery saw bio-result from bio-verify: Match for jq-carol/);
      assert.strictEqual(await page.locator('#jquery-results tr').count(), 2);
    } finally {
      await context.close();
    }
  });

  it('server-rendered form: required blocks submission; the server confirms the verification id; a forged id is refused', async () => {
    const { context, page } = await h.signedIn('/form');
    try {
      await elementsReady(page);
      await page.fill('#subject', 'form-dave');
      await h.control('finger', { finger: 'finger-d' });
      // Enroll through the plain page's sibling API: the form page has only bio-verify.
      const enroll = await fetch(`${h.sim.middleware.url}/orchestrator/enroll`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${await (await page.request.get(`${h.demo.url}/token`, { headers: { 'X-CSRF': '1' } })).json().then((b: { access_token: string }) => b.access_token)}`,
          'X-Integrator-Id': 'e2e-integrator',
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ workstationId: h.sim.workstationId, deviceId: h.sim.deviceId, subjectId: 'form-dave' }),
      });
      assert.strictEqual(enroll.status, 200);

      assert.strictEqual(await page.locator('#approval-form').evaluate((f) => (f as HTMLFormElement).checkValidity()), false);
      const verified = await runOperation(page, 'bio-verify');
      assert.strictEqual(verified.detail.result?.match, true, JSON.stringify(verified.detail));
      assert.strictEqual(await page.locator('#approval-form').evaluate((f) => (f as HTMLFormElement).checkValidity()), true);
      await Promise.all([page.waitForURL(`${h.demo.url}/form`), page.click('#form-submit')]);
      const accepted = await page.locator('#form-outcome').innerText();
      assert.match(accepted, /^Accepted: .*form-dave.*confirmed by the middleware/);
      assert.ok(accepted.includes(String(verified.detail.result?.verificationId)));

      // Replaying the same id, or a made-up one, is refused by the server.
      for (const verification of [String(verified.detail.result?.verificationId), 'ver_forged']) {
        const reply = await page.request.post(`${h.demo.url}/form`, {
          form: { subject: 'form-dave', amount: '1', verification },
          headers: { Origin: h.demo.url },
        });
        assert.strictEqual(reply.status(), 422);
        assert.match(await reply.text(), /Refused: /);
      }
    } finally {
      await context.close();
    }
  });

  it('kiosk: pinned (no /status polling), service worker registered, bundle precached, /token and API replies never cached, update banner', async () => {
    const { context, page } = await h.signedIn('/kiosk/');
    const statusCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${h.sim.localService.url}/status`)) statusCalls.push(request.url());
    });
    try {
      await elementsReady(page);
      await page.waitForSelector('#sw-state[data-state="registered"]');
      await page.evaluate(() => navigator.serviceWorker.ready);
      // Reload so the page is controlled by the worker, then run operations through it.
      await page.reload();
      await elementsReady(page);
      assert.strictEqual(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)), true);
      await page.fill('#subject', 'kiosk-erin');
      await h.control('finger', { finger: 'finger-a' });
      assert.strictEqual((await runOperation(page, 'bio-enroll')).type, 'bio-result');
      const verify = await runOperation(page, 'bio-verify');
      assert.strictEqual(verify.detail.result?.match, true);
      assert.strictEqual(verify.detail.deviceId, h.sim.deviceId);

      const cached = await page.evaluate(async () => {
        const urls: string[] = [];
        for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
        return urls;
      });
      const paths = cached.map((u) => new URL(u).pathname);
      assert.ok(paths.includes('/bioid-elements.js'), `bundle precached: ${paths.join(', ')}`);
      assert.ok(paths.includes('/kiosk/'), 'page shell precached');
      assert.ok(!paths.includes('/token'), '/token is never cached');
      assert.ok(!cached.some((u) => u.startsWith(h.sim.middleware.url) || u.startsWith(h.sim.localService.url)), 'no API reply cached');
      assert.deepStrictEqual(statusCalls, [], 'a pinned kiosk never calls the local service /status');

      // Pinned is not a no-hardware mode: an unplugged reader is reported by the middleware.
      await h.control('device', { connected: false });
      const unplugged = await runOperation(page, 'bio-verify');
      await h.control('device', { connected: true });
      assert.strictEqual(unplugged.type, 'bio-error');
      assert.strictEqual(unplugged.detail.status, 409);
      assert.match(String(unplugged.detail.message), /unplugged/);

      // A flaky network: the page shell and the bundle still load from the worker's precache.
      await context.setOffline(true);
      await page.reload();
      await page.waitForFunction(() => Boolean(customElements.get('bio-verify')));
      assert.strictEqual(await page.locator('h1').innerText(), 'Kiosk');
      await context.setOffline(false);
      await page.reload();
      await elementsReady(page);

      // A new deployment: the worker changes, the page offers a reload.
      h.demo.bumpKioskVersion();
      await page.evaluate(() => (window as unknown as { bioidKiosk: { update(): Promise<void> } }).bioidKiosk.update());
      const banner = page.locator('[data-bioid-update-banner]');
      await banner.waitFor({ timeout: 10_000 });
      assert.match(await banner.innerText(), /A new version is available — ?Reload/);
      await Promise.all([page.waitForEvent('load'), banner.locator('button').click()]);
      await elementsReady(page);
      assert.strictEqual(await page.locator('[data-bioid-update-banner]').count(), 0);
    } finally {
      await context.close();
    }
  });

  it('no demo page violated its Content-Security-Policy (script-src \'self\', style-src \'self\')', () => {
    assert.deepStrictEqual(h.cspViolations, []);
  });
});
