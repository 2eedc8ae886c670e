/**
 * What `bio-enroll`, `bio-verify`, `bio-search` and `bio-enrolled` share: the attributes, the button,
 * `start()`, the phases in a live region with a progress bar, and the events. Each operation builds a
 * fresh core reader from the current attributes and page defaults (construction is pure and cheap), so
 * a configuration change applies to the next operation and never to one under way, and the broker's
 * shared token cache decides when a new token is due. Removing the element aborts its operation; a
 * removed element emits no events and its `start()` promise rejects with code 'aborted'.
 */
import { html, nothing, type PropertyDeclarations, type TemplateResult } from 'lit';
import { BioIDError } from '../core/errors.js';
import type { FingerprintReader } from '../core/reader.js';
import { errorDetail } from './error-detail.js';
import { emit, type BioErrorDetail, type BioOperation, type BioPhase } from './events.js';
import { en, type StringKey } from './i18n.js';
import { LocalizedElement, type Translate } from './localized-element.js';
import { buildReader, effectiveSettings, readerProperties, tokenSourceFor } from './reader-config.js';

interface View {
  kind: 'idle' | 'running' | 'done' | 'failed';
  key?: StringKey;
  params?: Record<string, string | number>;
  /** 1..3 while running: token, locating, dispatched. */
  step: number;
  /** A finished operation whose answer is not a success for the user (no match). */
  negative?: boolean;
}

export type { Translate };

export interface OperationOptions {
  signal: AbortSignal;
  /** subject-id as it was when the operation started (a later change applies to the next one). */
  subjectId: string;
  agentId?: string;
}

export interface Summary {
  key: StringKey;
  params?: Record<string, string | number>;
  /** False for an answer that is not a success for the user (no match): shown in the failure colour. */
  ok: boolean;
}

const PHASES: BioPhase[] = ['token', 'locating', 'dispatched'];

export abstract class BioOperationElement<R> extends LocalizedElement {
  static override properties: PropertyDeclarations = {
    ...readerProperties,
    view: { state: true, attribute: false },
    failure: { state: true, attribute: false },
    result: { state: true, attribute: false },
  };

  /** Address of the biometrics middleware; relative URLs resolve against the page. */
  declare middlewareUrl: string | undefined;
  /** URL of the integrator's token broker (GET, session cookie, X-CSRF: 1). */
  declare tokenEndpoint: string | undefined;
  /** Replaces token-endpoint: resolves to a middleware access token. */
  declare getToken: (() => string | Promise<string>) | undefined;
  declare integratorId: string | undefined;
  /** Pins the workstation (with device-id): no discovery through the local service. */
  declare workstationId: string | undefined;
  /** Pins the device (with workstation-id). */
  declare deviceId: string | undefined;
  /** The local hardware service; default http://localhost:18065. */
  declare localServiceUrl: string | undefined;
  /** Bound on each network call, in milliseconds; default 15000. */
  declare timeoutMs: number | undefined;
  /** Who acted (spec 5.8), sent with the operation. */
  declare agentId: string | undefined;

  protected declare view: View;
  protected declare failure: BioErrorDetail | undefined;
  protected declare result: R | undefined;

  protected abstract readonly operation: Exclude<BioOperation, 'status'>;
  /** False for fetchEnrolled, which names no workstation. */
  protected readonly dispatches: boolean = true;
  private running: Promise<R> | undefined;
  private controller: AbortController | undefined;

  constructor() {
    super();
    this.view = { kind: 'idle', step: 0 };
  }

