/**
 * The demo pages in Chromium, Firefox and WebKit against the real IdP, broker, simulated middleware and
 * workstation. One browser per engine; each test gets its own context (cookies, caches, service workers).
 */
import { assert } from 'chai';
import { WORKSTATION_OFFLINE_TEXT } from '../../src/core/errors.js';
import { ENGINE_NAMES, selectedEngines } from '../support/engines.js';
import { elementsReady, requestsTo, runOperation, startHarness, USER, type DemoHarness } from './harness.js';

for (const engine of selectedEngines())
  describe(`demo pages in ${ENGINE_NAMES[engine]}`, function () {
    this.timeout(240_000);
    let h: DemoHarness;
    before(async () => {
      h = await startHarness(engine);
    });
    after(() => h?.close());

    it('sign-in gates the pages and the token broker (401 signed out, a token signed in)', async () => {
      const context = await h.browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${h.demo.url}/plain`);
        assert.match(await page.url(), /\/signin\?next=%2Fplain$/);
        const signedOut = await h.request(context, '/token', { headers: { 'X-CSRF': '1' } });
        assert.strictEqual(signedOut.status, 401);
        await page.fill('input[name=username]', 'tester');
        await page.fill('input[name=password]', 'wrong');
        await page.clickAndWaitForLoad('form.signin button[type=submit]');
        assert.match(await page.text('[role=alert]'), /Wrong user name or password/);
        const cookies = await context.cookies(h.demo.url);
        assert.strictEqual(cookies.length, 0);
      } finally {
        await context.close();
      }
      const { context: signed, page } = await h.signedIn('/plain');
      try {
        assert.match(await page.text('h1'), /./, 'the page itself loaded');
        const [cookie] = await signed.cookies(h.demo.url);
        assert.strictEqual(cookie?.httpOnly, true);
        assert.strictEqual(cookie?.sameSite, 'Lax');
        const token = await h.request(signed, '/token', { headers: { 'X-CSRF': '1' } });
        assert.strictEqual(token.status, 200);
        assert.strictEqual(token.headers.get('cache-control'), 'no-store');
        const noCsrf = await h.request(signed, '/token');
        assert.strictEqual(noCsrf.status, 403);
      } finally {
        await signed.close();
      }
    });

    it('plain page: enroll, verify match and non-match, search finds the subject, test capture image', async () => {
      const { context, page } = await h.signedIn('/plain');
      try {
        await elementsReady(page);
        await page.fill('#subject', 'plain-alice');
        await page.select('#sim-finger', 'finger-a'); // the page's own simulator control
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

        const log = await page.text('#event-log');
        assert.match(log, /bio-verify bio-result/);
        assert.notMatch(log, /eyJ[\w-]+\./, 'no token in the event log');

        await page.click('#sim-test-capture');
        await page.waitForSelector('#sim-capture:not([hidden])');
        assert.match((await page.attribute('#sim-capture-image', 'src')) ?? '', /^data:image\/svg\+xml;base64,/);
        assert.match(await page.text('#sim-capture-quality'), /Quality 92/);
      } finally {
        await context.close();
      }
    });

    it('the diagnostics page: every row ok against the simulator, the capture image shown, a report without the token', async () => {
      const { context, page } = await h.signedIn('/diagnostics');
      try {
        await elementsReady(page);
        const report = (await page.evaluate(() => document.querySelector('bio-diagnostics')!.start())) as string;
        assert.match(report, new RegExp(`^local-service: ok ${h.sim.workstationId}: ${h.sim.deviceId}`, 'm'));
        assert.match(report, /^test-capture: ok quality \d+$/m);
        assert.match(report, /^token-broker: ok$/m);
        assert.match(report, /^middleware: ok reachable \(HTTP 401 without a token\)$/m);
        assert.match((await page.attribute('bio-diagnostics >>> img[part="image"]', 'src')) ?? '', /^data:image\//);
        const token = ((await (await h.request(context, '/token', { headers: { 'X-CSRF': '1' } })).json()) as { access_token: string })
          .access_token;
        assert.notInclude(report, token);
        assert.notInclude(await page.evaluate(() => document.querySelector('bio-diagnostics')!.shadowRoot!.innerHTML), token);
      } finally {
        await context.close();
      }
    });

    it('embedded page: the elements in an iframe (allow="loopback-network; local-network-access") find the reader and verify', async () => {
      const { context, page } = await h.signedIn('/embedded');
      try {
        const inFrame = (selector: string) => `document.querySelector('iframe')?.contentDocument?.querySelector('${selector}')`;
        await page.waitForFunction(`() => ${inFrame('bio-reader-status')}?.status?.state === 'ready'`);
        const outcome = await page.evaluate(`() => ${inFrame('bio-verify')}.start().then((r) => JSON.stringify(r), (e) => e.code)`);
        // Signed in through the frame's own cookie, the workstation found by the frame's status watch: the
        // middleware answers for alice (not enrolled here unless another test enrolled her).
        assert.ok(
          outcome === 'not-found' || (JSON.parse(String(outcome)) as { subjectId?: string }).subjectId === 'alice',
          String(outcome),
        );
        assert.strictEqual(
          await page.evaluate(() => document.querySelector('iframe')!.getAttribute('allow')),
          'loopback-network; local-network-access',
        );
        // The frame is as tall as its page, whatever the verify left on the card: nothing clipped, no
        // scroll bar, no gap (demo/public/frame-height.js and embedded.js).
        await page.waitForFunction(() => {
          const frame = document.querySelector('iframe')!;
          const { body, documentElement } = frame.contentDocument!;
          const content = body.getBoundingClientRect().bottom + parseFloat(getComputedStyle(body).marginBottom);
          return documentElement.scrollHeight <= documentElement.clientHeight && Math.abs(documentElement.clientHeight - content) <= 1;
        });
      } finally {
        await context.close();
      }
    });

    it('workstation offline: the element reports "Target workstation is not currently live." to the page, says it in words, and clears once the workstation is online again', async () => {
      const { context, page } = await h.signedIn('/plain');
      try {
        await elementsReady(page);
        await page.fill('#subject', 'offline-bob');
        await page.setChecked('#sim-online', false);
        await page.waitForFunction(() => document.getElementById('sim-message')?.textContent === 'Workstation offline.');
        const outcome = await runOperation(page, 'bio-enroll');
        assert.strictEqual(outcome.type, 'bio-error');
        assert.strictEqual(outcome.detail.code, 'workstation-offline');
        assert.match(String(outcome.detail.message), new RegExp(WORKSTATION_OFFLINE_TEXT.replace('.', '\\.')));
        const card = () => page.evaluate(() => document.querySelector('bio-enroll')!.shadowRoot!.textContent ?? '');
        assert.match(await card(), /Workstation offline/);
        assert.notMatch(await card(), /not currently live/);
        // The cause goes away: the middleware's liveness call says so, and the card clears by itself.
        await page.setChecked('#sim-online', true);
        // A bound, not a pace: the element asks every 5 s (src/elements/base/operation-element.ts), two asks and their answers.
        await page.waitForFunction(() => !document.querySelector('bio-enroll')!.shadowRoot!.querySelector('[part="error"]'), undefined, {
          timeout: 20_000,
        });
      } finally {
        await h.control('workstation', { online: true });
        await context.close();
      }
    });

    it('unplugged reader: discovery reports no connected device, and the card clears once the reader is plugged back in', async () => {
      const { context, page } = await h.signedIn('/plain');
      try {
        await elementsReady(page);
        await page.setChecked('#sim-device', false);
        await page.waitForFunction(() => document.getElementById('sim-message')?.textContent === 'Reader unplugged.');
        // The page's status watch is the discovery (spec 9.2): once it has heard the unplug, the operation
        // dispatches nowhere and says why (before that, it would dispatch to the reader it last heard).
        await page.waitForFunction(
          () => !!document.querySelector('bio-reader-status')?.shadowRoot?.querySelector('[part="indicator"].no-device'),
        );
        const outcome = await runOperation(page, 'bio-search');
        assert.strictEqual(outcome.type, 'bio-error');
        assert.strictEqual(outcome.detail.code, 'no-device');
        assert.match(String(outcome.detail.message), /No fingerprint reader is connected/);
        await page.setChecked('#sim-device', true);
        // A bound, not a pace: the status watch polls every 3 s, and needs two polls (not ready, then ready).
        await page.waitForFunction(() => !document.querySelector('bio-search')!.shadowRoot!.querySelector('[part="error"]'), undefined, {
          timeout: 20_000,
        });
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
        assert.match(await page.text('#jquery-verdict'), /jQuery saw bio-result from bio-verify: Match for jq-carol/);
        assert.strictEqual(await page.count('#jquery-results tr'), 2);
      } finally {
        await context.close();
      }
    });

    it('server-rendered form: required blocks submission; the server confirms the verification id of the signed-in user; a replayed or forged id is refused', async () => {
      const { context, page } = await h.signedIn('/form');
      const subject = USER.username; // the form verifies the signed-in user's own subject
      try {
        await elementsReady(page);
        assert.strictEqual(await page.attribute('#approval-form bio-verify', 'subject-id'), subject);
        await h.control('finger', { finger: 'finger-d' });
        // Enroll through the plain page's sibling API: the form page has only bio-verify.
        const enroll = await fetch(`${h.sim.middleware.url}/orchestrator/enroll`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${await (await h.request(context, '/token', { headers: { 'X-CSRF': '1' } })).json().then((b: { access_token: string }) => b.access_token)}`,
            'X-Integrator-Id': 'e2e-integrator',
            'Content-Type': 'application/json',
          },
          body: JSON.stringify({ workstationId: h.sim.workstationId, deviceId: h.sim.deviceId, subjectId: subject }),
        });
        assert.strictEqual(enroll.status, 200);

        const formValid = () => page.evaluate(() => (document.getElementById('approval-form') as HTMLFormElement).checkValidity());
        assert.strictEqual(await formValid(), false);
        const verified = await runOperation(page, '#approval-form bio-verify');
        assert.strictEqual(verified.detail.result?.match, true, JSON.stringify(verified.detail));
        assert.strictEqual(await formValid(), true);
        await page.clickAndWaitForLoad('#form-submit');
        assert.strictEqual(await page.url(), `${h.demo.url}/form`);
        const accepted = await page.text('#form-outcome');
        assert.match(accepted, new RegExp(`^Accepted: .*"${subject}".*confirmed by the middleware`));
        assert.ok(accepted.includes(String(verified.detail.result?.verificationId)));

        // Replaying the same id, or a made-up one, is refused by the server.
        for (const verification of [String(verified.detail.result?.verificationId), 'ver_forged']) {
          const reply = await h.request(context, '/form', {
            method: 'POST',
            body: new URLSearchParams({ amount: '1', verification }),
            headers: { Origin: h.demo.url },
          });
          assert.strictEqual(reply.status, 422);
          assert.match(await reply.text(), /Refused: /);
        }
      } finally {
        await context.close();
      }
    });

    it('kiosk: pinned (no /status polling), service worker registered, bundle precached, /token and API replies never cached, update banner', async () => {
      const { context, page } = await h.signedIn('/kiosk/');
      const statusPrefix = `${h.sim.localService.url}/status`;
      const statusCalls: string[] = [];
      const registered = async () => {
        await elementsReady(page);
        await page.waitForSelector('#sw-state[data-state="registered"]');
      };
      try {
        await registered();
        await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
        statusCalls.push(...(await requestsTo(page, statusPrefix)));
        // Reload so the page is controlled by the worker, then run operations through it.
        await page.reload();
        await registered();
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
        assert.ok(paths.includes('/kiosk/offline'), 'the offline page precached');
        assert.ok(!paths.includes('/kiosk/'), 'the signed-in page is never cached');
        assert.ok(!paths.includes('/token'), '/token is never cached');
        assert.ok(!cached.some((u) => u.startsWith(h.sim.middleware.url) || u.startsWith(h.sim.localService.url)), 'no API reply cached');
        statusCalls.push(...(await requestsTo(page, statusPrefix)));
        assert.deepStrictEqual(statusCalls, [], 'a pinned kiosk never calls the local service /status');

        // Pinned is not a no-hardware mode: an unplugged reader is reported by the middleware.
        await h.control('device', { connected: false });
        const unplugged = await runOperation(page, 'bio-verify');
        await h.control('device', { connected: true });
        assert.strictEqual(unplugged.type, 'bio-error');
        assert.strictEqual(unplugged.detail.status, 409);
        assert.match(String(unplugged.detail.message), /unplugged/);

        // A flaky network (the demo server refuses every connection): the offline page and the bundle still
        // load from the worker's precache; the offline page names nobody.
        h.demo.setOffline(true);
        try {
          await page.reload();
          await page.waitForFunction(() => Boolean(customElements.get('bio-verify')));
          assert.strictEqual(await page.text('h1'), 'Kiosk');
          assert.match(await page.text('#kiosk-offline'), /Offline copy/);
          assert.notInclude(await page.evaluate(() => document.body.textContent ?? ''), USER.username);
        } finally {
          h.demo.setOffline(false);
        }
        await page.reload();
        await registered();

        // A new deployment: the worker changes, the page offers a reload.
        h.demo.bumpKioskVersion();
        await page.evaluate(() => (window as unknown as { bioidKiosk: { update(): Promise<void> } }).bioidKiosk.update().then(() => true));
        await page.waitForSelector('[data-bioid-update-banner]', { timeout: 10_000 });
        assert.match(await page.text('[data-bioid-update-banner]'), /A new version is available — ?Reload/);
        await page.clickAndWaitForLoad('[data-bioid-update-banner] button');
        await elementsReady(page);
        assert.strictEqual(await page.count('[data-bioid-update-banner]'), 0);
      } finally {
        await context.close();
      }
    });

    it('after sign-out the kiosk caches are cleared, and offline the signed-in kiosk page is not shown', async () => {
      const { context, page } = await h.signedIn('/kiosk/');
      try {
        await elementsReady(page);
        await page.waitForSelector('#sw-state[data-state="registered"]');
        await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
        await page.reload(); // controlled by the worker from now on
        await page.waitForSelector('#sw-state[data-state="registered"]');
        assert.match(await page.text('form.signout'), new RegExp(`Signed in as ${USER.username}`));
        const kioskCaches = () => page.evaluate(() => caches.keys().then((names) => names.filter((n) => n.startsWith('bioid-kiosk-'))));
        assert.strictEqual((await kioskCaches()).length, 1);

        await page.clickAndWaitForLoad('form.signout button[type=submit]');
        assert.match(await page.url(), /\/signin$/);
        assert.deepStrictEqual(await kioskCaches(), [], 'sign-out cleared the kiosk caches');

        h.demo.setOffline(true);
        let shown = '';
        try {
          await page.goto(`${h.demo.url}/kiosk/`);
          shown = await page.evaluate(() => document.body?.textContent ?? '');
        } catch {
          // a network error page: nothing of the signed-in page was shown
        } finally {
          h.demo.setOffline(false);
        }
        assert.notInclude(shown, 'Signed in as');
        assert.notInclude(shown, USER.username);
      } finally {
        h.demo.setOffline(false);
        await context.close();
      }
    });

    it("sign-out clears the page's broker tokens (clearBrokerTokens), so a restored page cannot reuse them", async () => {
      const { context, page } = await h.signedIn('/plain');
      try {
        await elementsReady(page);
        await h.control('finger', { finger: 'finger-a' });
        const tokenCalls = async () => (await requestsTo(page, `${h.demo.url}/token`)).length;
        await runOperation(page, 'bio-search');
        await runOperation(page, 'bio-search');
        assert.strictEqual(await tokenCalls(), 1, 'the token is cached page-wide');
        // Sign out, but keep this document (as the back/forward cache would): the test cancels the navigation
        // after the page's own submit handlers ran.
        await page.evaluate(() => {
          const form = document.querySelector<HTMLFormElement>('form.signout')!;
          form.addEventListener('submit', (event) => event.preventDefault());
          form.requestSubmit();
        });
        await runOperation(page, 'bio-search');
        assert.strictEqual(await tokenCalls(), 2, 'the next operation asked the broker again');
      } finally {
        await context.close();
      }
    });

    it("no demo page violated its Content-Security-Policy (script-src 'self', style-src 'self')", async () => {
      await new Promise((r) => setTimeout(r, 300)); // reports are sent asynchronously
      assert.deepStrictEqual(h.cspViolations(), []);
    });
  });
