/**
 * The development token broker of bioid-simulator (docs/simulator.md: a dev sign-in cookie and /token, so the
 * script-tag quick start runs against the simulator alone): bioid-sdk's broker behind a development
 * session, open to loopback pages only, against the simulator's real IdP.
 */
import { assert } from 'chai';
import { jwtVerify, createRemoteJWKSet } from 'jose';
import { startDevBroker, type RunningDevBroker } from '../../simulator/src/dev-broker.js';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';

const CLIENT = { clientId: 'dev-integrator', clientSecret: 'dev-secret-0123456789' };
const MIDDLEWARE = 'http://127.0.0.1:9';
const PAGE = 'http://127.0.0.1:8080';

describe('simulator: development token broker', () => {
  let idp: RunningIdp;
  let broker: RunningDevBroker;
  before(async () => {
    idp = await startIdp({ clients: [CLIENT], realm: 'dev' });
    broker = await startDevBroker({ issuerUrl: idp.baseUrl, realm: idp.realm, ...CLIENT, middlewareUrl: MIDDLEWARE });
  });
  after(async () => {
    await broker?.close();
    await idp?.close();
  });

  const signIn = async (query = '') => {
    const reply = await fetch(`${broker.signInUrl}${query}`, { redirect: 'manual' });
    return { reply, cookie: (reply.headers.get('set-cookie') ?? '').split(';')[0]! };
  };
  const token = (headers: Record<string, string>) => fetch(broker.tokenEndpoint, { headers });

  it('/token is gated by the dev sign-in: 401 without it, 403 without X-CSRF, with it a token that names its middleware', async () => {
    assert.strictEqual((await token({ 'X-CSRF': '1' })).status, 401);
    assert.strictEqual((await token({ 'X-CSRF': '1', Cookie: 'bioid_simulator_session=forged' })).status, 401);
    const { cookie } = await signIn();
    assert.strictEqual((await token({ Cookie: cookie })).status, 403, 'the anti-CSRF header is required, as in production');
    const reply = await token({ 'X-CSRF': '1', Cookie: cookie });
    assert.strictEqual(reply.status, 200);
    assert.strictEqual(reply.headers.get('cache-control'), 'no-store');
    const body = (await reply.json()) as { access_token: string; expires_in: number; middleware_url: string };
    assert.strictEqual(body.middleware_url, MIDDLEWARE);
    assert.isAbove(body.expires_in, 0);
    const { payload } = await jwtVerify(body.access_token, createRemoteJWKSet(new URL(idp.jwksUri)), {
      issuer: idp.issuer,
      audience: idp.audience,
    });
    assert.strictEqual(payload.azp, CLIENT.clientId);
  });

  it('the session cookie is random, HttpOnly and SameSite=Lax, without Secure (plain http); /signout ends the session', async () => {
    const { reply, cookie } = await signIn();
    assert.strictEqual(reply.status, 200);
    const header = reply.headers.get('set-cookie') ?? '';
    assert.match(header, /^bioid_simulator_session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.notStrictEqual(cookie, (await signIn()).cookie);
    await fetch(`${broker.url}/signout`, { headers: { Cookie: cookie } });
    assert.strictEqual((await token({ 'X-CSRF': '1', Cookie: cookie })).status, 401);
  });

  it('/signin?return= sends the browser back to a loopback page only (no open redirect)', async () => {
    const back = await signIn(`?return=${encodeURIComponent(`${PAGE}/checkout?step=2`)}`);
    assert.strictEqual(back.reply.status, 303);
    assert.strictEqual(back.reply.headers.get('location'), `${PAGE}/checkout?step=2`);
    for (const target of ['https://evil.example/', '//evil.example/', 'javascript:alert(1)', 'http://127.0.0.1.evil.example/']) {
      const { reply } = await signIn(`?return=${encodeURIComponent(target)}`);
      assert.strictEqual(reply.status, 200, target);
      assert.strictEqual(reply.headers.get('location'), null, target);
    }
  });

  it('/signin?return_to= (what login-url appends) sends the browser back too, loopback pages only', async () => {
    const back = await signIn(`?return_to=${encodeURIComponent(`${PAGE}/verify`)}`);
    assert.strictEqual(back.reply.status, 303);
    assert.strictEqual(back.reply.headers.get('location'), `${PAGE}/verify`);
    const { reply } = await signIn(`?return_to=${encodeURIComponent('https://evil.example/')}`);
    assert.strictEqual(reply.headers.get('location'), null);
  });

  it('an unknown path (a typo in token-endpoint) answers its 404 with the CORS grant, so the page reads the 404', async () => {
    const preflight = await fetch(`${broker.url}/tokn`, {
      method: 'OPTIONS',
      headers: { Origin: PAGE, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-csrf' },
    });
    assert.strictEqual(preflight.status, 204);
    assert.strictEqual(preflight.headers.get('access-control-allow-origin'), PAGE);
    const reply = await fetch(`${broker.url}/tokn`, { headers: { Origin: PAGE, 'X-CSRF': '1' } });
    assert.strictEqual(reply.status, 404);
    assert.strictEqual(reply.headers.get('access-control-allow-origin'), PAGE);
    assert.strictEqual(reply.headers.get('access-control-allow-credentials'), 'true');
  });

  it('a loopback page gets CORS with credentials (preflight and GET); any other origin gets no grant', async () => {
    const preflight = await fetch(broker.tokenEndpoint, {
      method: 'OPTIONS',
      headers: { Origin: PAGE, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-csrf' },
    });
    assert.strictEqual(preflight.status, 204);
    assert.strictEqual(preflight.headers.get('access-control-allow-origin'), PAGE);
    assert.strictEqual(preflight.headers.get('access-control-allow-credentials'), 'true');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-CSRF/i);
    const { cookie } = await signIn();
    const granted = await token({ Origin: 'http://localhost:5173', 'X-CSRF': '1', Cookie: cookie });
    assert.strictEqual(granted.headers.get('access-control-allow-origin'), 'http://localhost:5173');
    assert.strictEqual(granted.headers.get('access-control-allow-credentials'), 'true');

    const foreign = await fetch(broker.tokenEndpoint, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-csrf' },
    });
    assert.strictEqual(foreign.status, 403);
    assert.strictEqual(foreign.headers.get('access-control-allow-origin'), null);
    const read = await token({ Origin: 'https://evil.example', 'X-CSRF': '1', Cookie: cookie });
    assert.strictEqual(read.headers.get('access-control-allow-origin'), null, 'the browser would not let that page read the token');
  });
});
