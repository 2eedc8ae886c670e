/**
 * The elements' events: every one is emitted through `emit` (bubbles and composed, so a listener on
 * `document` — `$(document).on('bio-result', 'bio-verify', …)` — sees it), and each name is declared
 * once, here, in `HTMLElementEventMap`.
 */
import type { BioIDErrorCode } from '../core/errors.js';
import type { ReaderState } from '../core/status-watch.js';

export type BioOperation = 'enroll' | 'verify' | 'search' | 'fetchEnrolled' | 'status';

/**
 * Phases an operation goes through, in order: the token from the broker, discovery of the reader
 * (skipped when pinned: it is immediate), then the dispatch to the workstation, which waits for a finger.
 */
export type BioPhase = 'token' | 'locating' | 'dispatched';

/**
 * `bio-error` codes: the core's `BioIDError` codes, plus two that only the token broker produces.
 *  - `session-expired`: the broker answered 401/403, redirected (to a login page) or sent an HTML page:
 *    the user's session is gone; sign in again.
 *  - `broker-unavailable`: the broker failed (502 from its identity provider, another 5xx, a garbage
 *    answer, a network failure or a timeout); the session may be fine, try again later.
 */
export type BioErrorCode = BioIDErrorCode | 'session-expired' | 'broker-unavailable' | 'unknown';

export interface BioStartDetail {
  operation: BioOperation;
}
export interface BioProgressDetail {
  operation: BioOperation;
  phase: BioPhase;
}
export interface BioResultDetail<R = unknown> {
  operation: BioOperation;
  result: R;
  /** Empty for fetchEnrolled, which names no workstation. */
  workstationId: string;
  deviceId: string;
}
export interface BioErrorDetail {
  operation: BioOperation;
  code: BioErrorCode;
  /** English, technical, never a token; the element shows a localized summary next to it. */
  message: string;
  status?: number;
  retryable: boolean;
}
export interface BioStatusDetail {
  state: ReaderState;
  workstationId?: string;
  deviceId?: string;
  pinned: boolean;
}

export interface BioEventDetails {
  'bio-start': BioStartDetail;
  'bio-progress': BioProgressDetail;
  'bio-result': BioResultDetail;
  'bio-error': BioErrorDetail;
  'bio-status': BioStatusDetail;
}

/** Each event as a typed CustomEvent; the maps below make `addEventListener` typed on the elements and,
 * since the events bubble out of the shadow root, on `document` (jQuery-style delegation). */
export type BioEventMap = { [K in keyof BioEventDetails]: CustomEvent<BioEventDetails[K]> };

declare global {
  interface HTMLElementEventMap extends BioEventMap {}
  interface DocumentEventMap extends BioEventMap {}
}

/**
 * Dispatches a bubbling, composed event; returns false when a listener cancelled it (only `bio-start` is
 * cancelable). A removed element emits nothing: the page no longer shows it, so nobody should hear from it.
 */
export function emit<K extends keyof BioEventDetails>(
  target: HTMLElement,
  name: K,
  detail: BioEventDetails[K],
): boolean {
  if (!target.isConnected) return true;
  return target.dispatchEvent(
    new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable: name === 'bio-start' }),
  );
}
