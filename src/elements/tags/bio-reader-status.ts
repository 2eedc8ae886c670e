/**
 * `bioid-sdk/elements/bio-reader-status.js`: defines `<bio-reader-status>` and no other tag (guarded: a tag already defined is
 * left alone, define.ts). The types its events carry are exported beside the class.
 */
import { BioReaderStatus } from '../bio-reader-status/bio-reader-status.js';

BioReaderStatus.define('bio-reader-status');

export { BioReaderStatus };
export type { BioErrorDetail, BioStatusDetail } from '../parts/events.js';

declare global {
  interface HTMLElementTagNameMap {
    'bio-reader-status': BioReaderStatus;
  }
}
