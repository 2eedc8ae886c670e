/**
 * Markup as people type it (docs/elements.md, "Attributes"; one converter per kind of value,
 * src/elements/parts/attributes.ts): ids lose the spaces and line breaks around them, an id left blank is a
 * `config` error naming its attribute, a number attribute that is empty or not a number is its default,
 * and an enumerated value is read in any ASCII case, as HTML reads its own.
 */
import { expect, fixture, oneEvent } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioEnrolled, BioReaderStatus, BioSearch, BioVerify } from '../../src/elements/index.js';
import type { BioErrorDetail } from '../../src/elements/parts/events.js';
import { en } from '../../src/elements/translations/en.js';
import { hang } from '../support/fake-network.js';
import { LOCAL, MIDDLEWARE, TOKEN_PATH, installNetwork, restoreNetwork, type Net } from './network.js';

const WIRED = { 'middleware-url': MIDDLEWARE, 'token-endpoint': TOKEN_PATH, 'local-service-url': LOCAL };

/** `<tag>` with these attributes, each value written into the markup as it is (line breaks included). */
const markup = (tag: string, attributes: Record<string, string>) =>
  `<${tag} ${Object.entries(attributes)
    .map(([name, value]) => `${name}="${value}"`)
    .join(' ')}></${tag}>`;

/** The bio-error of `el`'s next operation (start() rejects with the same error). */
async function failureOf(el: HTMLElement & { start(): Promise<unknown> }): Promise<BioErrorDetail> {
  const failed = oneEvent(el, 'bio-error');
  el.start().catch(() => {});
  return ((await failed) as CustomEvent<BioErrorDetail>).detail;
}

