/**
 * The reference broker under a strict reading of the spec: timeoutMs bounds its calls to the identity
 * provider whatever the fetch does with init.signal (spec 8), and its log never shows the client secret or
 * an end user's subject token, whatever the text around them (spec 5.5).
 */
import { assert } from 'chai';
import { createTokenBroker } from '../../src/broker/index.js';
import { CLIENT, brokerRequest, captureLog, readJson } from './support.js';
import { installFakeClock } from '../support/fake-clock.js';

const IDP = 'https://idp.example.com';

describe('reference broker, strict reading (spec 5.5, 8)', () => {
  it('spec 8: a fetchImpl that ignores init.signal is still cut off after timeoutMs; the broker answers 502', async () => {
    const log = captureLog();
    const broker = createTokenBroker({
      issuerUrl: IDP,
      realm: 'acme',
      ...CLIENT,
      authorize: () => true,
      logger: log.logger,
      timeoutMs: 300,
      fetchImpl: () => new Promise<Response>(() => {}),
    });
    let response: Response;
    // On fake timers: still pending a millisecond before the bound, answered at it, however loaded the machine.
    const clock = installFakeClock();
    try {
      let answered = false;
      const answer = broker(brokerRequest()).finally(() => (answered = true));
      await clock.tickAsync(299);
      assert.isFalse(answered, 'answered before timeoutMs');
      await clock.tickAsync(1);
      assert.isTrue(answered, 'still pending at timeoutMs');
      response = await answer;
    } finally {
      clock.uninstall();
    }
    assert.strictEqual(response.status, 502);
    assert.hasAllKeys(await readJson(response), ['error']);
    assert.match(log.text(), /did not answer within 300 ms/);
  });

  const SUBJECT = 'user-subject-token-4b9e1c';
  const quotingFetch = (what: string) => async () => {
    throw new TypeError(`socket hang up after writing [${what}]`);
  };

  it('spec 5.5: a network failure whose text quotes the client secret never reaches the log', async () => {
    const log = captureLog();
    const broker = createTokenBroker({
      issuerUrl: IDP,
      realm: 'acme',
      ...CLIENT,
      authorize: () => true,
      logger: log.logger,
      fetchImpl: quotingFetch(CLIENT.clientSecret),
    });
    assert.strictEqual((await broker(brokerRequest())).status, 502);
    assert.match(log.text(), /Could not reach the identity provider/);
    assert.notInclude(log.text(), CLIENT.clientSecret);
  });

  it("spec 5.5: a network failure whose text quotes an end user's subject token never reaches the log", async () => {
    const log = captureLog();
    const broker = createTokenBroker({
      issuerUrl: IDP,
      realm: 'acme',
      ...CLIENT,
      authorize: () => true,
      logger: log.logger,
      fetchImpl: quotingFetch(SUBJECT),
      tokenExchange: { subjectToken: () => SUBJECT },
    });
    assert.strictEqual((await broker(brokerRequest())).status, 502);
    assert.match(log.text(), /Could not reach the identity provider/);
    assert.notInclude(log.text(), SUBJECT);
  });
});
