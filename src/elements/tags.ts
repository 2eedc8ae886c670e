/**
 * Defines the four tags of the script-tag bundle: `<bio-enroll>`, `<bio-verify>`, `<bio-search>` and
 * `<bio-reader-status>` (guarded: a tag already defined is left alone). `index.ts` adds `<bio-enrolled>`,
 * which the size-budgeted script-tag bundle leaves out.
 */
import { BioEnroll } from './bio-enroll.js';
import { BioReaderStatus } from './bio-reader-status.js';
import { BioSearch } from './bio-search.js';
import { BioVerify } from './bio-verify.js';
import { defineElement } from './define.js';

defineElement('bio-enroll', BioEnroll);
defineElement('bio-verify', BioVerify);
defineElement('bio-search', BioSearch);
defineElement('bio-reader-status', BioReaderStatus);

export { BioEnroll, BioReaderStatus, BioSearch, BioVerify };
