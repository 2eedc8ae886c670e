/**
 * Defines every tag (guarded: a tag already defined is left alone): `<bio-enroll>`, `<bio-verify>`,
 * `<bio-search>`, `<bio-enrolled>`, `<bio-reader-status>` and `<bio-diagnostics>`. Both the module entry and the script-tag
 * bundle import this one list.
 */
import { BioDiagnostics } from './bio-diagnostics.js';
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
BioDiagnostics.define('bio-diagnostics');

export { BioDiagnostics, BioEnroll, BioEnrolled, BioReaderStatus, BioSearch, BioVerify };

declare global {
  interface HTMLElementTagNameMap {
    'bio-enroll': BioEnroll;
    'bio-verify': BioVerify;
    'bio-search': BioSearch;
    'bio-enrolled': BioEnrolled;
    'bio-reader-status': BioReaderStatus;
    'bio-diagnostics': BioDiagnostics;
  }
}
