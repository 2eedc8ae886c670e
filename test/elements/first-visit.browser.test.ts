/**
 * A first visit: before any token broker has issued a token on this page, a refusal means "not signed
 * in yet", and the card says so ("Sign in to continue."), with the login-url link; "Your session has
 * ended" is said only once a session existed on the page. A token-endpoint where nothing answers is a
 * configuration error that names the URL and the status. Each test file runs in a page of its own, so
 * this page has had no session when the first test starts.
 */
import { expect, fixture, oneEvent } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import '../../src/elements/index.js';
import type { BioSearch } from '../../src/elements/index.js';
import type { BioErrorDetail } from '../../src/elements/parts/events.js';
import { json, text } from '../support/fake-network.js';
import { ATTRS, TOKEN_PATH, installNetwork, restoreNetwork, shadowText } from './network.js';

async function failure(el: BioSearch) {
  const event = oneEvent(el, 'bio-error');
  await el.start().catch(() => undefined);
  const { detail } = (await event) as CustomEvent<BioErrorDetail>;
  await el.updateComplete;
  return detail;
}

describe('a first visit and a wrong token-endpoint', () => {
  afterEach(restoreNetwork);

  it('before any session on this page, a 401 says "Sign in to continue." with the sign-in link; after one, "Your session has ended."', async () => {
    const net = installNetwork((n) => n.on('GET', TOKEN_PATH, () => json({ error: 'no session' }, 401)));
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS} login-url="/signin"></bio-search>`);
    expect((await failure(el)).code).to.equal('session-expired');
    expect(shadowText(el)).to.contain('Sign in to continue.');
    expect(shadowText(el)).not.to.contain('Your session has ended');
    expect(el.shadowRoot!.querySelector('a[part="login"]')!.getAttribute('href')).to.match(/\/signin\?return_to=/);

    net.on('GET', TOKEN_PATH, () => json({ access_token: 'tok-first-visit-0123', expires_in: 300 }));
    await el.start();
    net.on('GET', TOKEN_PATH, () => json({ error: 'no session' }, 401));
    const { clearBrokerTokens } = await import('../../src/index.js');
    clearBrokerTokens();
    await failure(el);
    expect(shadowText(el)).to.contain('Your session has ended. Sign in again.');
  });

  it('a token-endpoint that answers 404 (a typo) is a config error naming the URL and the status, the card saying it in the page language', async () => {
    installNetwork((n) => n.on('GET', '/tokn', () => text('<!doctype html><h1>Not Found</h1>', 404, 'text/html')));
    const el = await fixture<BioSearch>(`<bio-search ${ATTRS.replace(TOKEN_PATH, '/tokn')} lang="de"></bio-search>`);
    // German loads on use (src/elements/parts/localize.ts): its words once the table has arrived.
    await waitUntil(() => (el.shadowRoot!.firstElementChild as HTMLElement).lang === 'de', 'German did not arrive');
    const detail = await failure(el);
    expect(detail).to.include({ code: 'config', retryable: false });
    expect(detail.message).to.match(/^No token broker answers at http:\/\/[^ ]+\/tokn \(HTTP 404\): check token-endpoint\.$/);
    expect(shadowText(el)).to.contain('Diese Komponente ist nicht richtig eingerichtet.');
    expect(shadowText(el)).not.to.contain('/tokn');
    expect(shadowText(el)).not.to.contain('Sitzung');
  });
});
