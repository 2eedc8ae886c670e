import { html, type TemplateResult } from 'lit';
import { BioIDError, messageOf } from '../../core/errors.js';
import { BioElement } from '../base/bio-element.js';
import type { DiagnosticsPanel } from './diagnostics.js';
import { errorDetail } from '../parts/events.js';
import { timeoutOf } from '../parts/settings.js';

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
 * The tag is defined with the others, but its code loads on first use (diagnostics.ts; from the script
 * tag, the file `bioid-diagnostics.js` next to `bioid-elements.js`): until then it shows the status word
 * `loading`. A file that does not load is a `config` failure, fired as `bio-error` and shown, naming the URL;
 * one not there within `timeout-ms`, a `timeout` failure.
 *
 * @tag bio-diagnostics
 * @fires {BioErrorDetail} bio-error - When its code does not load (`operation: 'diagnostics'`, `code: 'config'`, the message names the file's URL), or not within `timeout-ms` (`code: 'timeout'`).
 * @csspart rows - The list of checks, then the SDK version and the browser.
 * @csspart row - One row (`data-row` is its name in the report: local-service, test-capture, token-broker, middleware, sdk, browser).
 * @csspart word - A check's status word (`data-status`: loading, checking, ok, blocked, unreachable, refused).
 * @csspart finding - What a check found (a reachable middleware: `reachable (HTTP 401 without a token)`), and the cause of a failure in the page's language.
 * @csspart image - The test capture's image.
 * @csspart button - The "copy report" button.
 * @csspart report - The report, selected, when the clipboard could not be written.
 */
export class BioDiagnostics extends BioElement {
  static override properties = {
    panel: { state: true, attribute: false },
    failure: { state: true, attribute: false },
  };

  declare protected panel: DiagnosticsPanel | undefined;
  /** Why the code did not load: its message, shown under the summary. */
  declare protected failure: string | undefined;
  // The summary above it: a file that did not come in time is a connection failure, any other a setup failure.
  #summary: 'network' | 'config' = 'config';
  #loading: Promise<DiagnosticsPanel> | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    // A failure is fired as bio-error and shown; here it has no one else to tell.
    this.start().catch(() => undefined);
  }

  /**
   * Runs every check (unless they are running); resolves with the report once each row has its status word.
   * Rejects with a `config` BioIDError when the element's code does not load, `timeout` when not within `timeout-ms`.
   */
  async start(): Promise<string> {
    return (await this.#load()).start();
  }

  /** The plain-text report that "copy report" copies; empty until the element's code has loaded. */
  get report(): string {
    return this.panel?.report ?? '';
  }

  #load(): Promise<DiagnosticsPanel> {
    // One load at a time; a failed one is not kept, so the next start() asks again. One that hangs fails at timeout-ms.
    return (this.#loading ??= Promise.race([
      import('./diagnostics.js'),
      new Promise<never>((_, reject) => {
        const ms = timeoutOf(this.settings());
        setTimeout(() => reject(new BioIDError('timeout', `bioid-diagnostics.js did not load within ${ms} ms.`)), ms);
      }),
    ]).then(
      ({ DiagnosticsPanel }) =>
        (this.panel ??= new DiagnosticsPanel({ element: this, settings: () => this.settings(), localize: this.localize })),
      (error: unknown) => {
        this.#loading = undefined;
        // A BioIDError as it is (the loader's config error, the timeout); anything else, a TypeError included, as a config error with its message.
        const failure = error instanceof BioIDError ? error : new BioIDError('config', messageOf(error), { cause: error });
        this.#summary = failure.code === 'timeout' ? 'network' : 'config';
        this.failure = failure.message;
        this.emit('bio-error', errorDetail('diagnostics', failure));
        throw failure;
      },
    ));
  }

  protected override render(): TemplateResult {
    if (this.panel) return this.panel.render();
    const { failure } = this;
    return html`<div part="base" class="base" role="status">
      ${
        failure
          ? html`<p class="failed">${this.localize.term(this.#summary)}</p><p part="error" class="detail">${failure}</p>`
          : html`<span part="word" data-status="loading">loading</span>`
      }
    </div>`;
  }
}
