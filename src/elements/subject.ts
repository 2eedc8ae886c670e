/** `subject-id`, for the elements that act on one person. */
import { BioIDError } from '../core/errors.js';

export function requireSubject(el: HTMLElement & { subjectId: string | undefined }): void {
  if (!el.subjectId || el.subjectId.trim() === '') {
    throw new BioIDError('config', `<${el.localName}>: subject-id is required.`);
  }
}
