/**
 * The reference token broker in client_credentials mode against a real OpenID provider (oidc-provider)
 * on 127.0.0.1: spec 4.1 (the broker endpoint), 4.2 (the exchange), 5.6 (caching) and 7 (502).
 */
import { assert } from 'chai';
import { installFakeDate } from '../support/fake-clock.js';
import { decodeJwt } from 'jose';
import type { TokenBrokerOptions } from '../../src/broker/index.js';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { MiB, startFloodServer } from '../support/flood-server.js';
import {
  APP_ORIGIN,
  CLIENT,
  brokerAgainst,
  brokerRequest,
  elapsedSince,
  readJson,
  recordingFetch,
  startServer,
  verifyMiddlewareToken,
} from './support.js';

let idp: RunningIdp;

before(async () => {
  idp = await startIdp({ clients: [CLIENT], accessTokenTtl: 300 });
});
after(() => idp.close());

const brokerFor = (overrides: Partial<TokenBrokerOptions> = {}) => brokerAgainst(idp, { allowedOrigins: [APP_ORIGIN], ...overrides });

describe('token broker, client_credentials mode (spec 4.1, 4.2)', () => {
  it('spec 4.1: a signed-in caller gets 200 { access_token, expires_in }, a middleware JWT verified against the IdP JWKS', async () => {
    const { forms, fetchImpl } = recordingFetch();
    const { broker } = brokerFor({ fetchImpl });
    const response = await broker(brokerRequest());
    assert.strictEqual(response.status, 200);
    const body = await readJson(response);
    assert.deepStrictEqual(Object.keys(body).sort(), ['access_token', 'expires_in']);
    const claims = await verifyMiddlewareToken(idp, body.access_token as string);
    assert.strictEqual(claims.aud, 'biometrics-middleware');
    assert.strictEqual(claims.sub, CLIENT.clientId, 'a machine identity: the organisation, not an end user (spec 1)');
    // Spec 4.2: the form of the exchange.
    const form = forms[0]!;
    assert.strictEqual(form.get('grant_type'), 'client_credentials');
    assert.strictEqual(form.get('client_id'), CLIENT.clientId);
    assert.strictEqual(form.get('client_secret'), CLIENT.clientSecret);
    assert.strictEqual(form.get('audience'), 'biometrics-middleware');
  });

  it('with middlewareUrl the answer names it as middleware_url (the SDK then sends the token there only)', async () => {
    const { broker } = brokerFor({ middlewareUrl: 'https://mw.example.com/api/' });
    const body = await readJson(await broker(brokerRequest()));
    assert.deepStrictEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'middleware_url']);
    assert.strictEqual(body.middleware_url, 'https://mw.example.com/api');
  });

  it('spec 4.1: success is never stored: Cache-Control no-store, Pragma no-cache, JSON', async () => {
    const { broker } = brokerFor();
    const response = await broker(brokerRequest());
    assert.strictEqual(response.status, 200);
    assert.strictEqual(response.headers.get('Cache-Control'), 'no-store');
    assert.strictEqual(response.headers.get('Pragma'), 'no-cache');
    assert.match(response.headers.get('Content-Type') ?? '', /^application\/json/);
  });

  it('spec 5.6: expires_in is what remains of the cached token, not the original lifetime', async () => {
    const clock = installFakeDate(); // Date stands still until clock.tick
    try {
      const { broker } = brokerFor();
      const first = await readJson(await broker(brokerRequest()));
      // 300 s token, cached 30 s short of expiry: 270 s remain.
      assert.strictEqual(first.expires_in, 270);
      clock.tick(1000);
      const second = await readJson(await broker(brokerRequest()));
      assert.strictEqual(second.access_token, first.access_token);
      assert.strictEqual(second.expires_in, 269, 'one second later, one second less');
      const exp = decodeJwt(second.access_token as string).exp!;
      assert.ok((second.expires_in as number) < exp - Date.now() / 1000, 'never beyond the real expiry');
    } finally {
      clock.uninstall();
    }
  });

  it('spec 5.6: 100 concurrent cold requests share one exchange with the IdP (single flight)', async () => {
    const { broker } = brokerFor();
    const before = idp.tokenRequests;
    const responses = await Promise.all(Array.from({ length: 100 }, () => broker(brokerRequest())));
    assert.strictEqual(idp.tokenRequests - before, 1);
    const tokens = new Set(await Promise.all(responses.map(async (r) => (await readJson(r)).access_token)));
    assert.strictEqual(tokens.size, 1);
    assert.ok(responses.every((r) => r.status === 200));
  });

  it('spec 5.6: later requests are answered from the cache without calling the IdP', async () => {
    const { broker } = brokerFor();
    const before = idp.tokenRequests;
    const tokens = [];
    for (let i = 0; i < 5; i++) tokens.push((await readJson(await broker(brokerRequest()))).access_token);
    assert.strictEqual(idp.tokenRequests - before, 1);
    assert.strictEqual(new Set(tokens).size, 1);
  });

  it('spec 5.6: a token is fetched again once its cached life is over', async () => {
    const shortIdp = await startIdp({ clients: [CLIENT], accessTokenTtl: 2 });
    const clock = installFakeDate(); // Date stands still until clock.tick
    try {
      const { broker } = brokerAgainst(shortIdp);
      const first = await readJson(await broker(brokerRequest()));
      assert.strictEqual(first.expires_in, 1, '2 s token minus a tenth: 1 s left');
      clock.tick(1799);
      const cached = await readJson(await broker(brokerRequest()));
      assert.strictEqual(cached.access_token, first.access_token, 'cached for 1.8 s');
      assert.strictEqual(shortIdp.tokenRequests, 1);
      clock.tick(1);
      const second = await readJson(await broker(brokerRequest()));
      assert.notStrictEqual(second.access_token, first.access_token);
      assert.strictEqual(shortIdp.tokenRequests, 2);
    } finally {
      clock.uninstall();
      await shortIdp.close();
    }
  });
});

