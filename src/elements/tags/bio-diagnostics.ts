/**
 * `bioid-sdk/elements/bio-diagnostics.js`: defines `<bio-diagnostics>` and no other tag (guarded: a tag already
 * defined is left alone, define.ts). The type of the event it fires is exported beside the class.
 */
import { BioDiagnostics } from '../bio-diagnostics/bio-diagnostics.js';

BioDiagnostics.define('bio-diagnostics');

export { BioDiagnostics };
export type { BioErrorDetail } from '../parts/events.js';

declare global {
  interface HTMLElementTagNameMap {
    'bio-diagnostics': BioDiagnostics;
  }
}
