import { html, type TemplateResult } from 'lit';
import type { EnrolledRecords, FingerprintReader } from '../core/reader.js';
import { langOf } from './i18n.js';
import { BioOperationElement, type OperationOptions, asText, localized, type Summary } from './operation-element.js';
import { requireSubject } from './subject.js';

/**
 * Lists the fingerprints enrolled for `subject-id` (the middleware's biometrics records). Reads only; no
 * reader or workstation is involved, so there is no "locating" or "dispatched" phase.
 *
 * @tag bio-enrolled
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
 * @attr subject-id - The person whose records are listed.
 * @csspart results - The record list.
 * @csspart result - One record.
 */
export class BioEnrolled extends BioOperationElement<EnrolledRecords> {
  static override properties = { subjectId: { attribute: 'subject-id' } };
  /** The person whose records are listed. */
  declare subjectId: string | undefined;
  protected readonly operation = 'fetchEnrolled' as const;
  protected override readonly dispatches = false;

  protected override validate(): void {
    requireSubject(this);
  }

  protected perform(reader: FingerprintReader, options: OperationOptions): Promise<EnrolledRecords> {
    return reader.fetchEnrolled(options);
  }

  protected summarize(result: EnrolledRecords): Summary {
    const count = result.records.length;
    return count > 0 ? { key: 'records', params: { count }, ok: true } : { key: 'noRecords', ok: true };
  }

  protected override renderResult(result: EnrolledRecords): TemplateResult {
    const lang = langOf(this);
    return html`<ul part="results">${result.records.map(
        (r) =>
          html`<li part="result">${asText(r.enrollmentId)}: ${formatDate(r.createdAt, lang)}${
            typeof r.quality === 'number' ? ` (${localized(r.quality, lang)})` : ''
          }</li>`,
      )}</ul>`;
  }
}

function formatDate(value: unknown, lang: string): string {
  const date = new Date(typeof value === 'string' ? value : NaN);
  try {
    if (!Number.isNaN(date.getTime())) return date.toLocaleString(lang);
  } catch {
    // RangeError: lang is not a valid language tag
  }
  return asText(value);
}
