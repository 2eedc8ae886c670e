import { html, type PropertyValues, type TemplateResult } from 'lit';
import type { FingerprintReader, VerifyResult } from '../../core/reader.js';
import type { BioResultDetail } from '../parts/events.js';
import { BioOperationElement, type PerformOptions, type Summary } from '../base/operation-element.js';
import { SubjectMixin } from '../base/subject-mixin.js';

/** The `bio-result` detail of `<bio-verify>`: the middleware's answer is a `VerifyResult`. */
export type BioVerifyResultDetail = BioResultDetail<VerifyResult>;

/**
 * Verifies that the finger on the reader belongs to `subject-id`. Inside a `<form>` it is a form
 * control: with `name` it submits the verification id after a match, and with `required` the form is
 * invalid until then. The server must confirm that id with the middleware: a match reported by the
 * browser is never proof.
 *
 * @tag bio-verify
 * @fires {BioVerifyResultDetail} bio-result - On the middleware's answer, match or not. detail `{ operation, result, workstationId, deviceId }`, `result` a `VerifyResult`.
 * @attr subject-id - The person to verify.
 * @attr name - Form field name; its value is the verificationId after a match.
 * @attr required - The form cannot be submitted until the fingerprint matched.
 * @attr hidden-input - The value goes in a hidden input child, for jQuery's `serialize()`.
 * @csspart result - The score of the answer.
 */
export class BioVerify extends SubjectMixin<VerifyResult>(BioOperationElement) {
  static formAssociated = true;
  // Focusable as a whole (focus goes to the button): a blocked submit focuses the invalid control, and
  // Firefox reports a control it cannot focus as an error even when the validity anchor could be.
  static override shadowRootOptions: ShadowRootInit = { mode: 'open', delegatesFocus: true };
  static override properties = {
    name: { reflect: true },
    required: { type: Boolean, reflect: true },
    hiddenInput: { type: Boolean, attribute: 'hidden-input' },
  };
  /** Form field name. */
  declare name: string | undefined;
  /** The form is invalid until a match. */
  declare required: boolean;
  /** The value goes in a hidden input child, for jQuery's `serialize()`. */
  declare hiddenInput: boolean;
  protected readonly operation = 'verify' as const;
  readonly #internals: ElementInternals;
  /** The `hidden-input` child, in the element only while there is a value. */
  #input: HTMLInputElement | undefined;

  constructor() {
    super();
    this.required = false;
    this.hiddenInput = false;
    this.#internals = this.attachInternals();
  }

  /** The verificationId after a match, else an empty string (what the form submits). */
  get value(): string {
    const result = this.result;
    return result?.match && typeof result.verificationId === 'string' ? result.verificationId : '';
  }
  get form(): HTMLFormElement | null {
    return this.#internals.form;
  }
  get validity(): ValidityState {
    return this.#internals.validity;
  }
  get validationMessage(): string {
    return this.#internals.validationMessage;
  }
  get willValidate(): boolean {
    return this.#internals.willValidate;
  }
  checkValidity(): boolean {
    return this.#internals.checkValidity();
  }
  reportValidity(): boolean {
    return this.#internals.reportValidity();
  }

  /** A form reset forgets the verification. */
  formResetCallback(): void {
    this.result = undefined;
    this.failure = undefined;
    this.view = { kind: 'idle' };
    this.resultChanged();
  }

  protected perform(reader: FingerprintReader, options: PerformOptions & { subjectId: string }): Promise<VerifyResult> {
    return reader.verify(options);
  }

  protected summarize(result: VerifyResult): Summary {
    return result.match ? { key: 'match', ok: true } : { key: 'noMatch', ok: false };
  }

  protected override renderResult(result: VerifyResult): TemplateResult {
    const score = this.localize.number(result.score);
    return html`<p part="result" class="detail">${score ? this.localize.term('score', { score }) : ''}</p>`;
  }

  protected override resultChanged(): void {
    const value = this.value;
    // The child or the internals submit the value, never both: a native submit would send it twice.
    const child = this.hiddenInput && value;
    this.#internals.setFormValue(child ? null : value || null);
    if (child) {
      const input = (this.#input ??= document.createElement('input'));
      input.type = 'hidden';
      input.name = this.name ?? '';
      input.value = value;
      if (input.parentNode !== this) this.append(input);
    } else {
      // Gone, not emptied: serialize() would send an empty field where a native submit sends none.
      this.#input?.remove();
    }
    const anchor = this.renderRoot?.querySelector?.('button') ?? undefined;
    if (this.required && !value) {
      this.#internals.setValidity({ valueMissing: true }, this.localize.term('required'), anchor);
    } else {
      this.#internals.setValidity({});
    }
  }

  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    // After every render: the validity anchor (the button) exists from the first one on, `view` changes
    // with every outcome, and the validity and the child follow `required`, `name`, `hidden-input` and `lang`.
    this.resultChanged();
  }
}
