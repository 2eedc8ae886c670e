/**
 * The browser baseline at run time (package.json's `browserslist`; docs/elements.md, "Browsers"): what the
 * SDK uses that is newer than the baseline goes through here, behind a test for it with a fallback, and
 * what it needs and has no fallback for is checked here, so that an older browser is told it is too old,
 * the feature named, instead of failing somewhere inside. No global is patched: the page sees its browser
 * as it is. `npm run lint` refuses a newer feature used elsewhere (scripts/eslint-baseline.mjs).
 */
import { BioIDError } from './errors.js';

/**
 * `AbortSignal.any(signals)` (since Chrome 116, Firefox 124, Safari 17.4): a signal that aborts when the
 * first of `signals` does, with its reason. The fallback forwards their abort events to a controller of its
 * own. Its listeners go when that controller aborts; until then they stay on their signals, which only an
 * old browser sees (Node has AbortSignal.any), and the elements close their reader after each operation.
 */
export function anySignal(signals: AbortSignal[]): AbortSignal {
  if (AbortSignal.any) return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const signal of signals) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { signal: controller.signal });
  }
  return controller.signal;
}

/**
 * Throws `browser-too-old` where the browser lacks what the SDK needs and has no fallback for. Engines that
 * cannot parse the script (class static blocks: before Chrome 94, Firefox 93, Safari 16.4) never get here;
 * of those that can, the oldest lack the reason an abort carries (since Chrome 98, Firefox 97), with which
 * a closed reader or a removed element ends its operation.
 */
export function requireBaseline(): void {
  if (!('reason' in AbortSignal.prototype)) {
    throw new BioIDError('browser-too-old', 'This browser is too old: it lacks AbortSignal.reason.');
  }
}