describe('token broker: the session gate and anti-CSRF (spec 4.1)', () => {
  it('spec 4.1: a caller without a session gets 401 and no token, and the IdP is not called', async () => {
    for (const falsy of [false, null, undefined, 0, '']) {
      const { broker } = brokerFor({ authorize: async () => falsy });
      const before = idp.tokenRequests;
      const response = await broker(brokerRequest());
      assert.strictEqual(response.status, 401);
      const body = await readJson(response);
      assert.strictEqual(body.access_token, undefined);
      assert.strictEqual(typeof body.error, 'string');
      assert.strictEqual(response.headers.get('Cache-Control'), 'no-store');
      assert.strictEqual(idp.tokenRequests, before);
    }
  });

  it('spec 4.1: authorize receives the request and decides by it (for example a session cookie)', async () => {
    const { broker } = brokerFor({ authorize: (request) => request.headers.get('Cookie') === 'session=valid' });
    assert.strictEqual((await broker(brokerRequest({ headers: { Cookie: 'session=valid' } }))).status, 200);
    assert.strictEqual((await broker(brokerRequest({ headers: { Cookie: 'session=forged' } }))).status, 401);
  });

  it('spec 4.1: an authorize that throws answers 500 without a token, and logs no detail of the error', async () => {
    const { broker, log } = brokerFor({
      authorize: () => {
        throw new Error('session store at redis://user:hunter2@db failed');
      },
    });
    const response = await broker(brokerRequest());
    assert.strictEqual(response.status, 500);
    assert.strictEqual((await readJson(response)).access_token, undefined);
    assert.match(log.text(), /authorize threw \(Error\)/);
    assert.notMatch(log.text(), /hunter2/);
  });

  it('contract rule 3: a request without X-CSRF: 1 gets 403 and no token', async () => {
    const { broker } = brokerFor();
    const before = idp.tokenRequests;
    for (const request of [brokerRequest({ csrf: false }), brokerRequest({ headers: { 'X-CSRF': '0' } })]) {
      const response = await broker(request);
      assert.strictEqual(response.status, 403);
      const body = await readJson(response);
      assert.strictEqual(body.access_token, undefined);
      assert.match(body.error as string, /X-CSRF: 1/);
    }
    assert.strictEqual(idp.tokenRequests, before);
  });

  it('contract rule 3: requireCsrfHeader: false serves a token without the header (SameSite-cookie deployments)', async () => {
    const { broker } = brokerFor({ requireCsrfHeader: false });
    assert.strictEqual((await broker(brokerRequest({ csrf: false }))).status, 200);
  });

  it('spec 4.1: GET only; other methods get 405 with Allow: GET, OPTIONS and no token', async () => {
    const { broker } = brokerFor();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD']) {
      const response = await broker(brokerRequest({ method }));
      assert.strictEqual(response.status, 405, method);
      assert.strictEqual(response.headers.get('Allow'), 'GET, OPTIONS');
      if (method !== 'HEAD') assert.strictEqual((await readJson(response)).access_token, undefined);
    }
  });
});

