import type { EnrollResult, FingerprintReader } from '../core/reader.js';
import { requireSubject } from './subject.js';
import { BioOperationElement, type OperationOptions, type Summary } from './operation-element.js';

/**
 * Enrolls a fingerprint for `subject-id`: the capture is dispatched through the middleware to the
 * workstation whose reader the local service reports (or the pinned one).
 *
 * @tag bio-enroll
 * @attr middleware-url - Address of the biometrics middleware (relative URLs resolve against the page).
 * @attr token-endpoint - URL of the integrator's token broker; or set the `getToken` property.
 * @attr integrator-id - Sent as X-Integrator-Id on dispatch.
 * @attr workstation-id - Pins the workstation; needs device-id too.
 * @attr device-id - Pins the device; needs workstation-id too.
 * @attr local-service-url - The local hardware service (default http://localhost:18065).
 * @attr timeout-ms - Bound on each network call (default 15000).
 * @attr agent-id - The end user who acts, sent with the operation.
 * @attr subject-id - The person whose fingerprint is enrolled.
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
 */
export class BioEnroll extends BioOperationElement<EnrollResult> {
  static override properties = { subjectId: { attribute: 'subject-id' } };
  /** The person whose fingerprint is enrolled. */
  declare subjectId: string | undefined;
  protected readonly operation = 'enroll' as const;

  protected override validate(): void {
    requireSubject(this);
  }

  protected perform(reader: FingerprintReader, options: OperationOptions): Promise<EnrollResult> {
    return reader.enroll(options);
  }

  protected summarize(): Summary {
    return { key: 'enrolled', ok: true };
  }
}

