/**
 * "One error, one code" (docs/elements.md): `start()` rejects with the very error whose code the
 * `bio-error` event carries — for a signed-out user, a failing broker, a missing attribute and half a pin.
 */
import { expect, fixture, oneEvent } from '@open-wc/testing';
import '../../src/elements/index.js';
import { BioIDError, ReaderAuthError } from '../../src/index.js';
import type { BioErrorDetail } from '../../src/elements/parts/events.js';
import { json } from '../support/fake-network.js';
import { ATTRS, TOKEN_PATH, installNetwork, restoreNetwork } from './network.js';

async function outcome(markup: string) {
  const el = await fixture<HTMLElement & { start(): Promise<unknown> }>(markup);
  const event = oneEvent(el, 'bio-error');
  const rejection = await el.start().then(
    () => expect.fail('start() resolved'),
    (e: unknown) => e,
  );
  const { detail } = (await event) as CustomEvent<BioErrorDetail>;
  return { detail, rejection };
}

describe('one error, one code: start() and bio-error agree', () => {
  afterEach(restoreNetwork);

  const cases: [string, () => void, string, string, abstract new (...args: never[]) => BioIDError][] = [
    [
      'the broker answers 401 (signed out)',
      () => installNetwork((n) => n.on('GET', TOKEN_PATH, () => json({ error: 'no session' }, 401))),
      `<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`,
      'session-expired',
      ReaderAuthError,
    ],
    [
      'the broker answers 401 no-cookie',
      () => installNetwork((n) => n.on('GET', TOKEN_PATH, () => json({ error: 'no cookie', reason: 'no-cookie' }, 401))),
      `<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`,
      'cookie-blocked',
      ReaderAuthError,
    ],
    [
      'the broker answers 502',
      () => installNetwork((n) => n.on('GET', TOKEN_PATH, () => json({ error: 'idp down' }, 502))),
      `<bio-search ${ATTRS}></bio-search>`,
      'broker-unavailable',
      ReaderAuthError,
    ],
    [
      'middleware-url is missing',
      () => installNetwork(),
      `<bio-enrolled token-endpoint="/token" subject-id="alice"></bio-enrolled>`,
      'config',
      BioIDError,
    ],
    ['subject-id is missing', () => installNetwork(), `<bio-verify ${ATTRS}></bio-verify>`, 'config', BioIDError],
    [
      'half a pin (workstation-id without device-id)',
      () => installNetwork(),
      `<bio-verify ${ATTRS} workstation-id="ws-1" subject-id="alice"></bio-verify>`,
      'config',
      BioIDError,
    ],
  ];
  for (const [what, network, markup, code, type] of cases) {
    it(`${what}: bio-error code ${code}, and start() rejects with a ${type.name} of that code`, async () => {
      network();
      const { detail, rejection } = await outcome(markup);
      expect(detail.code).to.equal(code);
      expect(rejection).to.be.instanceOf(type);
      expect((rejection as BioIDError).code).to.equal(code);
      expect(detail.retryable).to.equal((rejection as BioIDError).retryable);
    });
  }

  it('every tag is in the one script: bio-enrolled is defined by the same entry', () => {
    expect(customElements.get('bio-enrolled')).to.be.a('function');
  });
});
