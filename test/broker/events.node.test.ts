/**
 * Broker events (docs/broker.md, "Events"): `createTokenBroker({ onEvent })` reports each answered request
 * with its outcome, status and duration, and each exchange with the identity provider with its grant,
 * result and duration. No event carries a token, a cookie, a secret or a subject token, whatever a
 * request sends; without a listener nothing is reported.
 */
import { assert } from 'chai';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import type { BrokerEvent, TokenBrokerOptions } from '../../src/broker/index.js';
import { APP_ORIGIN, CLIENT, brokerAgainst, brokerRequest } from './support.js';

let idp: RunningIdp;
before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

function observed(overrides: Partial<TokenBrokerOptions> = {}) {
  const events: BrokerEvent[] = [];
  const { broker } = brokerAgainst(idp, { allowedOrigins: [APP_ORIGIN], onEvent: (event) => void events.push(event), ...overrides });
  return { broker, events };
}

const requestsOf = (events: BrokerEvent[]) =>
  events.filter((e) => e.type === 'request').map((e) => e.type === 'request' && [e.outcome, e.status]);

describe('broker events', () => {
  it('each answer is a request event: token, preflight, origin-not-allowed, method, csrf, no-session, no-cookie', async () => {
    let signedIn = true;
    const { broker, events } = observed({ authorize: () => signedIn });
    await broker(brokerRequest());
    await broker(brokerRequest({ method: 'OPTIONS', headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'GET' } }));
    await broker(brokerRequest({ method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' } }));
    await broker(brokerRequest({ method: 'POST' }));
    await broker(brokerRequest({ csrf: false }));
    signedIn = false;
    await broker(brokerRequest());
    await broker(brokerRequest({ headers: { 'Sec-Fetch-Site': 'cross-site' } }));
    assert.deepStrictEqual(requestsOf(events), [
      ['token', 200],
      ['preflight', 204],
      ['origin-not-allowed', 403],
      ['method', 405],
      ['csrf', 403],
      ['no-session', 401],
      ['no-cookie', 401],
    ]);
    for (const event of events) if (event.type === 'request') assert.isAtLeast(event.durationMs, 0);
  });

  it('the exchange is an exchange event: ok once, then the cached token needs none', async () => {
    const { broker, events } = observed();
    await broker(brokerRequest());
    await broker(brokerRequest());
    const exchanges = events.filter((e) => e.type === 'exchange');
    assert.lengthOf(exchanges, 1);
    assert.deepInclude(exchanges[0], { type: 'exchange', grant: 'client_credentials', result: 'ok' });
  });

  it('an IdP that refuses (a wrong secret) is result refused with its status; one that is down is failed; both answer exchange-failed', async () => {
    const wrong = observed({ clientSecret: 'wrong-secret-0123456789' });
    await wrong.broker(brokerRequest());
    assert.deepInclude(
      wrong.events.find((e) => e.type === 'exchange'),
      { grant: 'client_credentials', result: 'refused', status: 401 },
    );
    assert.deepStrictEqual(requestsOf(wrong.events), [['exchange-failed', 502]]);
    const down = observed({ fetchImpl: async () => Promise.reject(new TypeError('fetch failed')) });
    await down.broker(brokerRequest());
    assert.deepInclude(
      down.events.find((e) => e.type === 'exchange'),
      { grant: 'client_credentials', result: 'failed' },
    );
  });

  it('RFC 8693: the exchange is grant token-exchange; no subject token is no-subject-token; a throwing callback is internal', async () => {
    const subject = await idp.userToken('alice');
    const { broker, events } = observed({ tokenExchange: { subjectToken: (request) => request.headers.get('X-User-Token') } });
    await broker(brokerRequest({ headers: { 'X-User-Token': subject } }));
    await broker(brokerRequest());
    const failing = observed({
      authorize: () => {
        throw new Error('session store down');
      },
    });
    await failing.broker(brokerRequest());
    assert.deepInclude(
      events.find((e) => e.type === 'exchange'),
      { grant: 'token-exchange', result: 'ok' },
    );
    assert.deepStrictEqual(requestsOf(events), [
      ['token', 200],
      ['no-subject-token', 401],
    ]);
    assert.deepStrictEqual(requestsOf(failing.events), [['internal', 500]]);
  });

  it('no event carries a token, cookie, secret or subject token, whatever the request sends', async () => {
    const subject = await idp.userToken('mallory');
    const hostile = `"reason":"csrf" ${subject} <script>`;
    const { broker, events } = observed({ tokenExchange: { subjectToken: (request) => request.headers.get('X-User-Token') } });
    const served: string[] = [];
    const requests: Record<string, string>[] = [
      { 'X-User-Token': subject, Cookie: `sid=${hostile}`, Origin: APP_ORIGIN },
      { 'X-User-Token': hostile, Cookie: 'sid=secret-cookie-value-42' },
      { 'X-User-Token': subject, 'X-Refused-Token': hostile },
    ];
    for (const headers of requests) {
      const response = await broker(brokerRequest({ headers }));
      if (response.status === 200) served.push(((await response.json()) as { access_token: string }).access_token);
    }
    const text = JSON.stringify(events);
    for (const value of [subject, ...subject.split('.'), hostile, 'secret-cookie-value-42', CLIENT.clientSecret, ...served]) {
      assert.notInclude(text, value);
    }
    assert.isAbove(events.length, 3);
  });
});
