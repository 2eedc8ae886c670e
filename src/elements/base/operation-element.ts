// The base class of the operation elements (see its JSDoc).
import { html, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { BioIDError } from '../../core/errors.js';
import type { DispatchTarget, FingerprintReader, OperationOptions, ReaderPhase } from '../../core/reader.js';
import { connectLocalService, watchReaderStatus } from '../../core/status-watch.js';
import { BioElement } from './bio-element.js';
import { cookieWithheld, framedByOtherOrigin } from '../parts/frame.js';
import { asBioIDError, errorDetail, type BioErrorDetail, type BioEventMapOf, type BioOperation } from '../parts/events.js';
import { GLYPH_MARKS, glyphStyles } from '../parts/glyph.js';
import type { Params, StringKey } from '../parts/localize.js';
import { failureKey } from '../parts/failure-key.js';
import { askMiddleware, middlewareBase } from '../parts/middleware-probe.js';
import { hadSession, loginLinkFor, readerFor, statusOptionsFor, tokenSourceFor, type Settings } from '../parts/settings.js';
import { baseStyles, operationReserve } from '../parts/styles.js';

interface View {
  kind: 'idle' | 'running' | 'done' | 'failed';
  /** A failure's key names its headline (`{key}.title`) and its sentence. */
  key?: StringKey;
  params?: Params;
  /** 1..3 while running: token, locating, dispatched. */
  step?: number;
  /** A finished operation whose answer is not a success for the user (no match). */
  negative?: boolean;
}

/** What an element's `perform` hands the reader: the signal, the phase listener, and the element's own fields. */
export interface PerformOptions extends OperationOptions {
  signal: AbortSignal;
  subjectId?: string;
  agentId?: string;
}

export interface Summary {
  key: StringKey;
  params?: Params;
  /** False for an answer that is not a success for the user (no match): shown in the failure colour. */
  ok: boolean;
}

const PHASES: ReaderPhase[] = ['token', 'locating', 'dispatched'];
/** How long after the last sign of intent the page-wide status watch keeps locating the reader. */
const LOCATING_MS = 60_000;
const NO_TARGET = { workstationId: '', deviceId: '' };
/** How often a workstation-offline failure asks the middleware whether the workstation is live again, and a network failure whether it answers again. */
const LIVE_MS = 5_000;

/** Failures that report the state of the reader or its workstation: they hold only until the status watch reports it ready again. */
const READER_FAILURES: (string | undefined)[] = [
  'workstation-offline',
  'local-service-unreachable',
  'local-network-blocked',
  'no-device',
  'local-service',
];

/**
 * Declaration merging: the listeners typed by the element's result type, so that on a `<bio-verify>`
 * `bio-result`'s `detail.result` is a `VerifyResult`, not `unknown`, under `strict`.
 */
export interface BioOperationElement<R> {
  addEventListener: TypedListeners<R, this, AddEventListenerOptions>;
  removeEventListener: TypedListeners<R, this, EventListenerOptions>;
}

/** addEventListener's or removeEventListener's overloads: the `bio-*` events typed, any other as the DOM has it. */
type TypedListeners<R, Element, Options> = {
  <K extends keyof BioEventMapOf<R>>(
    type: K,
    listener: (this: Element, event: BioEventMapOf<R>[K]) => unknown,
    options?: boolean | Options,
  ): void;
  (type: string, listener: EventListenerOrEventListenerObject, options?: boolean | Options): void;
};

/**
 * What `bio-enroll`, `bio-verify`, `bio-search` and `bio-enrolled` share: the button, `start()`, the
 * phases in a live region with a progress bar, and the events. An operation is start → perform → result:
 * the core's reader runs the whole flow (token, target, dispatch) and reports each phase. Each operation
 * gets a fresh reader from the current settings, so a configuration change applies to the next operation
 * and never to one under way. Removing the element aborts its operation; a removed element emits no
 * events and its `start()` promise rejects with code 'aborted'.
 *
 * The element keeps its size whatever it shows (a fixed inline size, room for two lines of status and
 * one of progress, score or detail), so a phase or an answer never pushes the page around; only a
 * failure's sentence (and a sign-in link) may add lines. A failure reads as a headline and one sentence
 * with the next step, in the page's language; its technical detail (URLs, statuses, the server's words)
 * goes to `bio-error`'s detail and one console line, never onto the card. A failure about the reader or its
 * workstation (offline, service unreachable, no device) is cleared when the page-wide status watch
 * reports the reader back to ready, a connection failure when the browser is online again or the
 * middleware answers again: the element watches only while it shows such a failure.
 *
 * @fires {BioStartDetail} bio-start - Before the operation; cancelable. detail `{ operation }`.
 * @fires {BioProgressDetail} bio-progress - At each phase. detail `{ operation, phase }`.
 * @fires bio-result - On success. detail `{ operation, result, workstationId, deviceId }`.
 * @csspart glyph - The fingerprint (3.5em square): idle, waiting (a scan bar), success (a check), no match (a cross), error (an exclamation mark).
 * @csspart button - The button that starts the operation.
 * @csspart status - The live region with the current phase or outcome.
 * @csspart progress - The progress bar, while running.
 * @csspart login - The sign-in link under a `session-expired` failure, when login-url is set.
 * @csspart open - In a frame of another site whose cookie the browser withheld (`cookie-blocked`): the status, a link that opens the page in a new tab, where the cookie is sent.
 * @csspart access - In such a frame, where the browser has the Storage Access API: the sign-in button that asks for it (once) and runs the operation again.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the interface above only types its listeners
export abstract class BioOperationElement<R> extends BioElement {
  static override styles = [baseStyles, glyphStyles, operationReserve];
  static override properties: PropertyDeclarations = {
    view: { state: true, attribute: false },
    failure: { state: true, attribute: false },
    result: { state: true, attribute: false },
  };

  /** Where login-url's link points (checked as the operation starts); shown only under `session-expired`. */
  #loginLink: string | undefined;
  /** Storage access was asked for once already: its button is not offered again. */
  #asked = false;

  declare protected view: View;
  declare protected failure: BioErrorDetail | undefined;
  declare protected result: R | undefined;

  protected abstract readonly operation: Exclude<BioOperation, 'status' | 'diagnostics'>;
  #running: Promise<R> | undefined;
  #controller: AbortController | undefined;
  #unwatch: (() => void) | undefined;
  /** The page-wide status watch that locates the reader for a while after a sign of intent (#warm), so the click need not. */
  #locating: (() => void) | undefined;
  #locatingEnds: ReturnType<typeof setTimeout> | undefined;
  #warmedAt = -Infinity;
  /** Where the last operation was dispatched: the workstation a workstation-offline failure waits for. */
  #target: DispatchTarget = NO_TARGET;

  constructor() {
    super();
    this.view = { kind: 'idle' };
    // The first sign of intent readies the token and the reader, so the click sends the dispatch alone.
    for (const intent of ['pointerenter', 'focusin', 'touchstart']) this.addEventListener(intent, () => this.#warm(), { passive: true });
  }

  /**
   * Readies what the click needs, so that it sends the dispatch alone. The token, asked for through the
   * page's single flight: a valid token is the cached one (no request), so the broker is still called once
   * per token life, and never on a page whose elements nobody approaches; a refusal is not cached, so one
   * try per ten seconds at most. And the reader, located by the page-wide status watch for a minute after
   * the last sign of intent (spec 9.2: the watch's polling is the discovery; a pin polls nothing): the
   * watch polls only while someone may be about to click. The click reports any failure.
   */
  #warm(): void {
    if (this.view.kind === 'running' || performance.now() - this.#warmedAt < 10_000) return;
    this.#warmedAt = performance.now();
    try {
      // The token first: settings that cannot give a watch (a wrong local-service-url) still get it.
      const settings = this.settings();
      tokenSourceFor(this.localName, settings)
        .get()
        .catch(() => {});
      clearTimeout(this.#locatingEnds);
      this.#locating ??= watchReaderStatus(statusOptionsFor(this.localName, settings), () => undefined);
      this.#locatingEnds = setTimeout(() => this.#stopLocating(), LOCATING_MS);
    } catch {
      // Settings that cannot give a token or a watch: the click says what is wrong.
    }
  }

  #stopLocating(): void {
    clearTimeout(this.#locatingEnds);
    this.#locating?.();
    this.#locating = undefined;
  }

  /** Runs the operation; resolves with the middleware's answer, rejects (after `bio-error`) with the error whose code it carries. */
  start(): Promise<R> {
    if (this.#running) return this.#running;
    const run = this.#run();
    this.#running = run;
    const clear = () => {
      if (this.#running === run) this.#running = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /** The reader call of this element. */
  protected abstract perform(reader: FingerprintReader, options: PerformOptions): Promise<R>;
  /** What the status line says about a result. */
  protected abstract summarize(result: R): Summary;
  /** Extra view of a result (a list), as text bindings only. */
  protected renderResult(_result: R): TemplateResult | typeof nothing {
    return nothing;
  }
  /** Hook for form association. */
  protected resultChanged(): void {}

  /** The element's fields of the operation, read as it starts (a later change applies to the next one); throws a config error. */
  protected operationFields(settings: Settings): { subjectId?: string; agentId?: string } {
    return settings.agentId ? { agentId: settings.agentId } : {};
  }

  async #run(): Promise<R> {
    const operation = this.operation;
    if (!this.isConnected) {
      throw new BioIDError('aborted', `<${this.localName}> is not in the document.`);
    }
    if (!this.emit('bio-start', { operation })) {
      this.view = { kind: 'idle' };
      throw new BioIDError('aborted', `<${this.localName}>: bio-start was cancelled.`);
    }
    const controller = new AbortController();
    this.#controller = controller;
    const { signal } = controller;
    this.failure = undefined;
    this.result = undefined;
    this.resultChanged();
    let reader: FingerprintReader | undefined;
    let target: DispatchTarget = NO_TARGET;
    try {
      const settings = this.settings();
      const fields = this.operationFields(settings);
      this.#loginLink = loginLinkFor(this.localName, settings);
      reader = readerFor(this.localName, settings);
      const onPhase = (phase: ReaderPhase, at?: DispatchTarget) => {
        if (at) target = at;
        this.#showPhase(phase, at);
      };
      this.#target = NO_TARGET;
      const result = await this.perform(reader, { signal, onPhase, ...fields });
      if (signal.aborted) throw signal.reason;
      const summary = this.summarize(result);
      this.result = result;
      this.view = { kind: 'done', key: summary.key, params: summary.params, negative: !summary.ok };
      this.resultChanged();
      this.emit('bio-result', { operation, result, ...target });
      return result;
    } catch (caught) {
      let error = asBioIDError(caught);
      if (signal.aborted && !this.isConnected) {
        this.view = { kind: 'idle' };
        throw error;
      }
      // A refusal in a frame of another site is a cookie the browser withheld (src/elements/parts/frame.ts), shown with its way out.
      if ((error as BioIDError | undefined)?.code === 'session-expired' && framedByOtherOrigin())
        error = cookieWithheld(this.localName, error as BioIDError);
      this.#target = target;
      const detail = errorDetail(operation, error);
      this.failure = detail;
      const notYet = detail.code === 'session-expired' && !hadSession();
      this.view = { kind: 'failed', key: notYet ? 'signInFirst' : failureKey(detail.code, operation) };
      // The technical detail for developers: one console line, and bio-error's detail; the card says it in words.
      console.warn(`bioid-sdk: <${this.localName}> ${detail.code}: ${detail.message}`);
      this.emit('bio-error', detail);
      throw error;
    } finally {
      reader?.close();
      if (this.#controller === controller) this.#controller = undefined;
    }
  }

  #showPhase(phase: ReaderPhase, target?: DispatchTarget): void {
    const params: Params = target ? { workstation: target.workstationId } : {};
    this.view = { kind: 'running', key: phase, params, step: PHASES.indexOf(phase) + 1 };
    this.emit('bio-progress', { operation: this.operation, phase });
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#followStatus(); // a failure shown before the element was moved is followed again
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#followStatus();
    this.#stopLocating();
    this.#controller?.abort(new BioIDError('aborted', `<${this.localName}> was removed from the page.`));
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    this.#followStatus();
  }

  /**
   * Watches the reader status (docs/core.md: the page-wide watcher, which polls only while someone
   * listens) exactly while a failure about the reader is shown, and clears that failure once the reader
   * is back to ready: a 'ready' that follows a not-ready report. The first 'ready' alone proves nothing:
   * a workstation the middleware calls offline may well have a reachable local service. A `network` or
   * `timeout` failure (the middleware did not answer) is followed instead by the browser's `online` event
   * and by asking the middleware, without a token, whether it answers again (src/elements/parts/middleware-probe.ts).
   */
  #followStatus(): void {
    const code = this.isConnected && this.view.kind === 'failed' ? this.failure?.code : undefined;
    const offline = code === 'network' || code === 'timeout';
    if (!offline && !READER_FAILURES.includes(code)) {
      this.#unwatch?.();
      this.#unwatch = undefined;
      return;
    }
    if (this.#unwatch) return;
    let away = false;
    const clear = () => {
      this.failure = undefined;
      this.view = { kind: 'idle' };
    };
    const stops: (() => void)[] = [];
    this.#unwatch = () => stops.forEach((stop) => stop());
    if (offline) {
      // A network failure holds until the browser is online again (the computer's network back)...
      addEventListener('online', clear);
      stops.push(() => removeEventListener('online', clear));
    }
    try {
      const settings = this.settings();
      if (offline) {
        // ...or until the middleware answers again, the browser online all along (the middleware back).
        const url = middlewareBase(settings);
        stops.push(
          this.#askUntil(
            (signal) =>
              askMiddleware(url, settings, signal).then(
                () => true,
                () => false,
              ),
            clear,
          ),
        );
        return;
      }
      stops.push(
        watchReaderStatus(statusOptionsFor(this.localName, settings), ({ state }) => {
          if (state === 'ready' && away) clear();
          // Not ready: unreachable, no device, error (or pinned, which is never followed by ready).
          away ||= state !== 'ready' && state !== 'checking';
        }),
      );
      if (this.failure?.code === 'workstation-offline') stops.push(this.#askLive(settings, clear));
    } catch {
      // Settings that cannot be watched (they failed the operation too): the failure stays until the next start.
    }
  }

  /**
   * The Storage Access API, on the user's click (the browser asks only with one): granted, the frame's
   * requests carry its cookies and the operation runs again; refused, the link to the page in its own tab stays.
   */
  #askAccess(): void {
    document.requestStorageAccess().then(
      () => this.#onClick(),
      () => {},
    );
    this.#asked = true;
    this.requestUpdate();
  }

  /**
   * A workstation the middleware called offline (pinned ones included, which no status watch follows): the
   * middleware is asked through its liveness call, every LIVE_MS, until it reports the workstation live. A
   * middleware without that call (or any failure of it) ends the asking: the status watch's rule remains.
   */
  #askLive(settings: Settings, clear: () => void): () => void {
    const { workstationId } = this.#target;
    const reader = readerFor(this.localName, settings);
    const stop = workstationId ? this.#askUntil((signal) => reader.live(workstationId, { signal }), clear) : undefined;
    return () => {
      stop?.();
      reader.close();
    };
  }

  /**
   * Asks `question` every LIVE_MS until it answers yes (then `clear`) or fails (then stops). The returned
   * function stops the asking and aborts a question under way: an answer that comes after it clears nothing.
   */
  #askUntil(question: (signal: AbortSignal) => Promise<boolean>, clear: () => void): () => void {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = (): void => {
      question(controller.signal).then(
        (yes) => controller.signal.aborted || (yes ? clear() : (timer = setTimeout(ask, LIVE_MS))),
        () => undefined,
      );
    };
    timer = setTimeout(ask, LIVE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }

  #onClick(): void {
    if (this.view.kind === 'running') return;
    // A user gesture: the browser may now ask to let this page reach the local service (docs/cms.md).
    connectLocalService();
    // The outcome is reported through events and the status area; nothing else awaits this promise.
    this.start().catch(() => {});
  }

  protected override render(): TemplateResult {
    const { view, failure, result } = this;
    const running = view.kind === 'running';
    const tone = view.negative ? 'failed' : view.kind;
    const label = this.localize.term(this.operation);
    const mark = GLYPH_MARKS[view.negative ? 'negative' : view.kind];
    const term = (key: string, params?: Params) => this.localize.term(key as StringKey, params);
    // The workstation's id a unit the line breaks around: "ws-demo-1" never breaks after "ws-" at 320px.
    const status = (key: string, params?: Params) =>
      params?.workstation === undefined
        ? term(key, params)
        : term(key, { ...params, workstation: '\0' })
            .split('\0')
            .map((part, i) => (i ? html`<span class="id">${params.workstation}</span>${part}` : part));
    // A failure shows its headline in the status line and its sentence with the next step below: people's words only.
    const failed = view.kind === 'failed' ? view.key : undefined;
    const advice = failed ? ADVICE[failed] : undefined;
    // Framed by another site, a withheld cookie's way out is a link to the page in a tab of its own, a top-level
    // page whose requests carry the cookie (the engines of the baseline open a _blank link without an opener).
    const framed = failed === 'cookie-blocked' && framedByOtherOrigin();
    // The fingerprint glyph (src/elements/parts/glyph.ts): the print, the scan bar while running, the badge with its mark when finished.
    return html`
      <div part="base" class="base op">
        <svg part="glyph" class=${tone} viewBox="0 0 24 24" aria-hidden="true">
          <path d="M12 11v5.5M10 19.5V11a2 2 0 0 1 4 0v2.5M7 17.5V11a5 5 0 0 1 10 0v4.5M17 19.5v-1M4 14v-3a8 8 0 0 1 13.5-5.8M19.5 9q.5 1 .5 2v2.5M7.5 3.6A10 10 0 0 1 17 4" />
          <path class="scan" d=${running ? 'M3 15h18' : ''} />
          <circle cx="18.5" cy="18.5" r=${mark ? 5 : 0} />
          <path class="mark" d=${mark ?? ''} />
        </svg>
        <button part="button" type="button" aria-disabled=${running ? 'true' : 'false'} aria-describedby="status detail" @click=${this.#onClick}>
          ${label}
        </button>
        <p part="status" id="status" class="status ${tone}" role="status">${view.key ? status(failed ? `${view.key}.title` : view.key, view.params) : ''}</p>
        <div class="footer">
          ${running ? html`<progress part="progress" max="3" .value=${view.step} aria-label=${label}></progress>` : nothing}
          ${failed ? html`<p part="error" id="detail" class="detail">${framed ? html`<a part="open" href=${location.href} target="_blank">${term('framed')}</a>` : `${term(failed)}${advice ? ` ${term(advice)}` : ''}`}</p>` : nothing}
          ${
            failure?.code === 'session-expired' && this.#loginLink
              ? html`<a part="login" href=${this.#loginLink}>${term('signIn')}</a>`
              : nothing
          }
          ${
            framed && 'requestStorageAccess' in document && !this.#asked
              ? html`<button part="access" @click=${this.#askAccess}>${term('signIn')}</button>`
              : nothing
          }
          ${view.kind === 'done' && result !== undefined ? this.renderResult(result) : nothing}
        </div>
      </div>
    `;
  }
}

/** The next step a card adds to the sentence of a failure whose cause <bio-reader-status> also shows (with the same advice). */
const ADVICE: Partial<Record<string, StringKey>> = {
  'local-service-unreachable': 'adviceStart',
  'local-network-blocked': 'adviceBlocked',
};
