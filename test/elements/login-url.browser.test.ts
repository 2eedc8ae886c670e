/**
 * `login-url` (docs/elements.md): on an operation element it turns `session-expired` into a
 * sign-in link, an `<a part="login">` in the shadow root whose href is the login-url resolved against
 * the page, with `return_to` (this page) appended. Only http(s) is taken: `javascript:` is a config error.
 */
import { expect, fixture } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import '../../src/elements/index.js';
import { configureElements, type BioVerify } from '../../src/elements/index.js';
import { json } from '../support/fake-network.js';
import { ATTRS, TOKEN_PATH, installNetwork, restoreNetwork, type Net } from './network.js';

const signedOut = (net: Net) => net.on('GET', TOKEN_PATH, () => json({ error: 'Sign in to obtain a token.' }, 401));

async function run(el: BioVerify) {
  const outcome = await el.start().then(
    () => 'resolved',
    (e: { code?: string }) => e.code,
  );
  await el.updateComplete;
  return { outcome, link: el.shadowRoot!.querySelector<HTMLAnchorElement>('a[part="login"]') };
}

describe('login-url', () => {
  afterEach(() => {
    restoreNetwork();
    delete (globalThis as { BioIDElementsConfig?: unknown }).BioIDElementsConfig;
  });

  it('session-expired shows a sign-in link to login-url, with return_to naming this page', async () => {
    installNetwork(signedOut);
    const el = await fixture<BioVerify>(
      `<bio-verify ${ATTRS} subject-id="alice" login-url="https://id.example.test/login?app=shop"></bio-verify>`,
    );
    const { outcome, link } = await run(el);
    expect(outcome).to.equal('session-expired');
    expect(link, 'a sign-in link').to.not.equal(null);
    const href = new URL(link!.href);
    expect(`${href.origin}${href.pathname}`).to.equal('https://id.example.test/login');
    expect(href.searchParams.get('app')).to.equal('shop');
    expect(href.searchParams.get('return_to')).to.equal(location.href);
    expect(link!.textContent).to.equal('Sign in');
  });

  it('a relative login-url resolves against document.baseURI; a return_to it names is kept', async () => {
    installNetwork(signedOut);
    const el = await fixture<BioVerify>(
      `<bio-verify ${ATTRS} subject-id="alice" login-url="signin?return_to=%2Fhome" lang="de"></bio-verify>`,
    );
    // German loads on use (src/elements/parts/localize.ts): its words once the table has arrived.
    await waitUntil(() => (el.shadowRoot!.firstElementChild as HTMLElement).lang === 'de', 'German did not arrive');
    const { link } = await run(el);
    expect(link!.href).to.equal(new URL('signin?return_to=%2Fhome', document.baseURI).href);
    expect(link!.textContent).to.equal('Anmelden');
  });

  it('a javascript: login-url is a config error naming login-url, before any network call, and no link', async () => {
    const net = installNetwork(signedOut);
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice" login-url="javascript:alert(1)"></bio-verify>`);
    const { outcome, link } = await run(el);
    expect(outcome).to.equal('config');
    expect(el.shadowRoot!.querySelector('[part="error"]')!.textContent).to.contain('not set up correctly');
    expect(link).to.equal(null);
    expect(net.calls).to.have.length(0);
  });

  it('other failures show no link, and without login-url session-expired shows none', async () => {
    installNetwork((net) => net.on('GET', TOKEN_PATH, () => json({ error: 'down' }, 502)));
    let el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice" login-url="/signin"></bio-verify>`);
    expect((await run(el)).link).to.equal(null);
    restoreNetwork();
    installNetwork(signedOut);
    el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const { outcome, link } = await run(el);
    expect(outcome).to.equal('session-expired');
    expect(link).to.equal(null);
  });

  it('loginUrl in the page defaults works like the attribute', async () => {
    installNetwork(signedOut);
    configureElements({ loginUrl: '/signin' });
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice"></bio-verify>`);
    const { link } = await run(el);
    expect(new URL(link!.href).pathname).to.equal('/signin');
  });
});
