import { expect, fixture, waitUntil } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioVerify } from '../../src/elements/index.js';
import { translations } from '../../src/elements/localize.js';
import { en } from '../../src/elements/translations/en.js';
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
    expect(buttonText(el)).to.equal('Fingerabdruck prüfen');
    await el.start();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('Fingerabdruck bestätigt.');
    el.setAttribute('lang', 'fr');
    await el.updateComplete;
    expect(buttonText(el)).to.equal('Vérifier l’empreinte');
    expect(el.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('Empreinte vérifiée.');
  });

  it('follows the nearest ancestor lang, and its changes', async () => {
    const root = await fixture(`<div lang="es"><section><bio-verify ${ATTRS} subject-id="alice"></bio-verify></section></div>`);
    const el = root.querySelector('bio-verify')!;
    expect(buttonText(el)).to.equal('Verificar huella');
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

  it('each translation has every string, with the same placeholders as English', () => {
    const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort().join();
    for (const lang of ['de', 'fr', 'es']) {
      const catalog = translations[lang]!;
      for (const key of Object.keys(en) as (keyof typeof en)[]) {
        expect(catalog[key], `${lang}.${key}`).to.be.a('string').and.not.equal('');
        expect(placeholders(catalog[key]), `${lang}.${key}`).to.equal(placeholders(en[key]));
      }
      expect(catalog.advicePin).to.contain('workstation-id');
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
