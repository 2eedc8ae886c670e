/**
 * `bioid-sdk/elements`: importing this module defines `<bio-enroll>`, `<bio-verify>`, `<bio-search>`,
 * `<bio-enrolled>`, `<bio-reader-status>` and `<bio-diagnostics>` (guarded: a tag already defined is left alone).
 */
export { BioDiagnostics, BioEnroll, BioEnrolled, BioReaderStatus, BioSearch, BioVerify } from './tags.js';
export { defineElement } from './define.js';
export { clearBrokerTokens } from '../core/token-broker-client.js';
export { configureElements, type BioIDElementsConfig } from './parts/settings.js';
export type { BioIDSDKGlobal } from './parts/globals.js';
export type { StringKey, Translation } from './parts/localize.js';
export type {
  BioErrorCode,
  BioErrorDetail,
  BioEventMap,
  BioOperation,
  BioPhase,
  BioProgressDetail,
  BioResultDetail,
  BioStartDetail,
  BioStatusDetail,
} from './parts/events.js';
export type { BioEnrollResultDetail } from './bio-enroll/bio-enroll.js';
export type { BioVerifyResultDetail } from './bio-verify/bio-verify.js';
export type { BioSearchResultDetail } from './bio-search/bio-search.js';
export type { BioEnrolledResultDetail } from './bio-enrolled/bio-enrolled.js';
