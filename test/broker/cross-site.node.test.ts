/**
 * A cross-site request without a cookie is told apart from a
 * signed-out user (401 reason "no-cookie", contract rule 5), every 401/403 names its reason (rules 3, 4,
 * 12), and a preflight from an origin that is not allowed is logged with that origin (rule 2).
 */
import { assert } from 'chai';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { toNodeHandler, type BrokerRefusal, type TokenBrokerOptions } from '../../src/broker/index.js';
import { APP_ORIGIN, CLIENT, brokerAgainst, brokerRequest, readJson, startServer } from './support.js';

let idp: RunningIdp;
before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

/** A broker whose session gate is the cookie `session=valid`. */
const cookieGated = (overrides: Partial<TokenBrokerOptions> = {}) =>
  brokerAgainst(idp, {
    allowedOrigins: [APP_ORIGIN],
    authorize: (request) => /(^|;\s*)session=valid(;|$)/.test(request.headers.get('cookie') ?? ''),
    ...overrides,
  });

describe('cross-site, said plainly (contract rule 5)', () => {
  it('Sec-Fetch-Site: cross-site and no Cookie answers 401 { error, reason: "no-cookie" } whose error names the fix', async () => {
    const { broker } = cookieGated();
    const response = await broker(brokerRequest({ headers: { Origin: APP_ORIGIN, 'Sec-Fetch-Site': 'cross-site' } }));
    assert.strictEqual(response.status, 401);
    const body = await readJson(response);
    assert.deepStrictEqual(Object.keys(body).sort(), ['error', 'reason']);
    assert.strictEqual(body.reason, 'no-cookie');
    assert.match(body.error as string, /another site/);
    assert.match(body.error as string, /Host the token broker on the page's site/);
    assert.strictEqual(response.headers.get('Cache-Control'), 'no-store');
    assert.strictEqual(response.headers.get('Access-Control-Allow-Origin'), APP_ORIGIN, 'the page may read why');
  });

  it('a request that is not cross-site, or that carries a Cookie, never gets "no-cookie"', async () => {
    const { broker } = cookieGated();
    const cases: [string, Record<string, string>][] = [
      ['same-site, no cookie', { 'Sec-Fetch-Site': 'same-site' }],
      ['same-origin, no cookie', { 'Sec-Fetch-Site': 'same-origin' }],
      ['none (typed into the address bar), no cookie', { 'Sec-Fetch-Site': 'none' }],
      ['no fetch metadata (an old browser, curl), no cookie', {}],
      ['cross-site with a cookie that is no session', { 'Sec-Fetch-Site': 'cross-site', Cookie: 'session=expired' }],
      ["CROSS-SITE in capitals is not the browser's value", { 'Sec-Fetch-Site': 'CROSS-SITE' }],
    ];
    for (const [name, headers] of cases) {
      const response = await broker(brokerRequest({ headers }));
      assert.strictEqual(response.status, 401, name);
      assert.deepStrictEqual(await readJson(response), { error: 'Sign in to obtain a token.', reason: 'no-session' }, name);
    }
  });

  it('"no-cookie" never overrides the gate: a cross-site request the gate lets in (a bearer session) gets its token', async () => {
    const { broker } = brokerAgainst(idp, { authorize: (request) => request.headers.get('authorization') === 'Bearer app-session' });
    const response = await broker(brokerRequest({ headers: { 'Sec-Fetch-Site': 'cross-site', Authorization: 'Bearer app-session' } }));
    assert.strictEqual(response.status, 200);
    assert.strictEqual(typeof (await readJson(response)).access_token, 'string');
  });

  it('a cross-site request with the session cookie gets its token', async () => {
    const { broker } = cookieGated();
    const response = await broker(brokerRequest({ headers: { 'Sec-Fetch-Site': 'cross-site', Cookie: 'session=valid' } }));
    assert.strictEqual(response.status, 200);
  });

  it('contract rules 3, 4, 12: every 401 and 403 names its reason (csrf, no-session, no-subject-token); a 502 stays exactly { error }', async () => {
    const { broker } = cookieGated();
    assert.deepStrictEqual((await readJson(await broker(brokerRequest({ csrf: false })))).reason, 'csrf');
    assert.deepStrictEqual((await readJson(await broker(brokerRequest()))).reason, 'no-session');
    const exchange = brokerAgainst(idp, { tokenExchange: { subjectToken: () => undefined } }).broker;
    const noSubject = await exchange(brokerRequest());
    assert.strictEqual(noSubject.status, 401);
    assert.strictEqual((await readJson(noSubject)).reason, 'no-subject-token');
    const failing = brokerAgainst(idp, { clientSecret: 'wrong-secret' }).broker;
    const bad = await failing(brokerRequest());
    assert.strictEqual(bad.status, 502);
    assert.deepStrictEqual(Object.keys(await readJson(bad)), ['error'], 'contract rule 10: a reason only on 401 and 403');
  });
});

describe('a preflight from an origin that is not allowed is logged (contract rule 2)', () => {
  it('one structured line names the origin and the fix, and holds no secret, cookie or token', async () => {
    const { broker, log } = cookieGated();
    const response = await broker(
      brokerRequest({
        method: 'OPTIONS',
        csrf: false,
        headers: { Origin: 'https://cms.example.org', 'Access-Control-Request-Method': 'GET', Cookie: 'session=valid' },
      }),
    );
    assert.strictEqual(response.status, 403);
    assert.strictEqual(log.lines.length, 1, log.text());
    const line = log.lines[0]!;
    assert.notInclude(line, '\n');
    const record = JSON.parse(line.replace(/^bioid token broker: /, '')) as Record<string, unknown>;
    assert.deepInclude(record, {
      event: 'refused',
      reason: 'origin-not-allowed',
      status: 403,
      method: 'OPTIONS',
      origin: 'https://cms.example.org',
    });
    assert.match(record.fix as string, /allowedOrigins \(BIOID_ALLOWED_ORIGINS\)/);
    assert.notInclude(line, CLIENT.clientSecret);
    assert.notInclude(line, 'session=valid');
  });

  it('an allowed preflight and ordinary refusals (signed out, no CSRF header) are not logged by default', async () => {
    const { broker, log } = cookieGated();
    await broker(
      brokerRequest({ method: 'OPTIONS', csrf: false, headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'GET' } }),
    );
    await broker(brokerRequest());
    await broker(brokerRequest({ csrf: false }));
    assert.deepStrictEqual(log.lines, []);
  });

  it('a long Origin (it comes from the caller) is cut at 200 characters in the line', async () => {
    const { broker, log } = cookieGated();
    const origin = `https://x.example${'a'.repeat(500)}`;
    await broker(brokerRequest({ method: 'OPTIONS', csrf: false, headers: { Origin: origin } }));
    const record = JSON.parse(log.lines[0]!.replace(/^bioid token broker: /, '')) as { origin: string };
    assert.strictEqual(record.origin.length, 200);
  });

  it('onRefusal receives every refusal with its reason, status, method and origin, and replaces the default line', async () => {
    const refusals: BrokerRefusal[] = [];
    const { broker, log } = cookieGated({ onRefusal: (r) => void refusals.push(r) });
    await broker(brokerRequest({ method: 'OPTIONS', csrf: false, headers: { Origin: 'https://cms.example.org' } }));
    await broker(brokerRequest({ method: 'POST' }));
    await broker(brokerRequest({ csrf: false }));
    await broker(brokerRequest({ headers: { Origin: APP_ORIGIN } }));
    await broker(brokerRequest({ headers: { 'Sec-Fetch-Site': 'cross-site' } }));
    await broker(brokerRequest({ headers: { Cookie: 'session=valid' } }));
    assert.deepStrictEqual(
      refusals.map((r) => [r.reason, r.status, r.method, r.origin]),
      [
        ['origin-not-allowed', 403, 'OPTIONS', 'https://cms.example.org'],
        ['method', 405, 'POST', null],
        ['csrf', 403, 'GET', null],
        ['no-session', 401, 'GET', APP_ORIGIN],
        ['no-cookie', 401, 'GET', null],
      ],
    );
    assert.deepStrictEqual(log.lines, []);
  });

  it('through the Node adapter on a real socket, the browser\'s own headers give "no-cookie"', async () => {
    const { broker } = cookieGated();
    const server = await startServer(toNodeHandler(broker));
    try {
      const response = await fetch(`${server.url}/token`, { headers: { 'X-CSRF': '1', 'Sec-Fetch-Site': 'cross-site' } });
      assert.strictEqual(response.status, 401);
      assert.strictEqual((await readJson(response)).reason, 'no-cookie');
    } finally {
      await server.close();
    }
  });
});
