/**
 * `bioid-sdk/elements/bio-search.js`: defines `<bio-search>` and no other tag (guarded: a tag already defined is
 * left alone, define.ts). The types its events carry are exported beside the class.
 */
import { BioSearch } from '../bio-search/bio-search.js';

BioSearch.define('bio-search');

export { BioSearch };
export type { BioSearchResultDetail } from '../bio-search/bio-search.js';
export type { BioErrorDetail, BioProgressDetail, BioStartDetail } from '../parts/events.js';

declare global {
  interface HTMLElementTagNameMap {
    'bio-search': BioSearch;
  }
}
