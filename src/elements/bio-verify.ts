import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import type { FingerprintReader, VerifyResult } from '../core/reader.js';
import { BioOperationElement, type OperationOptions, localized, type Summary, type Translate } from './operation-element.js';
import { langOf } from './i18n.js';
import { requireSubject } from './subject.js';

/**
 * Verifies that the finger on the reader belongs to `subject-id`. Inside a `<form>` it is a form
 * control: with `name` it submits the verification id after a match, and with `required` the form is
 * invalid until then. The server must confirm that id with the middleware: a match reported by the
 * browser is never proof.
 *
 * @tag bio-verify
 * @attr middleware-url - Address of the biometrics middleware (relative URLs resolve against the page).
 * @attr token-endpoint - URL of the integrator's token broker; or set the `getToken` property.
 * @attr integrator-id - Sent as X-Integrator-Id on dispatch.
 * @attr workstation-id - Pins the workstation; needs device-id too.
 * @attr device-id - Pins the device; needs workstation-id too.
 * @attr local-service-url - The local hardware service (default http://localhost:18065).
 * @attr timeout-ms - Bound on each network call (default 15000).
 * @attr agent-id - The end user who acts, sent with the operation.
 * @fires bio-start - Before the operation; cancelable. detail `{ operation }`.
 * @fires bio-progress - At each phase. detail `{ operation, phase }`.
 * @fires bio-result - On success. detail `{ operation, result, workstationId, deviceId }`.
 * @fires bio-error - On any failure. detail `{ operation, code, message, status?, retryable }`.
 * @csspart base - The wrapper.
 * @csspart button - The button that starts the operation.
 * @csspart status - The live region with the current phase or outcome.
 * @csspart progress - The progress bar, while running.
 * @csspart error - The technical detail of a failure.
 * @cssprop --bio-accent - Button and progress colour.
 * @cssprop --bio-on-accent - Button text colour.
 * @cssprop --bio-radius - Button corner radius.
 * @cssprop --bio-focus-ring - Focus outline.
 * @cssprop --bio-gap - Space between the parts.
 * @cssprop --bio-error-color - Colour of failures.
 * @cssprop --bio-success-color - Colour of successes.
 * @cssprop --bio-muted-color - Colour of details.
 * @cssprop --bio-color - Text colour.
 * @cssprop --bio-font - Font.
 * @attr subject-id - The person to verify.
 * @attr name - Form field name; its value is the verificationId after a match.
 * @attr required - The form cannot be submitted until the fingerprint matched.
 */
export class BioVerify extends BioOperationElement<VerifyResult> {
  static formAssociated = true;
  static override properties = {
    subjectId: { attribute: 'subject-id' },
    name: { reflect: true },
    required: { type: Boolean, reflect: true },
  };
  /** The person to verify. */
  declare subjectId: string | undefined;
  /** Form field name. */
  declare name: string | undefined;
  /** The form is invalid until a match. */
  declare required: boolean;
  protected readonly operation = 'verify' as const;
  private readonly internals: ElementInternals;

  constructor() {
    super();
    this.required = false;
    this.internals = this.attachInternals();
  }

  /** The verificationId after a match, else an empty string (what the form submits). */
  get value(): string {
    const result = this.result;
    return result?.match ? result.verificationId : '';
  }
  get form(): HTMLFormElement | null {
    return this.internals.form;
  }
  get validity(): ValidityState {
    return this.internals.validity;
  }
  checkValidity(): boolean {
    return this.internals.checkValidity();
  }
  reportValidity(): boolean {
    return this.internals.reportValidity();
  }

  /** A form reset forgets the verification. */
  formResetCallback(): void {
    this.result = undefined;
    this.failure = undefined;
    this.view = { kind: 'idle', step: 0 };
    this.resultChanged();
  }

  protected override validate(): void {
    requireSubject(this);
  }

  protected perform(reader: FingerprintReader, options: OperationOptions): Promise<VerifyResult> {
    return reader.verify(options);
  }

  protected summarize(result: VerifyResult): Summary {
    return result.match
      ? { key: 'match', ok: true }
      : { key: 'noMatch', ok: false };
  }

  protected override renderResult(result: VerifyResult, t: Translate): TemplateResult | typeof nothing {
    return html`<p part="result" class="detail">${t('score', { score: localized(result.score, langOf(this)) })}</p>`;
  }

  protected override resultChanged(): void {
    const value = this.value;
    this.internals.setFormValue(value || null);
    const anchor = this.renderRoot?.querySelector?.('button') ?? undefined;
    if (this.required && !value) {
      this.internals.setValidity({ valueMissing: true }, this.t()('required'), anchor);
    } else {
      this.internals.setValidity({});
    }
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    // The validity anchor (the button) exists from the first render on; `view` changes with every outcome.
    if (changed.has('required') || changed.has('view')) this.resultChanged();
  }
}