describe('markup as people type it', () => {
  let net: Net;
  beforeEach(() => {
    net = installNetwork();
  });
  afterEach(() => {
    restoreNetwork();
    delete window.BioIDElementsConfig;
  });

  describe('ids are trimmed of the spaces and line breaks around them', () => {
    it('the dispatch carries alice, acme, ws-7, dev-1 and clerk-9, not the spaces and line breaks typed around them', async () => {
      const el = await fixture<BioVerify>(
        markup('bio-verify', {
          ...WIRED,
          'subject-id': ' alice\n',
          'integrator-id': '  acme\t',
          'workstation-id': '\n    ws-7 ',
          'device-id': ' dev-1\n  ',
          'agent-id': ' clerk-9 ',
        }),
      );
      expect(el.subjectId).to.equal('alice');
      await el.start();
      const [dispatch] = net.callsTo(`${MIDDLEWARE}/orchestrator/verify`);
      expect(dispatch!.headers.get('x-integrator-id')).to.equal('acme');
      expect(dispatch!.body).to.deep.equal({ workstationId: 'ws-7', deviceId: 'dev-1', subjectId: 'alice', agentId: 'clerk-9' });
    });

    it('a subject id in the path is the trimmed one: <bio-enrolled subject-id=" alice "> reads /biometrics/alice', async () => {
      const el = await fixture<BioEnrolled>(markup('bio-enrolled', { ...WIRED, 'subject-id': ' alice ' }));
      await el.start();
      expect(net.callsTo(`${MIDDLEWARE}/biometrics/alice`)).to.have.length(1);
    });
  });

  describe('an id left blank is a config bio-error naming its attribute; nothing is dispatched', () => {
    for (const attribute of ['subject-id', 'integrator-id', 'workstation-id', 'device-id', 'agent-id']) {
      it(`${attribute}="  \\n"`, async () => {
        const attributes = { ...WIRED, 'subject-id': 'alice', 'integrator-id': 'acme', 'workstation-id': 'ws-7', 'device-id': 'dev-1' };
        const el = await fixture<BioVerify>(markup('bio-verify', { ...attributes, [attribute]: '  \n' }));
        const detail = await failureOf(el);
        expect(detail).to.include({ operation: 'verify', code: 'config', retryable: false });
        expect(detail.message).to.contain(attribute);
        expect(net.callsTo(`${MIDDLEWARE}/orchestrator/verify`)).to.have.length(0);
      });
    }

    it('even where the page sets a default for it: the blank attribute is the mistake to name', async () => {
      window.BioIDElementsConfig = { integratorId: 'acme' };
      const el = await fixture<BioVerify>(markup('bio-verify', { ...WIRED, 'subject-id': 'alice', 'integrator-id': ' ' }));
      const detail = await failureOf(el);
      expect(detail).to.include({ code: 'config' });
      expect(detail.message).to.contain('<bio-verify>: integrator-id');
    });

    it('<bio-reader-status workstation-id=" "> fires it too, and shows it in words (the attribute named in the detail only)', async () => {
      const el = document.createElement('bio-reader-status') as BioReaderStatus;
      el.setAttribute('workstation-id', ' ');
      el.setAttribute('device-id', 'dev-1');
      const failed = oneEvent(el, 'bio-error');
      document.body.append(el);
      try {
        const { detail } = (await failed) as CustomEvent<BioErrorDetail>;
        expect(detail).to.include({ operation: 'status', code: 'config' });
        expect(detail.message).to.contain('workstation-id');
        await el.updateComplete;
        const shown = el.shadowRoot!.querySelector('[part="error"]')!.textContent!;
        expect(shown).to.contain(en.config);
        expect(shown).not.to.contain('workstation-id');
      } finally {
        el.remove();
      }
    });
  });

  describe('a number attribute that is empty or not a number is its default', () => {
    for (const value of ['', '   ', 'abc']) {
      it(`timeout-ms="${value}": no config error, the operation runs`, async () => {
        const el = await fixture<BioVerify>(markup('bio-verify', { ...WIRED, 'subject-id': 'alice', 'timeout-ms': value }));
        expect(el.timeoutMs).to.equal(undefined);
        expect((await el.start()).match).to.equal(true);
      });
    }

    it('timeout-ms="" falls back to the page default, as without the attribute: a broker that never answers fails after it', async () => {
      window.BioIDElementsConfig = { timeoutMs: 50 };
      net.on('GET', TOKEN_PATH, hang);
      const el = await fixture<BioSearch>(markup('bio-search', { ...WIRED, 'timeout-ms': '' }));
      const detail = await failureOf(el);
      expect(detail.code).to.equal('broker-unavailable');
      expect(detail.message).to.contain('50 ms');
    });

    it('a number stays a number, spaces around it or not, and a wrong one is still refused: timeout-ms=" 0 " is a config error', async () => {
      const el = await fixture<BioVerify>(markup('bio-verify', { ...WIRED, 'subject-id': 'alice', 'timeout-ms': ' 250 ' }));
      expect(el.timeoutMs).to.equal(250);
      el.setAttribute('timeout-ms', ' 0 ');
      const detail = await failureOf(el);
      expect(detail).to.include({ code: 'config' });
      expect(detail.message).to.contain('timeoutMs');
    });
  });

  describe('enumerated values in any ASCII case, as HTML reads its own', () => {
    const surfaceOf = (el: Element) => getComputedStyle(el.shadowRoot!.querySelector('[part="base"]')!).backgroundColor;
    /** The colour scheme of the card (its base part), which the theme picks. */
    const schemeOf = (el: Element) => getComputedStyle(el.shadowRoot!.querySelector('[part="base"]')!).colorScheme;

    it('theme="DARK" is dark: the property reads dark and the element looks as theme="dark" does; theme="Light" is light', async () => {
      const holder = await fixture<HTMLDivElement>(
        `<div>${['DARK', 'dark', 'Light', 'light'].map((theme) => markup('bio-verify', { ...WIRED, theme })).join('')}</div>`,
      );
      const [upper, dark, title, light] = [...holder.children] as BioVerify[];
      // The fixture awaits the holder only; each element's first render is in a task of its own (src/elements/parts/turn.ts).
      await Promise.all([upper, dark, title, light].map((el) => el!.updateComplete));
      expect([upper!.theme, title!.theme]).to.deep.equal(['dark', 'light']);
      expect(schemeOf(upper!)).to.equal('dark');
      expect(surfaceOf(upper!)).to.equal(surfaceOf(dark!));
      expect(schemeOf(title!)).to.equal('light');
      expect(surfaceOf(title!)).to.equal(surfaceOf(light!));
      expect(surfaceOf(dark!)).not.to.equal(surfaceOf(light!));
    });

    it('ASCII only: theme="DARK" spelt with the Kelvin sign (U+212A) is no theme, and the element follows the page', async () => {
      const holder = await fixture<HTMLDivElement>(
        `<div>${markup('bio-verify', { ...WIRED, theme: 'DAR\u212a' })}${markup('bio-verify', { ...WIRED })}</div>`,
      );
      const [kelvin, system] = [...holder.children] as BioVerify[];
      await Promise.all([kelvin!.updateComplete, system!.updateComplete]);
      expect(kelvin!.theme).not.to.equal('dark');
      expect(schemeOf(kelvin!)).to.equal(schemeOf(system!));
    });
  });
});
