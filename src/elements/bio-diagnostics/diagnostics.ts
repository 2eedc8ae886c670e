/**
 * What `<bio-diagnostics>` shows and does once its code is there: the rows of its checks (checks.ts), the
 * report, "copy report", and its strings in each language. The element (bio-diagnostics.ts) loads this
 * module on first use: the script-tag bundle carries it as a file of its own, `bioid-diagnostics.js`,
 * next to `bioid-elements.js` (docs/elements.md); a bundler splits it off as it does any `import()`.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { version } from '../../version.js';
import { ROWS, runChecks, type Row, type RowId } from './checks.js';
import { translations, type LocalizeController } from '../parts/localize.js';
import type { Settings } from '../parts/settings.js';
import { de, en, es, fr } from '../translations/diagnostics.js';

/** A finding word by word, each a unit the line breaks around (src/elements/parts/styles.ts), not after an id's hyphen. */
const words = (text: string | undefined) => text?.split(' ').map((word, i) => html`${i ? ' ' : ''}<span>${word}</span>`);

// The strings of the panel join the built-in languages (a page's own strings still come first, src/elements/parts/localize.ts).
for (const [lang, strings] of Object.entries({ en, de, fr, es })) Object.assign(translations[lang], strings);

/** What the panel needs of its element. */
export interface PanelHost {
  readonly element: HTMLElement & {
    readonly renderRoot: HTMLElement | DocumentFragment;
    readonly updateComplete: Promise<boolean>;
    requestUpdate(): void;
  };
  settings(): Settings;
  readonly localize: LocalizeController;
}

export class DiagnosticsPanel {
  #rows: Partial<Record<RowId, Row>> = {};
  /** The test capture's image (a data:image/ URL within the cap, checks.ts), when it came with one. */
  #image: string | undefined;
  /** The outcome of "copy report": true when copied, false when the report is shown selected instead. */
  #copied: boolean | undefined;
  #running: Promise<string> | undefined;
  readonly #host: PanelHost;

  constructor(host: PanelHost) {
    this.#host = host;
  }

  /** Runs every check (unless they are running); resolves with the report once each row has its status word. */
  start(): Promise<string> {
    return (this.#running ??= this.#check().finally(() => (this.#running = undefined)));
  }

  #update(change: () => void): void {
    change();
    this.#host.element.requestUpdate();
  }

  async #check(): Promise<string> {
    // The settings first: a wrong one (a blank id) rejects start() and leaves the rows as they were, not checking.
    const settings = this.#host.settings();
    this.#update(() => {
      this.#rows = {};
      this.#image = this.#copied = undefined;
    });
    await runChecks(
      this.#host.element.localName,
      settings,
      (id, row) => this.#update(() => (this.#rows = { ...this.#rows, [id]: row })),
      (capture) => this.#update(() => (this.#image = capture.image)),
    );
    return this.report;
  }

  /** The rows as shown and reported: each check, then the SDK version and the browser. */
  #lines(): [string, Partial<Row>][] {
    return [
      ...ROWS.map((id): [string, Row] => [id, this.#rows[id] ?? { status: 'checking' }]),
      ['sdk', { found: version }],
      ['browser', { found: navigator.userAgent }],
    ];
  }

  /** The plain-text report that "copy report" copies: each row's status word, findings, code and message; never a token. */
  get report(): string {
    const rows = this.#lines().map(([id, row]) => [`${id}:`, row.status, row.found, row.code, row.message].filter(Boolean).join(' '));
    return [`bioid-sdk diagnostics ${new Date().toISOString()} ${location.origin}${location.pathname}`, ...rows].join('\n');
  }

  #copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(this.report);
      this.#update(() => (this.#copied = true));
    } catch {
      // No clipboard access (an insecure page, a denied permission): the report is shown selected instead.
      this.#update(() => (this.#copied = false));
      await this.#host.element.updateComplete;
      this.#host.element.renderRoot.querySelector('textarea')!.select();
    }
  };

  render(): TemplateResult {
    const image = this.#image;
    const copied = this.#copied;
    const { localize } = this.#host;
    return html`
      <div part="base" class="base">
        <dl part="rows">
          ${this.#lines().map(
            ([id, { status, found, cause, message }]) => html`<dt>${id}</dt>
              <dd part="row" data-row=${id}>
                ${status ? html`<span part="word" data-status=${status} class=${status === 'ok' ? 'done' : status === 'checking' ? '' : 'failed'}>${status}</span>` : nothing}
                <span part="finding" title=${id === 'browser' ? found! : nothing}>${id === 'browser' ? found : words(found)} ${cause ? localize.term(cause) : ''}</span>
                ${message ? html`<p part="error" class="detail">${message}</p>` : nothing}
              </dd>`,
          )}
        </dl>
        ${image ? html`<img part="image" src=${image} alt="test-capture" width="160" />` : nothing}
        <button part="button" type="button" @click=${this.#copy}>${localize.term('copyReport')}</button>
        <p class="status" role="status">${copied ? localize.term('copied') : ''}</p>
        ${copied === false ? html`<textarea part="report" readonly rows="8" aria-label=${localize.term('copyReport')} .value=${this.report}></textarea>` : nothing}
      </div>
    `;
  }
}