describe('token broker: CORS (spec 4.1)', () => {
  it('spec 4.1: an allowed origin is echoed exactly, with credentials and Vary: Origin', async () => {
    const { broker } = brokerFor();
    const response = await broker(brokerRequest({ headers: { Origin: APP_ORIGIN } }));
    assert.strictEqual(response.status, 200);
    assert.strictEqual(response.headers.get('Access-Control-Allow-Origin'), APP_ORIGIN);
    assert.strictEqual(response.headers.get('Access-Control-Allow-Credentials'), 'true');
    assert.match(response.headers.get('Vary') ?? '', /\bOrigin\b/);
  });

  it('spec 4.1: a foreign origin gets no CORS grant (the browser withholds the token), never *', async () => {
    const { broker } = brokerFor();
    for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.com', 'http://app.example.com', 'null']) {
      const response = await broker(brokerRequest({ headers: { Origin: origin } }));
      assert.strictEqual(response.headers.get('Access-Control-Allow-Origin'), null, origin);
      assert.strictEqual(response.headers.get('Access-Control-Allow-Credentials'), null, origin);
      assert.match(response.headers.get('Vary') ?? '', /\bOrigin\b/);
    }
  });

  it('spec 4.1: an OPTIONS preflight from an allowed origin is granted GET and the X-CSRF header', async () => {
    const { broker } = brokerFor();
    const before = idp.tokenRequests;
    const response = await broker(
      brokerRequest({
        method: 'OPTIONS',
        headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-csrf' },
        csrf: false,
      }),
    );
    assert.strictEqual(response.status, 204);
    assert.strictEqual(response.headers.get('Access-Control-Allow-Origin'), APP_ORIGIN);
    assert.strictEqual(response.headers.get('Access-Control-Allow-Credentials'), 'true');
    assert.strictEqual(response.headers.get('Access-Control-Allow-Methods'), 'GET');
    assert.match(response.headers.get('Access-Control-Allow-Headers') ?? '', /X-CSRF/i);
    assert.strictEqual(idp.tokenRequests, before, 'a preflight never exchanges');
  });

  it('spec 4.1: an OPTIONS preflight from a foreign origin is refused without a grant', async () => {
    const { broker } = brokerFor();
    const response = await broker(
      brokerRequest({
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example.com', 'Access-Control-Request-Method': 'GET' },
        csrf: false,
      }),
    );
    assert.strictEqual(response.status, 403);
    assert.strictEqual(response.headers.get('Access-Control-Allow-Origin'), null);
    assert.strictEqual(response.headers.get('Access-Control-Allow-Methods'), null);
  });
});

