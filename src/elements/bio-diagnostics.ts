import { html, nothing, type TemplateResult } from 'lit';
import type { TestCaptureResult } from '../core/discovery.js';
import { version } from '../version.js';
import { BioElement } from './bio-element.js';
import { ROWS, runChecks, type Row, type RowId } from './diagnose.js';

/**
 * One panel support staff can ask a user to open: the local fingerprint service (reachable, workstation,
 * connected devices), a test capture with its image and quality, whether the token broker gives a token
 * (and if not, why: no session, cookie blocked, anti-CSRF or origin check, broker down), whether the
 * middleware answers (a GET of `{middleware-url}/` without a token: any HTTP answer counts), the SDK
 * version and the browser. Each check's row has its own status word: ok, blocked, unreachable or
 * refused. Row names and status words are the report's words (English, for support staff); the cause of
 * a failure is said in the page's language, with the technical detail below it. The checks run when the
 * element is connected, and again on `start()`; "copy report" copies the report, which never holds a
 * token. It reads the attributes of the other elements, and asks the local service even when
 * workstation-id and device-id are set.
 *
 * @tag bio-diagnostics
 * @csspart rows - The list of checks, then the SDK version and the browser.
 * @csspart row - One row (`data-row` is its name in the report: local-service, test-capture, token-broker, middleware, sdk, browser).
 * @csspart word - A check's status word (`data-status`: checking, ok, blocked, unreachable, refused).
 * @csspart image - The test capture's image.
 * @csspart button - The "copy report" button.
 * @csspart report - The report, selected, when the clipboard could not be written.
 */
export class BioDiagnostics extends BioElement {
  static override properties = {
    rows: { state: true, attribute: false },
    capture: { state: true, attribute: false },
    copied: { state: true, attribute: false },
  };

  protected declare rows: Partial<Record<RowId, Row>>;
  protected declare capture: TestCaptureResult | undefined;
  /** The outcome of "copy report": true when copied, false when the report is shown selected instead. */
  protected declare copied: boolean | undefined;
  private running: Promise<string> | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.start();
  }

  /** Runs every check (unless they are running); resolves with the report once each row has its status word. */
  start(): Promise<string> {
    return (this.running ??= this.check().finally(() => (this.running = undefined)));
  }

  private async check(): Promise<string> {
    this.rows = {};
    this.capture = this.copied = undefined;
    await runChecks(
      this.localName,
      this.settings(),
      (id, row) => (this.rows = { ...this.rows, [id]: row }),
      (capture) => (this.capture = capture),
    );
    return this.report;
  }

  /** The rows as shown and reported: each check, then the SDK version and the browser. */
  private lines(): [string, Partial<Row>][] {
    return [
      ...ROWS.map((id): [string, Row] => [id, this.rows[id] ?? { status: 'checking' }]),
      ['sdk', { found: version }],
      ['browser', { found: navigator.userAgent }],
    ];
  }

  /** The plain-text report that "copy report" copies: each row's status word, findings, code and message; never a token. */
  get report(): string {
    const rows = this.lines().map(([id, row]) => [`${id}:`, row.status, row.found, row.code, row.message].filter(Boolean).join(' '));
    return [`bioid-sdk diagnostics ${new Date().toISOString()} ${location.origin}${location.pathname}`, ...rows].join('\n');
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.report);
      this.copied = true;
    } catch {
      // No clipboard access (an insecure page, a denied permission): the report is shown selected instead.
      this.copied = false;
      await this.updateComplete;
      this.renderRoot.querySelector('textarea')!.select();
    }
  }

  protected override render(): TemplateResult {
    const { capture, copied, localize } = this;
    return html`
      <div part="base" class="base">
        <dl part="rows">
          ${this.lines().map(
            ([id, { status, found, cause, message }]) => html`<dt>${id}</dt>
              <dd part="row" data-row=${id}>
                ${status ? html`<span part="word" data-status=${status} class=${status === 'ok' ? 'done' : status === 'checking' ? '' : 'failed'}>${status}</span>` : nothing}
                ${found} ${cause ? localize.term(cause) : ''}
                ${message ? html`<p part="error" class="detail">${message}</p>` : nothing}
              </dd>`,
          )}
        </dl>
        ${capture?.image ? html`<img part="image" src=${capture.image} alt="test-capture" width="160" />` : nothing}
        <button part="button" type="button" @click=${this.copy}>${localize.term('copyReport')}</button>
        <p class="status" role="status">${copied ? localize.term('copied') : ''}</p>
        ${copied === false ? html`<textarea part="report" readonly rows="8" aria-label=${localize.term('copyReport')} .value=${this.report}></textarea>` : nothing}
      </div>
    `;
  }
}
