/**
 * docs/elements.md, "What the person at the reader reads": every failure an operation card can show reads
 * as a headline and one sentence with the next step, in each built-in language, and never holds a URL, an
 * HTTP status or a wire code; that detail stays in bio-error's detail and one console line. So does
 * `<bio-reader-status>` when its settings cannot be watched with.
 */
import { expect, fixture } from '@open-wc/testing';
import { waitUntil } from '../support/wait.js';
import '../../src/elements/index.js';
import { BioVerify } from '../../src/elements/index.js';
import type { BioErrorCode, BioErrorDetail } from '../../src/elements/parts/events.js';
import { BioIDError } from '../../src/core/errors.js';
import { en } from '../../src/elements/translations/en.js';
import { de } from '../../src/elements/translations/de.js';
import { fr } from '../../src/elements/translations/fr.js';
import { es } from '../../src/elements/translations/es.js';
import { json } from '../support/fake-network.js';
import { ATTRS, MIDDLEWARE, installNetwork, restoreNetwork } from './network.js';

/** Every bio-error code: the compiler fails here when a code is added without being walked. */
const CODES: Record<BioErrorCode, true> = {
  config: true,
  'browser-too-old': true,
  auth: true,
  'session-expired': true,
  'broker-unavailable': true,
  'cookie-blocked': true,
  unauthorized: true,
  forbidden: true,
  'not-found': true,
  'verification-rejected': true,
  'workstation-offline': true,
  middleware: true,
  'bad-response': true,
  timeout: true,
  network: true,
  aborted: true,
  'local-service-unreachable': true,
  'local-network-blocked': true,
  'no-device': true,
  'local-service': true,
  unknown: true,
};
const LANGS = ['en', 'de', 'fr', 'es'];
/** What a developer's message holds: the URL, the status, the wire code and the server's own words. */
const TECHNICAL =
  'The middleware at http://127.0.0.1:18081/orchestrator/verify answered HTTP 404: subject_not_enrolled: Subject "demo" has no enrolled fingerprint; enroll it first.';
/** A URL, an HTTP status (a three-digit number), a wire code (snake_case) or a server's quoted words. */
const NOT_FOR_PEOPLE = /https?:|\/\/|\bHTTP\b|\b[1-5]\d\d\b|\b[a-z]+_[a-z_]+\b|"/;

/** A <bio-verify> (or, for `operation`, the other tags' failures alike) whose operation fails with `code`. */
class FailingVerify extends BioVerify {
  static code: BioErrorCode = 'unknown';
  protected override perform(): Promise<never> {
    const { code } = FailingVerify;
    return Promise.reject(code === 'unknown' ? new Error(TECHNICAL) : new BioIDError(code, TECHNICAL, { status: 404 }));
  }
}
customElements.define('test-failing-verify', FailingVerify);

/** The card's text: the status line (headline) and the footer (sentence), as a person sees them. */
function card(el: Element) {
  const root = el.shadowRoot!;
  return {
    headline: root.querySelector('[part="status"]')!.textContent!.trim(),
    sentence: root.querySelector('[part="error"]')?.textContent?.trim() ?? '',
    all: root.textContent!.replace(/\s+/g, ' '),
  };
}

