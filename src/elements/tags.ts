/**
 * Defines every tag (guarded: a tag already defined is left alone): `<bio-enroll>`, `<bio-verify>`,
 * `<bio-search>`, `<bio-enrolled>` and `<bio-reader-status>`. Both the module entry and the script-tag
 * bundle import this one list.
 */
import { BioEnroll } from './bio-enroll.js';
import { BioEnrolled } from './bio-enrolled.js';
import { BioReaderStatus } from './bio-reader-status.js';
import { BioSearch } from './bio-search.js';
import { BioVerify } from './bio-verify.js';

BioEnroll.define('bio-enroll');
BioVerify.define('bio-verify');
BioSearch.define('bio-search');
BioEnrolled.define('bio-enrolled');
BioReaderStatus.define('bio-reader-status');

export { BioEnroll, BioEnrolled, BioReaderStatus, BioSearch, BioVerify };

declare global {
  interface HTMLElementTagNameMap {
    'bio-enroll': BioEnroll;
    'bio-verify': BioVerify;
    'bio-search': BioSearch;
    'bio-enrolled': BioEnrolled;
    'bio-reader-status': BioReaderStatus;
  }
}
