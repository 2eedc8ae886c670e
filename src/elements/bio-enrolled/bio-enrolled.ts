import { html, type TemplateResult } from 'lit';
import type { EnrolledRecords, FingerprintReader } from '../../core/reader.js';
import { asText } from '../parts/localize.js';
import type { BioResultDetail } from '../parts/events.js';
import { BioOperationElement, type PerformOptions, type Summary } from '../base/operation-element.js';
import { SubjectMixin } from '../base/subject-mixin.js';

/** The `bio-result` detail of `<bio-enrolled>`: the middleware's answer is a `EnrolledRecords`. */
export type BioEnrolledResultDetail = BioResultDetail<EnrolledRecords>;

/**
 * Lists the fingerprints enrolled for `subject-id` (the middleware's biometrics records). Reads only; no
 * reader or workstation is involved, so there is no "locating" or "dispatched" phase.
 *
 * @tag bio-enrolled
 * @fires {BioEnrolledResultDetail} bio-result - On success. detail `{ operation, result, workstationId, deviceId }`, `result` a `EnrolledRecords`.
 * @attr subject-id - The person whose records are listed.
 * @csspart results - The record list.
 * @csspart result - One record.
 */
export class BioEnrolled extends SubjectMixin<EnrolledRecords>(BioOperationElement) {
  protected readonly operation = 'fetchEnrolled' as const;

  protected perform(reader: FingerprintReader, options: PerformOptions & { subjectId: string }): Promise<EnrolledRecords> {
    return reader.fetchEnrolled(options);
  }

  protected summarize(result: EnrolledRecords): Summary {
    const count = recordsOf(result).length;
    return count > 0 ? { key: 'records', params: { count }, ok: true } : { key: 'noRecords', ok: true };
  }

  protected override renderResult(result: EnrolledRecords): TemplateResult {
    const { localize } = this;
    return html`
      <ul part="results">
        ${recordsOf(result).map(
          (record) =>
            html`<li part="result">${asText(record?.enrollmentId)}: ${localize.date(record?.createdAt)}${
              typeof record?.quality === 'number' ? ` (${localize.term('quality', { quality: localize.number(record.quality) })})` : ''
            }</li>`,
        )}
      </ul>
    `;
  }
}

/** The records as a list whatever the middleware sent (the core passes the body through). */
const recordsOf = (result: EnrolledRecords) => (Array.isArray(result.records) ? result.records : []);
