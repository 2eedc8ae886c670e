import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { FingerprintReader } from '../core/reader.js';
import type { ReaderState, ReaderStatus } from '../core/status-watch.js';
import { errorDetail } from './error-detail.js';
import { emit, type BioErrorDetail } from './events.js';
import type { StringKey } from './i18n.js';
import { LocalizedElement, type Translate } from './localized-element.js';
import { onPageConfigChange } from './page-config.js';
import { buildReader, effectiveSettings, NO_TOKENS, readerProperties } from './reader-config.js';

/**
 * Shows which workstation and fingerprint device the operations will use, discovered from the local
 * hardware service (polled while shown; paused while the page is hidden; stopped when removed) or
 * pinned by `workstation-id` + `device-id` (never polled). When the local service cannot be reached it
 * says what to do: start the companion application, allow the browser's local-network prompt (or
 * unblock it, when the browser reports it blocked), or pin the ids.
 *
 * @tag bio-reader-status
 * @attr middleware-url - Address of the biometrics middleware (relative URLs resolve against the page).
 * @attr workstation-id - Pins the workstation; needs device-id too.
 * @attr device-id - Pins the device; needs workstation-id too.
 * @attr local-service-url - The local hardware service (default http://localhost:18065).
 * @attr timeout-ms - Bound on each network call (default 15000).
 * @fires bio-status - On each state change. detail `{ state, workstationId?, deviceId?, pinned }`.
 * @fires bio-error - On a configuration error (operation 'status').
 * @csspart base - The wrapper.
 * @csspart indicator - The coloured dot before the state.
 * @csspart state - The live region with the state text.
 * @csspart details - The workstation and device ids.
 * @csspart advice - What to do when the reader service cannot be reached.
 * @csspart error - The technical detail of a problem.
 * @cssprop --bio-ready-color - Dot colour when ready or pinned.
 * @cssprop --bio-warning-color - Dot colour while checking or without a device.
 * @cssprop --bio-error-color - Dot colour when unreachable or failed.
 * @cssprop --bio-muted-color - Colour of details.
 * @cssprop --bio-gap - Space between the parts.
 * @cssprop --bio-color - Text colour.
 * @cssprop --bio-font - Font.
 */
export class BioReaderStatus extends LocalizedElement {
  static override properties = {
    // All reader attributes, so one set fits every element; only the local-service ones matter here.
    ...readerProperties,
    status: { state: true, attribute: false },
    failure: { state: true, attribute: false },
    permission: { state: true, attribute: false },
  };

  /** Not called for status; accepted so one set of attributes fits every element. */
  declare middlewareUrl: string | undefined;
  /** Pins the workstation (with device-id): shown as is, the local service is never polled. */
  declare workstationId: string | undefined;
  /** Pins the device (with workstation-id). */
  declare deviceId: string | undefined;
  /** The local hardware service; default http://localhost:18065. */
  declare localServiceUrl: string | undefined;
  /** Bound on each /status request, in milliseconds; default 15000. */
  declare timeoutMs: number | undefined;

  /** The latest status reported by the core (undefined before the first one). */
  declare status: ReaderStatus | undefined;
  protected declare failure: BioErrorDetail | undefined;
  protected declare permission: PermissionState | undefined;

  private reader: FingerprintReader | undefined;
  private unwatch: (() => void) | undefined;
  private stale = true;
  private cleanups: (() => void)[] = [];

  override connectedCallback(): void {
    super.connectedCallback();
    this.stale = true;
    this.cleanups.push(
      onPageConfigChange(() => {
        this.stale = true;
        this.requestUpdate();
      }),
    );
    if (this.hasUpdated) this.requestUpdate();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.cleanups.forEach((cleanup) => cleanup());
    this.cleanups = [];
    this.stop();
  }

  protected override willUpdate(changed: PropertyValues): void {
    const configChanged = ['workstationId', 'deviceId', 'localServiceUrl', 'timeoutMs', 'middlewareUrl'].some((k) =>
      changed.has(k),
    );
    // (Re)start watching here, not in updated(): status set synchronously now needs no second render.
    if (this.isConnected && (this.stale || configChanged)) this.restart();
  }

  private restart(): void {
    this.stale = false;
    this.stop();
    this.failure = undefined;
    this.status = undefined;
    try {
      // Status watching asks only the local service: no token is ever needed.
      const reader = buildReader(this.localName, effectiveSettings(this), NO_TOKENS, { middlewareRequired: false });
      this.reader = reader;
      this.unwatch = reader.watchStatus((status) => this.report(status));
    } catch (error) {
      this.failure = errorDetail('status', error);
      emit(this, 'bio-error', this.failure);
    }
  }

  private stop(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.reader?.close();
    this.reader = undefined;
  }

  private report(status: ReaderStatus): void {
    if (!this.isConnected) return;
    this.status = status;
    const { state, pinned, workstationId, deviceId } = status;
    emit(this, 'bio-status', {
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
    const t = this.t();
    const status = this.status;
    const failure = this.failure;
    const state = failure ? 'config' : (status?.state ?? 'checking');
    const text = t(failure ? 'config' : STATE_TEXT[state as ReaderState]);
    return html`<div part="base" class="base"><div class="row"><span part="indicator" class="dot ${state}"></span><p part="state" class="status" role="status">${text}</p></div>${
      status?.workstationId
        ? html`<dl part="details"><dt>${t('workstation')}</dt><dd>${status.workstationId}</dd>${
            status.deviceId ? html`<dt>${t('device')}</dt><dd>${status.deviceId}</dd>` : nothing
          }</dl>`
        : nothing
    }${state === 'unreachable' ? this.renderAdvice(t) : nothing}${
      failure ? html`<p part="error" class="detail">${failure.message}</p>` : nothing
    }</div>`;
  }

  private renderAdvice(t: Translate): TemplateResult {
    return html`<ul part="advice"><li>${t('adviceStart')}</li><li>${
      this.permission === 'denied' ? t('adviceBlocked') : t('advicePrompt')
    }</li><li>${t('advicePin')}</li></ul>`;
  }
}

const STATE_TEXT: Record<ReaderState, StringKey> = {
  checking: 'locating',
  ready: 'ready',
  'no-device': 'no-device',
  unreachable: 'local-service-unreachable',
  error: 'status-error',
  pinned: 'pinned',
};
