import { expect, fixture } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import '../../src/elements/index.js';
import type { BioDiagnostics, BioReaderStatus, BioVerify } from '../../src/elements/index.js';
import { de } from '../../src/elements/translations/de.js';
import * as diagnostics from '../../src/elements/translations/diagnostics.js';
import { en } from '../../src/elements/translations/en.js';
import { es } from '../../src/elements/translations/es.js';
import { fr } from '../../src/elements/translations/fr.js';
import { ATTRS, installNetwork, restoreNetwork } from './network.js';

const buttonText = (el: Element) => el.shadowRoot!.querySelector('button')!.textContent!.trim();

describe('localization', () => {
  beforeEach(() => installNetwork());
  afterEach(() => {
    restoreNetwork();
    delete (globalThis as { BioIDElementsConfig?: unknown }).BioIDElementsConfig;
  });

  it('lang="de" on the element shows German, and switching lang switches the text', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="alice" lang="de"></bio-verify>`);
    // German loads on use (src/elements/parts/localize.ts): the words once its table has arrived.
    await waitUntil(() => buttonText(el) === 'Fingerabdruck prüfen', 'no German words');
    await el.start();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('Fingerabdruck bestätigt.');
    el.setAttribute('lang', 'fr');
    await waitUntil(() => buttonText(el) === 'Vérifier l’empreinte', 'no French words');
    expect(el.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('Empreinte vérifiée.');
  });

  it('follows the nearest ancestor lang, and its changes', async () => {
    const root = await fixture(`<div lang="es"><section><bio-verify ${ATTRS} subject-id="alice"></bio-verify></section></div>`);
    const el = root.querySelector('bio-verify')!;
    await waitUntil(() => el.shadowRoot?.querySelector('button') && buttonText(el) === 'Verificar huella', 'no Spanish words');
    root.setAttribute('lang', 'de-AT');
    await waitUntil(() => buttonText(el) === 'Fingerabdruck prüfen', 'did not follow the ancestor');
  });

  it('an unknown language falls back to English', async () => {
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} lang="xx"></bio-verify>`);
    expect(buttonText(el)).to.equal(en.verify);
  });

  it('every string can be overridden: per element (strings) and per page and language', async () => {
    (globalThis as { BioIDElementsConfig?: unknown }).BioIDElementsConfig = { strings: { de: { verify: 'Jetzt prüfen' } } };
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} lang="de"></bio-verify>`);
    expect(buttonText(el)).to.equal('Jetzt prüfen');
    el.strings = { verify: 'Nur hier' };
    await el.updateComplete;
    expect(buttonText(el)).to.equal('Nur hier');
  });

  /** The language the shadow root's text is marked with: the lang its container carries. */
  const textLang = (el: Element) => el.shadowRoot!.querySelector('[part="base"]')!.getAttribute('lang');

  it('WCAG 3.1.2: the text is marked with the language it is in (English for one the elements do not carry), the host lang left as given', async () => {
    const root = await fixture(
      `<div lang="it"><bio-verify ${ATTRS} subject-id="alice"></bio-verify><bio-reader-status workstation-id="ws" device-id="dev"></bio-reader-status></div>`,
    );
    const verify = root.querySelector<BioVerify>('bio-verify')!;
    const status = root.querySelector<BioReaderStatus>('bio-reader-status')!;
    // The fixture awaits the holder only; each element's first render is in a task of its own (src/elements/parts/turn.ts).
    await Promise.all([verify.updateComplete, status.updateComplete]);
    expect(buttonText(verify)).to.equal(en.verify);
    expect(textLang(verify)).to.equal('en');
    expect(textLang(status)).to.equal('en');
    expect(verify.hasAttribute('lang')).to.equal(false);
    // Every string of the element's text inherits it: the status line after an operation too.
    await verify.start();
    await verify.updateComplete;
    expect(verify.shadowRoot!.querySelector('[role="status"]')!.closest('[lang]')!.getAttribute('lang')).to.equal('en');

    // A change of language at run time: built in, then not again.
    root.setAttribute('lang', 'de-AT');
    await waitUntil(() => textLang(verify) === 'de-AT' && textLang(status) === 'de-AT', 'did not follow to de-AT');
    expect(buttonText(verify)).to.equal('Fingerabdruck prüfen');
    root.setAttribute('lang', 'xx');
    await waitUntil(() => textLang(verify) === 'en', 'did not fall back to en');
    expect(root.getAttribute('lang')).to.equal('xx');
  });

  it('WCAG 3.1.2: a language the page gives strings for (page-wide or on the element) marks the text with it', async () => {
    (globalThis as { BioIDElementsConfig?: unknown }).BioIDElementsConfig = { strings: { it: { verify: 'Verifica impronta' } } };
    const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} lang="it"></bio-verify>`);
    expect(buttonText(el)).to.equal('Verifica impronta');
    expect(textLang(el)).to.equal('it');
    expect(el.getAttribute('lang')).to.equal('it');

    const own = await fixture<BioVerify>(`<bio-verify ${ATTRS} lang="pt"></bio-verify>`);
    expect(textLang(own)).to.equal('en');
    own.strings = { verify: 'Verificar impressão digital' };
    await own.updateComplete;
    expect(textLang(own)).to.equal('pt');

    const de = await fixture<BioVerify>(`<bio-verify ${ATTRS} lang="de"></bio-verify>`);
    // Built in, once its table has arrived (src/elements/parts/localize.ts): English, marked en, until then.
    await waitUntil(() => textLang(de) === 'de', 'not marked de');
    // A regional English keeps its region (the voice of that English).
    const gb = await fixture<BioVerify>(`<bio-verify ${ATTRS} lang="en-GB"></bio-verify>`);
    expect(textLang(gb)).to.equal('en-GB');
  });

  it('WCAG 3.1.2: <bio-diagnostics> marks its loading state and its panel, which render in the same shadow root', async () => {
    const el = await fixture<BioDiagnostics>(`<bio-diagnostics ${ATTRS} lang="it"></bio-diagnostics>`);
    expect(textLang(el)).to.equal('en');
    await el.start();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[part="rows"]')).to.exist;
    expect(textLang(el)).to.equal('en');
    el.setAttribute('lang', 'fr');
    await waitUntil(() => textLang(el) === 'fr', 'not marked fr');
  });

  it('each translation has every string, with the same placeholders as English', () => {
    const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort().join();
    const catalogs = { de: { ...de, ...diagnostics.de }, fr: { ...fr, ...diagnostics.fr }, es: { ...es, ...diagnostics.es } };
    for (const [lang, catalog] of Object.entries(catalogs)) {
      for (const key of Object.keys(en) as (keyof typeof en)[]) {
        expect(catalog[key], `${lang}.${key}`).to.be.a('string').and.not.equal('');
        expect(placeholders(catalog[key]), `${lang}.${key}`).to.equal(placeholders(en[key]));
      }
      expect(catalog.advicePin, `${lang}.advicePin names no attribute: the person at the reader reads it`).not.to.contain('-id');
      expect(catalog.enroll).not.to.equal(en.enroll);
    }
  });

  it('right-to-left: the element follows the page direction; list indents sit on the start (right) side', async () => {
    const root = await fixture(`<div dir="rtl" lang="ar"><bio-search ${ATTRS}></bio-search></div>`);
    const el = root.querySelector('bio-search')!;
    await el.start();
    await el.updateComplete;
    const list = el.shadowRoot!.querySelector('[part="results"]')!;
    expect(getComputedStyle(list).direction).to.equal('rtl');
    expect(parseFloat(getComputedStyle(list).paddingRight)).to.be.greaterThan(0);
    expect(getComputedStyle(list).paddingLeft).to.equal('0px');
    await expect(root).to.be.accessible();
  });
});
