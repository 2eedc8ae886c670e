import { html, type TemplateResult } from 'lit';
import type { FingerprintReader, SearchResult } from '../../core/reader.js';
import { asText } from '../parts/localize.js';
import type { BioResultDetail } from '../parts/events.js';
import { BioOperationElement, type PerformOptions, type Summary } from '../base/operation-element.js';

/** The `bio-result` detail of `<bio-search>`: the middleware's answer is a `SearchResult`. */
export type BioSearchResultDetail = BioResultDetail<SearchResult>;

/**
 * Identifies whoever puts a finger on the reader (1:N search) and lists the candidates the middleware
 * returns, best first as sent. Candidate ids are shown as text, never as markup.
 *
 * @tag bio-search
 * @fires {BioSearchResultDetail} bio-result - On success. detail `{ operation, result, workstationId, deviceId }`, `result` a `SearchResult`.
 * @csspart results - The candidate list.
 * @csspart result - One candidate.
 */
export class BioSearch extends BioOperationElement<SearchResult> {
  protected readonly operation = 'search' as const;

  protected perform(reader: FingerprintReader, options: PerformOptions): Promise<SearchResult> {
    return reader.search(options);
  }

  protected summarize(result: SearchResult): Summary {
    const count = candidatesOf(result).length;
    return count > 0 ? { key: 'candidates', params: { count }, ok: true } : { key: 'noCandidates', ok: false };
  }

  protected override renderResult(result: SearchResult): TemplateResult {
    return html`
      <ol part="results">
        ${candidatesOf(result).map(
          (candidate) =>
            html`<li part="result">${asText(candidate?.subjectId)} (${this.localize.term('score', { score: this.localize.number(candidate?.score) })})</li>`,
        )}
      </ol>
    `;
  }
}

/** A middleware may leave `candidates` out when there are none (the core accepts that). */
const candidatesOf = (result: SearchResult) => result.candidates ?? [];
