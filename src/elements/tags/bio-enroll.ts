/**
 * `bioid-sdk/elements/bio-enroll.js`: defines `<bio-enroll>` and no other tag (guarded: a tag already defined is
 * left alone, define.ts). The types its events carry are exported beside the class.
 */
import { BioEnroll } from '../bio-enroll/bio-enroll.js';

BioEnroll.define('bio-enroll');

export { BioEnroll };
export type { BioEnrollResultDetail } from '../bio-enroll/bio-enroll.js';
export type { BioErrorDetail, BioProgressDetail, BioStartDetail } from '../parts/events.js';

declare global {
  interface HTMLElementTagNameMap {
    'bio-enroll': BioEnroll;
  }
}
