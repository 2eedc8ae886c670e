import { assert } from 'chai';
import { readConfig } from '../../demo/config.js';
import { demoServerOptionsFor, startDemoServer, type RunningDemoServer } from '../../demo/server.js';
import { startSimulator, type RunningSimulator } from '../../simulator/src/simulator.js';
import { installFakeDate } from '../support/fake-clock.js';

const CLIENT = { clientId: 'srv-integrator', clientSecret: 'srv-secret-abcdef' };
const USER = { username: 'ada-l0velace', password: 'lovelace-1815' }; // a name no bundle or page text contains by chance

describe('demo app: session, session-gated broker, pages', () => {
  let sim: RunningSimulator;
  let demo: RunningDemoServer;
  before(async () => {
    sim = await startSimulator({ ...CLIENT, captureDelayMs: [0, 5] });
    demo = await startDemoServer(demoServerOptionsFor(sim, CLIENT, USER));
  });
  after(async () => {
    await demo?.close();
    await sim?.close();
  });

  const signIn = async (password = USER.password, next = '/plain') =>
    fetch(`${demo.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: demo.url },
      body: new URLSearchParams({ username: USER.username, password, next }),
    });
  const cookieOf = (reply: Response) => (reply.headers.get('set-cookie') ?? '').split(';')[0]!;

  it('a wrong password is 401 with no cookie; the right one sets an HttpOnly SameSite=Lax session cookie', async () => {
    const wrong = await signIn('nope');
    assert.strictEqual(wrong.status, 401);
    assert.strictEqual(wrong.headers.get('set-cookie'), null);
    const right = await signIn();
    assert.strictEqual(right.status, 303);
    assert.strictEqual(right.headers.get('location'), '/plain');
    const cookie = right.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^bioid_demo_session=[\w-]{40,};/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
  });

  it('sign-in never redirects off-site (open redirect)', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example', '/\\evil.example']) {
      assert.strictEqual((await signIn(USER.password, next)).headers.get('location'), '/');
    }
  });

  it("the sign-in page takes login-url's return_to when it is a page of this origin, and only then", async () => {
    const nextOf = async (returnTo: string) => {
      const page = await (await fetch(`${demo.url}/signin?return_to=${encodeURIComponent(returnTo)}`)).text();
      return /name="next" value="([^"]*)"/.exec(page)?.[1];
    };
    assert.strictEqual(await nextOf(`${demo.url}/form?x=1`), '/form?x=1');
    assert.strictEqual(await nextOf('https://evil.example/form'), '/');
    assert.strictEqual(await nextOf('not a url'), '/');
  });

  it('the sign-in page shows the credentials only when told to (the printed demo defaults), never a password that was set', async () => {
    const page = await (await fetch(`${demo.url}/signin`)).text();
    assert.notInclude(page, USER.password);
    const showing = await startDemoServer({ ...demoServerOptionsFor(sim, CLIENT, USER), showCredentials: true });
    try {
      const shown = await (await fetch(`${showing.url}/signin`)).text();
      assert.include(shown, `user name <strong>${USER.username}</strong>, password <strong>${USER.password}</strong>`);
    } finally {
      await showing.close();
    }
  });

  it('cross-site form posts are refused', async () => {
    const reply = await fetch(`${demo.url}/signin`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example' },
      body: new URLSearchParams({ username: USER.username, password: USER.password }),
    });
    assert.strictEqual(reply.status, 403);
  });

  it('the token endpoint is gated by the session: 401 without, a verifiable token with; sign-out ends it', async () => {
    assert.strictEqual((await fetch(`${demo.url}/token`, { headers: { 'X-CSRF': '1' } })).status, 401);
    const cookie = cookieOf(await signIn());
    const reply = await fetch(`${demo.url}/token`, { headers: { 'X-CSRF': '1', Cookie: cookie } });
    assert.strictEqual(reply.status, 200);
    const { access_token } = (await reply.json()) as { access_token: string };
    const records = await fetch(`${sim.middleware.url}/biometrics/x`, { headers: { Authorization: `Bearer ${access_token}` } });
    assert.strictEqual(records.status, 200, 'the middleware accepts the brokered token');

    await fetch(`${demo.url}/signout`, { method: 'POST', redirect: 'manual', headers: { Cookie: cookie, Origin: demo.url } });
    assert.strictEqual((await fetch(`${demo.url}/token`, { headers: { 'X-CSRF': '1', Cookie: cookie } })).status, 401);
  });

  it('pages need a session, send a CSP with script-src self, and load the bundle as a classic script', async () => {
    const anonymous = await fetch(`${demo.url}/form`, { redirect: 'manual' });
    assert.strictEqual(anonymous.status, 303);
    assert.strictEqual(anonymous.headers.get('location'), '/signin?next=%2Fform');
    const cookie = cookieOf(await signIn());
    for (const path of ['/', '/plain', '/jquery', '/form', '/kiosk/', '/diagnostics', '/embedded', '/embedded/frame']) {
      const page = await fetch(`${demo.url}${path}`, { headers: { Cookie: cookie } });
      assert.strictEqual(page.status, 200, path);
      const csp = page.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'( 'sha256-[\w+/=]+')?;/, path);
      assert.match(csp, new RegExp(`connect-src 'self' ${sim.middleware.url} ${sim.localService.url}`));
      const body = await page.text();
      assert.match(body, /<script src="\/bioid-elements.js" defer><\/script>/, path);
      assert.notMatch(body, new RegExp(CLIENT.clientSecret), 'the client secret never reaches a page');
    }
  });

  it('the embedded page delegates Local Network Access to its iframe, and only that frame may be framed, by this site alone', async () => {
    const cookie = cookieOf(await signIn());
    const outer = await fetch(`${demo.url}/embedded`, { headers: { Cookie: cookie } });
    assert.match(await outer.text(), /<iframe src="\/embedded\/frame" allow="loopback-network; local-network-access"/);
    assert.match(outer.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    const frame = await fetch(`${demo.url}/embedded/frame`, { headers: { Cookie: cookie } });
    assert.match(frame.headers.get('content-security-policy') ?? '', /frame-ancestors 'self'(;|$)/);
    assert.match(await frame.text(), /<bio-verify [^>]*local-service-url=/);
  });

  it('the kiosk worker script is served uncached with the offline page and the bundle in its precache list', async () => {
    const reply = await fetch(`${demo.url}/kiosk/sw.js`);
    assert.strictEqual(reply.headers.get('cache-control'), 'no-cache');
    assert.match(reply.headers.get('content-type') ?? '', /javascript/);
    const script = await reply.text();
    assert.match(script, /"precache":\["\/kiosk\/offline","\/bioid-elements.js"/);
    assert.notMatch(script, /\/token/);
    demo.bumpKioskVersion();
    assert.notStrictEqual(await (await fetch(`${demo.url}/kiosk/sw.js`)).text(), script);
  });

  it('the kiosk worker precaches nothing that holds user data (not the signed-in /kiosk/ page)', async () => {
    const script = await (await fetch(`${demo.url}/kiosk/sw.js`)).text();
    const config = JSON.parse(/\)\(self, (\{.*\})\);/.exec(script)![1]!) as { precache: string[]; shell: string };
    assert.notInclude(config.precache, '/kiosk/');
    assert.strictEqual(config.shell, '/kiosk/offline');
    // Fetched as the worker does at install: with the signed-in user's cookie.
    const cookie = cookieOf(await signIn());
    for (const path of config.precache) {
      const reply = await fetch(`${demo.url}${path}`, { headers: { Cookie: cookie }, redirect: 'manual' });
      assert.strictEqual(reply.status, 200, path);
      const body = await reply.text();
      assert.notInclude(body, USER.username, `${path} names the signed-in user`);
      assert.notMatch(body, /Signed in as <strong>|action="\/signout"/, path);
    }
    const offline = await (await fetch(`${demo.url}/kiosk/offline`)).text();
    assert.match(offline, /<h1>Kiosk<\/h1>/);
    assert.match(offline, /<bio-verify [^>]*workstation-id=/, 'the offline page still has the pinned elements');
  });

  it('the form refuses an empty, forged or malformed verification id (422)', async () => {
    const cookie = cookieOf(await signIn());
    for (const verification of ['', 'ver_forged', '../../etc']) {
      const reply = await fetch(`${demo.url}/form`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: demo.url },
        body: new URLSearchParams({ subject: 'alice', amount: '5', verification }),
      });
      assert.strictEqual(reply.status, 422, verification);
      assert.match(await reply.text(), /Refused: /);
    }
  });
});

describe('demo app: session habits', () => {
  let sim: RunningSimulator;
  let demo: RunningDemoServer;
  let proxied: RunningDemoServer;
  before(async () => {
    sim = await startSimulator({ ...CLIENT, captureDelayMs: [0, 5] });
    demo = await startDemoServer(demoServerOptionsFor(sim, CLIENT, USER));
    proxied = await startDemoServer({ ...demoServerOptionsFor(sim, CLIENT, USER), trustProxy: 'loopback' });
  });
  after(async () => {
    await proxied?.close();
    await demo?.close();
    await sim?.close();
  });

  const signIn = (
    server: RunningDemoServer,
    o: { password?: string; username?: string; cookie?: string; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${server.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: server.url,
        ...(o.cookie ? { Cookie: o.cookie } : {}),
        ...o.headers,
      },
      body: new URLSearchParams({ username: o.username ?? USER.username, password: o.password ?? USER.password, next: '/' }),
    });
  const cookieOf = (reply: Response) => (reply.headers.get('set-cookie') ?? '').split(';')[0]!;
  const tokenStatus = async (server: RunningDemoServer, cookie: string) =>
    (await fetch(`${server.url}/token`, { headers: { 'X-CSRF': '1', Cookie: cookie } })).status;

  it('the session cookie is Secure when the page was served over https (a trusted proxy says so), not over plain http', async () => {
    const plain = (await signIn(demo)).headers.get('set-cookie') ?? '';
    assert.notMatch(plain, /;\s*Secure/i, 'http://127.0.0.1: a Secure cookie would never be sent back');
    const https = (await signIn(proxied, { headers: { 'X-Forwarded-Proto': 'https' } })).headers.get('set-cookie') ?? '';
    assert.match(https, /;\s*Secure/i);
    assert.match(https, /HttpOnly/);
    // Without a trusted proxy the header proves nothing.
    assert.notMatch((await signIn(demo, { headers: { 'X-Forwarded-Proto': 'https' } })).headers.get('set-cookie') ?? '', /;\s*Secure/i);
    const signedOut = await fetch(`${proxied.url}/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Origin: proxied.url, 'X-Forwarded-Proto': 'https', Cookie: cookieOf(await signIn(proxied)) },
    });
    assert.match(signedOut.headers.get('set-cookie') ?? '', /Max-Age=0.*;\s*Secure/i);
  });

  it('sign-in always issues a new session id, and the one the browser held before stops working', async () => {
    const first = cookieOf(await signIn(demo));
    assert.strictEqual(await tokenStatus(demo, first), 200);
    const second = cookieOf(await signIn(demo, { cookie: first }));
    assert.notStrictEqual(second, first);
    assert.strictEqual(await tokenStatus(demo, first), 401, 'the earlier session id no longer works');
    assert.strictEqual(await tokenStatus(demo, second), 200);
  });

  it('after 5 failed sign-ins for a user from one address, every sign-in of that pair is refused with 429 for 15 minutes', async () => {
    const clock = installFakeDate();
    try {
      for (let i = 0; i < 5; i++) assert.strictEqual((await signIn(demo, { password: `guess-${i}` })).status, 401, `attempt ${i + 1}`);
      const blocked = await signIn(demo); // the right password too: guessing must not simply go on
      assert.strictEqual(blocked.status, 429);
      assert.strictEqual(blocked.headers.get('set-cookie'), null);
      assert.strictEqual(blocked.headers.get('retry-after'), '900');
      assert.match(await blocked.text(), /Too many failed sign-ins for this user from your address\. Try again in 15 minutes\./);
      // Another user name from the same address is counted apart (nobody locks a user out from elsewhere).
      assert.strictEqual((await signIn(demo, { username: 'someone-else', password: 'x' })).status, 401);
      clock.tick(14 * 60 * 1000);
      const later = await signIn(demo);
      assert.strictEqual(later.status, 429);
      assert.match(await later.text(), /Try again in 1 minute\./);
      clock.tick(60 * 1000);
      assert.strictEqual((await signIn(demo)).status, 303, 'the window is over');
      // A success starts the count again.
      for (let i = 0; i < 4; i++) await signIn(demo, { password: 'wrong' });
      assert.strictEqual((await signIn(demo)).status, 303);
      for (let i = 0; i < 4; i++) assert.strictEqual((await signIn(demo, { password: 'wrong' })).status, 401);
    } finally {
      clock.uninstall();
    }
  });
});

