/**
 * Defines every tag (guarded: a tag already defined is left alone): `<bio-enroll>`, `<bio-verify>`,
 * `<bio-search>`, `<bio-enrolled>`, `<bio-reader-status>` and `<bio-diagnostics>`. Both the module entry and the script-tag
 * bundle import this one list; each tag's own entry (`tags/<tag>.ts`, `bioid-sdk/elements/<tag>.js`)
 * defines it, so a new tag is a new file there plus one line here.
 */
export { BioEnroll } from './tags/bio-enroll.js';
export { BioVerify } from './tags/bio-verify.js';
export { BioSearch } from './tags/bio-search.js';
export { BioEnrolled } from './tags/bio-enrolled.js';
export { BioReaderStatus } from './tags/bio-reader-status.js';
export { BioDiagnostics } from './tags/bio-diagnostics.js';
