import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { watchReaderStatus, type ReaderState, type ReaderStatus } from '../core/status-watch.js';
import { BioElement } from './bio-element.js';
import { asBioIDError, errorDetail, type BioErrorDetail } from './events.js';
import type { StringKey } from './localize.js';
import { onPageConfigChange, statusOptionsFor, type SettingName } from './settings.js';

/**
 * Shows which workstation and fingerprint device the operations will use, discovered from the local
 * hardware service (the page-wide status watch: polled while shown, paused while the page is hidden,
 * stopped when removed) or pinned by `workstation-id` + `device-id` (never polled). It needs no
 * middleware and no token. When the local service cannot be reached it says what to do: start the
 * companion application, allow the browser's local-network prompt (or unblock it, when the browser
 * reports it blocked), or pin the ids.
 *
 * @tag bio-reader-status
 * @fires {BioStatusDetail} bio-status - On each state change. detail `{ state, workstationId?, deviceId?, pinned }`.
 * @csspart indicator - The coloured dot before the state.
 * @csspart state - The live region with the state text.
 * @csspart details - The workstation and device ids.
 * @csspart advice - What to do when the reader service cannot be reached.
 */
export class BioReaderStatus extends BioElement {
  static override properties = {
    status: { state: true, attribute: false },
    failure: { state: true, attribute: false },
    permission: { state: true, attribute: false },
  };

  /** The latest status reported by the core (undefined before the first one). */
  declare status: ReaderStatus | undefined;
  protected declare failure: BioErrorDetail | undefined;
  protected declare permission: PermissionState | undefined;

  private unwatch: (() => void) | undefined;
  private stale = true;
  private unlisten: (() => void) | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    this.stale = true;
    this.unlisten = onPageConfigChange(() => {
      this.stale = true;
      this.requestUpdate();
    });
    if (this.hasUpdated) this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unlisten?.();
    this.stop();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const configChanged = WATCHED.some((name) => changed.has(name));
    // (Re)start watching here, not in updated(): status set synchronously now needs no second render.
    if (this.isConnected && (this.stale || configChanged)) this.restart();
  }

  private restart(): void {
    this.stale = false;
    this.stop();
    this.failure = undefined;
    this.status = undefined;
    try {
      this.unwatch = watchReaderStatus(statusOptionsFor(this.localName, this.settings()), (status) => this.report(status));
    } catch (error) {
      this.failure = errorDetail('status', asBioIDError(error));
      this.emit('bio-error', this.failure);
    }
  }

  private stop(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }

  private report(status: ReaderStatus): void {
    if (!this.isConnected) return;
    this.status = status;
    const { state, pinned, workstationId, deviceId } = status;
    this.emit('bio-status', {
      state,
      pinned,
      ...(workstationId !== undefined ? { workstationId } : {}),
      ...(deviceId !== undefined ? { deviceId } : {}),
    });
    if (state === 'unreachable') void this.checkPermission();
  }

  /**
   * Chromium's Local Network Access asks the user before a public page may reach localhost; where the
   * Permissions API knows that permission, its state tells "blocked" from "not yet asked". Elsewhere the
   * query throws and the advice stays general.
   */
  private async checkPermission(): Promise<void> {
    try {
      this.permission = (await navigator.permissions.query({ name: 'local-network-access' as PermissionName })).state;
    } catch {
      this.permission = undefined; // a browser without this permission
    }
  }

  protected override render(): TemplateResult {
    const { status, failure } = this;
    const term = (key: StringKey) => this.localize.term(key);
    const state = failure ? 'config' : (status?.state ?? 'checking');
    return html`
      <div part="base" class="base">
        <div class="row">
          <span part="indicator" class="dot ${state}"></span>
          <p part="state" class="status" role="status">${term(failure ? 'config' : STATE_TEXT[state as ReaderState])}</p>
        </div>
        ${status?.workstationId
          ? html`
              <dl part="details">
                <dt>${term('workstation')}</dt>
                <dd>${status.workstationId}</dd>
                ${status.deviceId ? html`<dt>${term('device')}</dt><dd>${status.deviceId}</dd>` : nothing}
              </dl>
            `
          : nothing}
        ${state === 'unreachable'
          ? html`
              <ul part="advice">
                <li>${term('adviceStart')}</li>
                <li>${term(this.permission === 'denied' ? 'adviceBlocked' : 'advicePrompt')}</li>
                <li>${term('advicePin')}</li>
              </ul>
            `
          : nothing}
        ${failure ? html`<p part="error" class="detail">${failure.message}</p>` : nothing}
      </div>
    `;
  }
}

/** The settings a status watch reads. */
const WATCHED: SettingName[] = ['workstationId', 'deviceId', 'localServiceUrl', 'timeoutMs'];

const STATE_TEXT: Record<ReaderState, StringKey> = {
  checking: 'locating',
  ready: 'ready',
  'no-device': 'no-device',
  unreachable: 'local-service-unreachable',
  error: 'status-error',
  pinned: 'pinned',
};
