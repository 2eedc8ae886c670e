import { html, type TemplateResult } from 'lit';
import type { FingerprintReader, SearchResult } from '../core/reader.js';
import { langOf } from './i18n.js';
import { BioOperationElement, type OperationOptions, asText, localized, type Summary, type Translate } from './operation-element.js';

/**
 * Identifies whoever puts a finger on the reader (1:N search) and lists the candidates the middleware
 * returns, best first as sent. Candidate ids are shown as text, never as markup.
 *
 * @tag bio-search
 * @attr middleware-url - Address of the biometrics middleware (relative URLs resolve against the page).
 * @attr token-endpoint - URL of the integrator's token broker; or set the `getToken` property.
 * @attr integrator-id - Sent as X-Integrator-Id on dispatch.
 * @attr workstation-id - Pins the workstation; needs device-id too.
 * @attr device-id - Pins the device; needs workstation-id too.
 * @attr local-service-url - The local hardware service (default http://localhost:18065).
 * @attr timeout-ms - Bound on each network call (default 15000).
 * @attr agent-id - The end user who acts, sent with the operation.
 * @fires bio-start - Before the operation; cancelable. detail `{ operation }`.
 * @fires bio-progress - At each phase. detail `{ operation, phase }`.
 * @fires bio-result - On success. detail `{ operation, result, workstationId, deviceId }`.
 * @fires bio-error - On any failure. detail `{ operation, code, message, status?, retryable }`.
 * @csspart base - The wrapper.
 * @csspart button - The button that starts the operation.
 * @csspart status - The live region with the current phase or outcome.
 * @csspart progress - The progress bar, while running.
 * @csspart error - The technical detail of a failure.
 * @cssprop --bio-accent - Button and progress colour.
 * @cssprop --bio-on-accent - Button text colour.
 * @cssprop --bio-radius - Button corner radius.
 * @cssprop --bio-focus-ring - Focus outline.
 * @cssprop --bio-gap - Space between the parts.
 * @cssprop --bio-error-color - Colour of failures.
 * @cssprop --bio-success-color - Colour of successes.
 * @cssprop --bio-muted-color - Colour of details.
 * @cssprop --bio-color - Text colour.
 * @cssprop --bio-font - Font.
 * @csspart results - The candidate list.
 * @csspart result - One candidate.
 */
export class BioSearch extends BioOperationElement<SearchResult> {
  protected readonly operation = 'search' as const;

  protected perform(reader: FingerprintReader, options: OperationOptions): Promise<SearchResult> {
    return reader.search(options);
  }

  protected summarize(result: SearchResult): Summary {
    const count = result.candidates.length;
    return count > 0 ? { key: 'candidates', params: { count }, ok: true } : { key: 'noCandidates', ok: false };
  }

  protected override renderResult(result: SearchResult, t: Translate): TemplateResult {
    const lang = langOf(this);
    return html`<ol part="results">${result.candidates.map(
        (c) => html`<li part="result">${asText(c.subjectId)} (${t('score', { score: localized(c.score, lang) })})</li>`,
      )}</ol>`;
  }
}