describe('token broker: failures of the IdP exchange (spec 4.1, 7)', () => {
  const assertGeneric502 = async (response: Response, ...mustNotContain: string[]) => {
    assert.strictEqual(response.status, 502);
    assert.strictEqual(response.headers.get('Cache-Control'), 'no-store');
    const text = await response.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    assert.deepStrictEqual(Object.keys(body), ['error']);
    assert.strictEqual(typeof body.error, 'string');
    for (const secret of [CLIENT.clientSecret, ...mustNotContain]) assert.ok(!text.includes(secret), `body leaks ${secret}`);
    assert.notMatch(text, /at .*\.(ts|js):\d+/, 'no stack');
  };

  it('spec 7: a wrong client secret gives 502 { error } quickly; neither body nor log holds the secret or the IdP body', async () => {
    const wrongSecret = 'wrong-secret-9c1e';
    const { broker, log } = brokerFor({ clientSecret: wrongSecret });
    const start = performance.now();
    const response = await broker(brokerRequest());
    assert.ok(elapsedSince(start) < 2000);
    await assertGeneric502(response, wrongSecret, 'invalid_client', 'client authentication failed');
    assert.match(log.text(), /refused it with HTTP 401/);
    assert.match(log.text(), new RegExp(idp.tokenEndpoint.replace(/[.?]/g, '\\$&')));
    for (const leak of [wrongSecret, 'invalid_client', 'client authentication failed'])
      assert.ok(!log.text().includes(leak), `log leaks ${leak}`);
  });

  it('an IdP that answers 5xx failed, it did not refuse: the log says so, as the exchange metric does (refused is 4xx)', async () => {
    const failing = await startServer((_req, res) => {
      res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"error":"temporarily_unavailable"}');
    });
    try {
      const { broker, log } = brokerFor({ issuerUrl: failing.url });
      await assertGeneric502(await broker(brokerRequest()));
      assert.match(log.text(), /failed with HTTP 503 \(a server error\)/);
      assert.notMatch(log.text(), /refused/);
    } finally {
      await failing.close();
    }
  });

  it('spec 4.1: a failure is not cached: each request after a refusal asks the IdP again', async () => {
    const { broker } = brokerFor({ clientSecret: 'wrong' });
    const before = idp.tokenRequests;
    assert.strictEqual((await broker(brokerRequest())).status, 502);
    assert.strictEqual((await broker(brokerRequest())).status, 502);
    assert.strictEqual(idp.tokenRequests - before, 2);
  });

  it('spec 7: an unreachable IdP gives 502 quickly; after the IdP comes back the next request succeeds (failure not cached)', async () => {
    const restartable = await startIdp({ clients: [CLIENT] });
    const port = Number(new URL(restartable.baseUrl).port);
    const { broker, log } = brokerAgainst(restartable);
    assert.strictEqual((await broker(brokerRequest())).status, 200);
    await restartable.close();
    // A cached token still serves; a fresh broker (cold cache) must go to the stopped IdP.
    const { broker: cold } = brokerAgainst(restartable, { logger: log.logger });
    const start = performance.now();
    await assertGeneric502(await cold(brokerRequest()));
    assert.ok(elapsedSince(start) < 2000, 'refused connections fail at once');
    assert.match(log.text(), /Could not reach the identity provider/);
    assert.ok(!log.text().includes(CLIENT.clientSecret));

    const revived = await startIdp({ clients: [CLIENT], port });
    try {
      const response = await cold(brokerRequest());
      assert.strictEqual(response.status, 200);
      await verifyMiddlewareToken(revived, (await readJson(response)).access_token as string);
      assert.strictEqual(revived.tokenRequests, 1);
    } finally {
      await revived.close();
    }
  });

  it('spec 4.1: a slow IdP is cut off by timeoutMs and answered with 502', async () => {
    const hanging = await startServer(() => undefined);
    try {
      const { broker, log } = brokerFor({ issuerUrl: hanging.url, timeoutMs: 300 });
      const start = performance.now();
      await assertGeneric502(await broker(brokerRequest()));
      const took = elapsedSince(start);
      assert.ok(took >= 250 && took < 2000, `took ${took} ms`);
      assert.match(log.text(), /did not answer within 300 ms/);
    } finally {
      await hanging.close();
    }
  });

  it('an IdP answer over 1 MiB is not read further: 502 { error }, and the log names the endpoint and the limit', async () => {
    for (const mode of ['client_credentials', 'RFC 8693'] as const) {
      const flood = await startFloodServer(() => ({ prefix: '{"access_token":"', size: 64 * MiB }));
      try {
        const exchange = mode === 'RFC 8693' ? { tokenExchange: { subjectToken: () => 'user-token-1' } } : {};
        const { broker, log } = brokerFor({ issuerUrl: flood.url, timeoutMs: 10_000, ...exchange });
        await assertGeneric502(await broker(brokerRequest()));
        assert.match(
          log.text(),
          /identity provider at http:\/\/127\.0\.0\.1:\d+\/realms\/.*\/token answered with a body over the 1 MiB limit/,
          mode,
        );
        const record = await flood.settled(`/realms/${idp.realm}/protocol/openid-connect/token`);
        assert.isTrue(record.hungUp, `${mode}: the broker hung up`);
        // The limit plus what the loopback socket buffers hold; the body was 64 MiB.
        assert.isBelow(record.written, 17 * MiB, `${mode}: ${(record.written / MiB).toFixed(1)} MiB written`);
      } finally {
        await flood.close();
      }
    }
  });

  for (const [what, status, contentType, body] of [
    ['an HTML login page', 200, 'text/html', '<html><body>Login s3cret-page</body></html>'],
    ['JSON without access_token', 200, 'application/json', '{"token":"x","note":"idp-internal-detail"}'],
    ['a bad expires_in', 200, 'application/json', '{"access_token":"eyJabc.eyJdef.sig","expires_in":"soon","note":"idp-internal-detail"}'],
    ['a 500 with a stack trace', 500, 'text/plain', 'Error: idp-internal-detail\n    at Object.<anonymous> (/srv/idp.js:12:3)'],
  ] as const) {
    it(`spec 4.1: an IdP that answers ${what} gives a generic 502; the garbage reaches neither body nor log`, async () => {
      const garbage = await startServer((_req, res) => {
        res.writeHead(status, { 'Content-Type': contentType });
        res.end(body);
      });
      try {
        const { broker, log } = brokerFor({ issuerUrl: garbage.url });
        await assertGeneric502(await broker(brokerRequest()), 's3cret-page', 'idp-internal-detail', 'eyJabc');
        assert.strictEqual(log.lines.length, 1);
        for (const leak of ['s3cret-page', 'idp-internal-detail', 'eyJabc', CLIENT.clientSecret]) {
          assert.ok(!log.text().includes(leak), `log leaks ${leak}`);
        }
      } finally {
        await garbage.close();
      }
    });
  }
});