  /** Runs the operation; resolves with the middleware's answer, rejects (after `bio-error`) on failure. */
  start(): Promise<R> {
    if (this.running) return this.running;
    const run = this.run();
    this.running = run;
    const clear = () => {
      if (this.running === run) this.running = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /** The middleware call of this element; `options` carries the signal, the subject-id and the agent-id, when set. */
  protected abstract perform(reader: FingerprintReader, options: OperationOptions): Promise<R>;
  /** What the status line says about a result. */
  protected abstract summarize(result: R): Summary;
  /** Extra view of a result (a list), as text bindings only. */
  protected renderResult(_result: R, _t: Translate): TemplateResult | typeof nothing {
    return nothing;
  }
  /** Hook for form association. */
  protected resultChanged(): void {}

  /** Checks that do not need the network (a required subject-id). */
  protected validate(): void {}

  private async run(): Promise<R> {
    const operation = this.operation;
    if (!this.isConnected) {
      throw new BioIDError('aborted', `<${this.localName}> is not in the document.`, { retryable: false });
    }
    if (!emit(this, 'bio-start', { operation })) {
      this.view = { kind: 'idle', step: 0 };
      throw new BioIDError('aborted', `<${this.localName}>: bio-start was cancelled.`, { retryable: false });
    }
    const controller = new AbortController();
    this.controller = controller;
    const { signal } = controller;
    this.failure = undefined;
    this.result = undefined;
    this.resultChanged();
    let reader: FingerprintReader | undefined;
    try {
      this.validate();
      const subjectId = (this as { subjectId?: string }).subjectId ?? '';
      const settings = effectiveSettings(this);
      // The reader takes its tokens from the shared source: cached, refreshed once after a 401 (spec 5.3).
      const tokens = tokenSourceFor(this.localName, settings);
      reader = buildReader(this.localName, settings, tokens);
      this.phase('token');
      await tokens.get(signal);
      let target = { workstationId: '', deviceId: '' };
      if (this.dispatches) {
        this.phase('locating');
        target = await reader.target({ signal });
        // Dispatch to exactly the target just shown, without asking the local service a second time.
        reader.close();
        reader = buildReader(this.localName, { ...settings, ...target }, tokens);
        this.phase('dispatched', { workstation: target.workstationId });
      }
      const { agentId } = settings;
      const result = await this.perform(reader, agentId ? { signal, subjectId, agentId } : { signal, subjectId });
      if (signal.aborted) throw signal.reason;
      const summary = this.summarize(result);
      this.result = result;
      this.view = { kind: 'done', key: summary.key, params: summary.params ?? {}, step: 0, negative: !summary.ok };
      this.resultChanged();
      emit(this, 'bio-result', { operation, result, ...target });
      return result;
    } catch (error) {
      if (signal.aborted && !this.isConnected) {
        this.view = { kind: 'idle', step: 0 };
        throw error;
      }
      const detail = errorDetail(operation, error);
      this.failure = detail;
      this.view = { kind: 'failed', key: errorKey(detail.code), step: 0 };
      emit(this, 'bio-error', detail);
      throw error;
    } finally {
      reader?.close();
      if (this.controller === controller) this.controller = undefined;
    }
  }

  private phase(phase: BioPhase, params?: Record<string, string>): void {
    this.view = { kind: 'running', key: phase, params: params ?? {}, step: PHASES.indexOf(phase) + 1 };
    emit(this, 'bio-progress', { operation: this.operation, phase });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.controller?.abort(new BioIDError('aborted', `<${this.localName}> was removed from the page.`, { retryable: false }));
  }

  private onClick(): void {
    if (this.view.kind === 'running') return;
    // The outcome is reported through events and the status area; nothing else awaits this promise.
    this.start().catch(() => {});
  }

  protected override render(): TemplateResult {
    const t = this.t();
    const { view, failure, result } = this;
    const running = view.kind === 'running';
    const tone = view.negative ? 'failed' : view.kind;
    // Markup on few lines: template text is not minified (bundle size budget).
    return html`<div part="base" class="base"><button part="button" type="button" aria-disabled=${running ? 'true' : 'false'} aria-describedby="status" @click=${this.onClick}>${t(this.operation)}</button><p part="status" id="status" class="status ${tone}" role="status">${
      view.key ? t(view.key, view.params) : ''
    }</p>${running ? html`<progress part="progress" max="3" .value=${view.step} aria-label=${t(this.operation)}></progress>` : nothing}${
      failure ? html`<p part="error" class="detail">${failure.message}</p>` : nothing
    }${view.kind === 'done' && result !== undefined ? this.renderResult(result, t) : nothing}</div>`;
  }
}

/** The localized summary of a `bio-error` code: its own string where there is one, else a general one. */
function errorKey(code: string): StringKey {
  if (code === 'timeout') return 'network';
  return (code in en ? code : 'failed') as StringKey;
}

/** A number for people, in the element's language (an invalid lang tag falls back to the raw value). */
export function localized(value: unknown, lang: string): string {
  try {
    if (typeof value === 'number') return value.toLocaleString(lang, { maximumFractionDigits: 3 });
  } catch {
    // RangeError: lang is not a valid language tag
  }
  return asText(value);
}

/** Any value as text for a binding; hostile JSON such as `{"toString": 1}` cannot be converted and shows as nothing. */
export function asText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '';
  }
}
