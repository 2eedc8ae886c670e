/**
 * `bioid-sdk/elements/bio-verify.js`: defines `<bio-verify>` and no other tag (guarded: a tag already defined is
 * left alone, define.ts). The types its events carry are exported beside the class.
 */
import { BioVerify } from '../bio-verify/bio-verify.js';

BioVerify.define('bio-verify');

export { BioVerify };
export type { BioVerifyResultDetail } from '../bio-verify/bio-verify.js';
export type { BioErrorDetail, BioProgressDetail, BioStartDetail } from '../parts/events.js';

declare global {
  interface HTMLElementTagNameMap {
    'bio-verify': BioVerify;
  }
}
