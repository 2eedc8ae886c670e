/**
 * `bioid-sdk/elements/bio-enrolled.js`: defines `<bio-enrolled>` and no other tag (guarded: a tag already defined is
 * left alone, define.ts). The types its events carry are exported beside the class.
 */
import { BioEnrolled } from '../bio-enrolled/bio-enrolled.js';

BioEnrolled.define('bio-enrolled');

export { BioEnrolled };
export type { BioEnrolledResultDetail } from '../bio-enrolled/bio-enrolled.js';
export type { BioErrorDetail, BioProgressDetail, BioStartDetail } from '../parts/events.js';

declare global {
  interface HTMLElementTagNameMap {
    'bio-enrolled': BioEnrolled;
  }
}
