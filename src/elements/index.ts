/**
 * `bioid-sdk/elements`: importing this module defines `<bio-enroll>`, `<bio-verify>`, `<bio-search>`,
 * `<bio-reader-status>` and `<bio-enrolled>` (guarded: a tag already defined is left alone).
 */
import { BioEnrolled } from './bio-enrolled.js';
import { defineElement } from './define.js';
import type { BioEnroll, BioReaderStatus, BioSearch, BioVerify } from './tags.js';

defineElement('bio-enrolled', BioEnrolled);

export { BioEnroll, BioReaderStatus, BioSearch, BioVerify } from './tags.js';
export { BioEnrolled, defineElement };
export { BioOperationElement } from './operation-element.js';
export { BrokerError, clearBrokerTokens } from './broker-client.js';
export { configureElements, type BioIDElementsConfig } from './page-config.js';
export type { StringKey, Strings } from './i18n.js';
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
} from './events.js';

declare global {
  interface HTMLElementTagNameMap {
    'bio-enroll': BioEnroll;
    'bio-verify': BioVerify;
    'bio-search': BioSearch;
    'bio-enrolled': BioEnrolled;
    'bio-reader-status': BioReaderStatus;
  }
}
