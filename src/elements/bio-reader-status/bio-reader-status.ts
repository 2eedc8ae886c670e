import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { own } from '../../core/config.js';
import { BioIDError } from '../../core/errors.js';
import { connectLocalService, watchReaderStatus, type ReaderState, type ReaderStatus } from '../../core/status-watch.js';
import { BioElement } from '../base/bio-element.js';
import { asBioIDError, errorDetail, type BioErrorDetail } from '../parts/events.js';
import { failureKey } from '../parts/failure-key.js';
import type { StringKey } from '../parts/localize.js';
import { baseStyles, statusReserve } from '../parts/styles.js';
import { onPageConfigChange, statusOptionsFor, WATCHED_SETTINGS } from '../parts/settings.js';

/**
 * Shows which workstation and fingerprint device the operations will use, discovered from the local
 * hardware service (the page-wide status watch: polled while shown, paused while the page is hidden,
 * stopped when removed) or pinned by `workstation-id` + `device-id` (never polled). It needs no
 * middleware and no token. When the local service cannot be reached it says what to do: start the
 * companion application, allow the browser's local-network prompt, or pin the ids. Where the browser
 * asks the user before a page reaches this computer (Chromium's Local Network Access), it asks nothing
 * on load: it shows a connect button, and polls once the user clicks it (or starts an operation); when
 * the browser blocks it, it says how to allow it and fires `bio-error` with code `local-network-blocked`.
 * A configuration it cannot watch with reads as the operation cards' failures do: a headline and one sentence
 * for the person at the reader; the technical message goes to `bio-error`'s detail and one console line.
 *
 * @tag bio-reader-status
 * @fires {BioStatusDetail} bio-status - On each state change. detail `{ state, workstationId?, deviceId?, pinned }`.
 * @csspart indicator - The coloured dot before the state.
 * @csspart state - The live region with the state text.
 * @csspart details - The workstation and device ids.
 * @csspart advice - What to do when the reader service cannot be reached.
 * @csspart connect - The button that lets the page reach this computer's reader, while the browser would ask first.
 */
export class BioReaderStatus extends BioElement {
  static override styles = [baseStyles, statusReserve];
  static override properties = {
    status: { state: true, attribute: false },
    failure: { state: true, attribute: false },
  };

  /** The latest status reported by the core (undefined before the first one). */
  declare status: ReaderStatus | undefined;
  declare protected failure: BioErrorDetail | undefined;

  #unwatch: (() => void) | undefined;
  /** Set on connecting and by configureElements(): the next update starts a new watch. */
  #stale: boolean | undefined;
  #unlisten: (() => void) | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    this.#stale = true;
    this.#unlisten = onPageConfigChange(() => {
      this.#stale = true;
      this.requestUpdate();
    });
    if (this.hasUpdated) this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#unlisten?.();
    this.#stop();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const configChanged = WATCHED_SETTINGS.some((name) => changed.has(name));
    // (Re)start watching here, not in updated(): status set synchronously now needs no second render.
    if (this.isConnected && (this.#stale || configChanged)) this.#restart();
  }

  #restart(): void {
    this.#stale = false;
    this.#stop();
    this.failure = undefined;
    this.status = undefined;
    try {
      this.#unwatch = watchReaderStatus(statusOptionsFor(this.localName, this.settings()), (status) => this.#report(status));
    } catch (error) {
      const failure = (this.failure = errorDetail('status', asBioIDError(error)));
      // The technical detail for developers, as on the cards: one console line and bio-error's detail.
      console.warn(`bioid-sdk: <${this.localName}> ${failure.code}: ${failure.message}`);
      this.emit('bio-error', failure);
    }
  }

  #stop(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  #report(status: ReaderStatus): void {
    if (!this.isConnected) return;
    this.status = status;
    const { state, pinned, workstationId, deviceId } = status;
    // The ids only when known (the core never reports an empty one).
    this.emit('bio-status', { state, pinned, ...(workstationId && { workstationId }), ...(deviceId && { deviceId }) });
    // Blocked is not "not running": the code tells the page which one (docs/elements.md).
    if (state === 'blocked') this.emit('bio-error', errorDetail('status', new BioIDError('local-network-blocked', status.message ?? '')));
  }

  protected override render(): TemplateResult {
    const { status, failure } = this;
    const term = (key: StringKey) => this.localize.term(key);
    const state = failure ? 'config' : (status?.state ?? 'checking');
    // A failure reads as the cards' do: its headline in the state line, its sentence below; never its message.
    const failed = failure && failureKey(failure.code);
    return html`
      <div part="base" class="base">
        <div class="row">
          <span part="indicator" class="dot ${state}"></span>
          <p part="state" class="status" role="status">${term((failed ? `${failed}.title` : (own(STATE_TEXT, state) ?? state)) as StringKey)}</p>
        </div>
        ${
          status?.workstationId
            ? html`
              <dl part="details">
                <dt>${term('workstation')}</dt>
                <dd>${status.workstationId}</dd>
                ${status.deviceId ? html`<dt>${term('device')}</dt><dd>${status.deviceId}</dd>` : nothing}
              </dl>
            `
            : nothing
        }
        ${
          state === 'prompt'
            ? html`<button part="connect" type="button" @click=${connectLocalService}>${term('connect')}</button>`
            : nothing
        }
        ${
          ADVICE[state]
            ? html`
              <ul part="advice">
                ${ADVICE[state].map((key) => html`<li>${term(key)}</li>`)}
              </ul>
            `
            : nothing
        }
        ${failed ? html`<p part="error" class="detail">${term(failed)}</p>` : nothing}
      </div>
    `;
  }
}

/**
 * The string of each state whose name is not a string key itself; the others (ready, no-device, prompt,
 * pinned) are their own keys. A new state is a string key or needs an entry here: the type says which.
 * Read through own(): a polluted Object.prototype names no string.
 */
const STATE_TEXT: Record<Exclude<ReaderState, StringKey>, StringKey> = {
  checking: 'locating',
  unreachable: 'local-service-unreachable',
  blocked: 'local-network-blocked',
  error: 'status-error',
};

/** What to do, by state. */
const ADVICE: Partial<Record<string, StringKey[]>> = {
  unreachable: ['adviceStart', 'advicePrompt', 'advicePin'],
  blocked: ['adviceBlocked', 'advicePin'],
};
