/**
 * `bioid-sdk/elements/bio-diagnostics.js`: defines `<bio-diagnostics>` and no other tag (guarded: a tag already
 * defined is left alone, define.ts).
 */
import { BioDiagnostics } from '../bio-diagnostics.js';

BioDiagnostics.define('bio-diagnostics');

export { BioDiagnostics };

declare global {
  interface HTMLElementTagNameMap {
    'bio-diagnostics': BioDiagnostics;
  }
}
