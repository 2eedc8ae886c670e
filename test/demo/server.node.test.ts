import { assert } from 'chai';
import { readConfig } from '../../demo/config.js';
import { demoServerOptionsFor, startDemoServer, type RunningDemoServer } from '../../demo/server.js';
import { startSimulator, type RunningSimulator } from '../../simulator/src/simulator.js';

const CLIENT = { clientId: 'srv-integrator', clientSecret: 'srv-secret-abcdef' };
const USER = { username: 'ada', password: 'lovelace-1815' };

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

  it('issue 14 item 4: the sign-in page takes login-url\'s return_to when it is a page of this origin, and only then', async () => {
    const nextOf = async (returnTo: string) => {
      const page = await (await fetch(`${demo.url}/signin?return_to=${encodeURIComponent(returnTo)}`)).text();
      return /name="next" value="([^"]*)"/.exec(page)?.[1];
    };
    assert.strictEqual(await nextOf(`${demo.url}/form?x=1`), '/form?x=1');
    assert.strictEqual(await nextOf('https://evil.example/form'), '/');
    assert.strictEqual(await nextOf('not a url'), '/');
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
    for (const path of ['/', '/plain', '/jquery', '/form', '/kiosk/', '/diagnostics']) {
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

  it('the kiosk worker script is served uncached with the bundle and shell in its precache list', async () => {
    const reply = await fetch(`${demo.url}/kiosk/sw.js`);
    assert.strictEqual(reply.headers.get('cache-control'), 'no-cache');
    assert.match(reply.headers.get('content-type') ?? '', /javascript/);
    const script = await reply.text();
    assert.match(script, /"precache":\["\/kiosk\/","\/bioid-elements.js"/);
    assert.notMatch(script, /\/token/);
    demo.bumpKioskVersion();
    assert.notStrictEqual(await (await fetch(`${demo.url}/kiosk/sw.js`)).text(), script);
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
  });
});
