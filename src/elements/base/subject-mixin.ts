/** `subject-id`, for the elements that act on one person: a small mixin over an operation element. */
import { configError } from '../../core/errors.js';
import { idAttribute } from '../parts/attributes.js';
import type { BioOperationElement } from './operation-element.js';
import type { Settings } from '../parts/settings.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's constructor takes any arguments
type Constructor<T> = abstract new (...args: any[]) => T;

/** The static side (define, properties, styles…), kept through the mixin. */
type Statics = Omit<typeof BioOperationElement, 'prototype'>;

export interface SubjectInterface {
  /** The person. */
  subjectId: string | undefined;
}

/**
 * Adds `subject-id` (required: an operation without it is a config error before any network call).
 * `R` is the operation's result: `SubjectMixin<VerifyResult>(BioOperationElement)`.
 */
export const SubjectMixin = <R>(
  Base: Constructor<BioOperationElement<R>> & Statics,
): Constructor<SubjectInterface & BioOperationElement<R>> & Statics => {
  abstract class WithSubject extends Base {
    static override properties = { subjectId: { attribute: 'subject-id', converter: idAttribute } };
    declare subjectId: string | undefined;

    protected override operationFields(settings: Settings): { subjectId?: string; agentId?: string } {
      const subjectId = this.subjectId;
      if (!subjectId?.trim()) {
        throw configError(`<${this.localName}>: subject-id is required.`);
      }
      return { ...super.operationFields(settings), subjectId };
    }
  }
  return WithSubject;
};
