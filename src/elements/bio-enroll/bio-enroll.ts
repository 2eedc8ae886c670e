import type { EnrollResult, FingerprintReader } from '../../core/reader.js';
import type { BioResultDetail } from '../parts/events.js';
import { BioOperationElement, type PerformOptions, type Summary } from '../base/operation-element.js';
import { SubjectMixin } from '../base/subject-mixin.js';

/** The `bio-result` detail of `<bio-enroll>`: the middleware's answer is a `EnrollResult`. */
export type BioEnrollResultDetail = BioResultDetail<EnrollResult>;

/**
 * Enrolls a fingerprint for `subject-id`: the capture is dispatched through the middleware to the
 * workstation whose reader the local service reports (or the pinned one).
 *
 * @tag bio-enroll
 * @fires {BioEnrollResultDetail} bio-result - On success. detail `{ operation, result, workstationId, deviceId }`, `result` a `EnrollResult`.
 * @attr subject-id - The person whose fingerprint is enrolled.
 */
export class BioEnroll extends SubjectMixin<EnrollResult>(BioOperationElement) {
  protected readonly operation = 'enroll' as const;

  protected perform(reader: FingerprintReader, options: PerformOptions & { subjectId: string }): Promise<EnrollResult> {
    return reader.enroll(options);
  }

  protected summarize(): Summary {
    return { key: 'enrolled', ok: true };
  }
}