describe('demo configuration', () => {
  it('defaults, environment and flags (flags win); bad ports are named', () => {
    const defaults = readConfig([], {});
    assert.strictEqual(defaults.localServicePort, 18065);
    assert.strictEqual(defaults.clientId, 'demo-integrator');
    assert.ok(defaults.defaulted.has('clientSecret'));
    const configured = readConfig(['--port', '0', '--capture-delay-ms=5-1'], { BIOID_DEMO_PORT: '8080', BIOID_CLIENT_SECRET: 's3cret' });
    assert.strictEqual(configured.demoPort, 0);
    assert.deepStrictEqual(configured.captureDelayMs, [1, 5]);
    assert.strictEqual(configured.clientSecret, 's3cret');
    assert.ok(!configured.defaulted.has('clientSecret'));
    assert.throws(() => readConfig([], { BIOID_IDP_PORT: '70000' }), /BIOID_IDP_PORT \/ --idp-port must be a port number/);
    assert.throws(() => readConfig(['--nope', '1'], {}), /Unknown option --nope/);
    assert.strictEqual(defaults.trustProxy, undefined);
    assert.strictEqual(readConfig(['--trust-proxy', '1'], {}).trustProxy, 1);
    assert.strictEqual(readConfig([], { BIOID_DEMO_TRUST_PROXY: 'loopback' }).trustProxy, 'loopback');
  });
});