describe('the words on a card: a headline and a next step for people, in four languages, never the technical detail', () => {
  const warn = console.warn;
  let lines: string[];
  beforeEach(() => {
    lines = [];
    console.warn = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  });
  afterEach(() => {
    console.warn = warn;
  });

  for (const lang of LANGS) {
    it(`${lang}: every code shows its headline and sentence, with no URL, status or wire code on the card`, async () => {
      const seen: string[] = [];
      // German, French and Spanish load on use (src/elements/parts/localize.ts): wait once for the table, then every card has it.
      const probe = await fixture(`<test-failing-verify lang="${lang}" ${ATTRS} subject-id="alice"></test-failing-verify>`);
      await waitUntil(() => (probe.shadowRoot!.firstElementChild as HTMLElement).lang === lang, `${lang} did not arrive`);
      probe.remove();
      for (const code of Object.keys(CODES) as BioErrorCode[]) {
        FailingVerify.code = code;
        const el = await fixture<FailingVerify>(`<test-failing-verify lang="${lang}" ${ATTRS} subject-id="alice"></test-failing-verify>`);
        let detail: BioErrorDetail | undefined;
        el.addEventListener('bio-error', (e) => (detail = e.detail));
        await el.start().catch(() => undefined);
        await el.updateComplete;
        const { headline, sentence, all } = card(el);
        expect(headline, `${lang} ${code}: headline`).to.not.equal('');
        expect(sentence, `${lang} ${code}: sentence`).to.match(/\.$/);
        expect(all, `${lang} ${code}: the card`).to.not.match(NOT_FOR_PEOPLE);
        // The detail is for developers: the event and one console line carry it whole.
        expect(detail?.message, `${lang} ${code}: bio-error's detail`).to.equal(TECHNICAL);
        expect(
          lines.filter((line) => line.includes(TECHNICAL)),
          `${lang} ${code}: one console line`,
        ).to.have.length(1);
        lines = [];
        if (lang !== 'en') {
          el.lang = 'en';
          await el.updateComplete;
          expect(card(el).sentence, `${lang} ${code}: translated`).to.not.equal(sentence);
        }
        seen.push(`${headline}|${sentence}`);
        el.remove();
      }
      expect(seen).to.have.length(Object.keys(CODES).length);
    });
  }

  /** Settings <bio-reader-status> cannot watch with: its message names the field, and for a value that is no URL, an example URL too. */
  const UNWATCHABLE = ['local-service-url="http://[bad"', 'device-id="dev-1"', 'local-service-url="ftp://127.0.0.1:18065/"'];

  for (const lang of LANGS) {
    it(`${lang}: <bio-reader-status> shows a setup failure as the cards do, in words, with no URL, status or wire code`, async () => {
      for (const attrs of UNWATCHABLE) {
        let detail: BioErrorDetail | undefined;
        const listener = (e: CustomEvent<BioErrorDetail>) => (detail = e.detail);
        document.addEventListener('bio-error', listener);
        const el = await fixture(`<bio-reader-status lang="${lang}" ${attrs}></bio-reader-status>`);
        document.removeEventListener('bio-error', listener);
        await waitUntil(() => (el.shadowRoot!.firstElementChild as HTMLElement).lang === lang, `${lang} did not arrive`);
        const root = el.shadowRoot!;
        const headline = root.querySelector('[part="state"]')!.textContent!.trim();
        const sentence = root.querySelector('[part="error"]')?.textContent?.trim() ?? '';
        const all = root.textContent!.replace(/\s+/g, ' ');
        const tables = { en, de, fr, es } as Record<string, typeof en>;
        expect(headline, `${lang} ${attrs}: headline`).to.equal(tables[lang]!['config.title']);
        expect(sentence, `${lang} ${attrs}: sentence`).to.equal(tables[lang]!.config);
        expect(all, `${lang} ${attrs}: the element`).to.not.match(NOT_FOR_PEOPLE);
        // The detail is for developers: the event and one console line carry it; the element shows none of it.
        expect(detail?.code, `${lang} ${attrs}: bio-error`).to.equal('config');
        expect(all, `${lang} ${attrs}: the message`).to.not.contain(detail!.message.slice(0, 20));
        expect(
          lines.filter((line) => line.includes(detail!.message)),
          `${lang} ${attrs}: one console line`,
        ).to.have.length(1);
        lines = [];
        el.remove();
      }
    });
  }

  it('a verify of someone never enrolled says so and says to enroll first (the middleware’s 404 as it comes)', async () => {
    installNetwork((net) =>
      net.on('POST', `${MIDDLEWARE}/orchestrator/verify`, () =>
        json({ error: 'subject_not_enrolled', message: 'Subject "demo" has no enrolled fingerprint; enroll it first.' }, 404),
      ),
    );
    try {
      const el = await fixture<BioVerify>(`<bio-verify ${ATTRS} subject-id="demo"></bio-verify>`);
      await el.start().catch(() => undefined);
      await el.updateComplete;
      expect(card(el).headline).to.equal(en['not-enrolled.title']);
      expect(card(el).sentence).to.equal(en['not-enrolled']);
      expect(card(el).all).to.not.match(NOT_FOR_PEOPLE);
      expect(lines.join('\n')).to.contain('subject_not_enrolled');
    } finally {
      restoreNetwork();
    }
  });
});
