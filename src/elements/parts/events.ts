/**
 * The elements' events: every one is emitted through `emit` (bubbles and composed, so a listener on
 * `document` — `$(document).on('bio-result', 'bio-verify', …)` — sees it), and each name is declared
 * once, here, in `HTMLElementEventMap`.
 */
import { BioIDError, messageOf, scrubServerText, type BioIDErrorCode } from '../../core/errors.js';
import type { ReaderPhase } from '../../core/reader.js';
import type { ReaderState } from '../../core/status-watch.js';

/** `diagnostics`: `<bio-diagnostics>`, whose code did not load (its checks report in rows, not events). */
export type BioOperation = 'enroll' | 'verify' | 'search' | 'fetchEnrolled' | 'status' | 'diagnostics';

/** The core's phases of an operation: token, locating (immediate when pinned), dispatched. */
export type BioPhase = ReaderPhase;

/** `bio-error` codes: the core's `BioIDError` codes, and `unknown` for a failure that is not one (a bug). */
export type BioErrorCode = BioIDErrorCode | 'unknown';

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

// Declaration merging: the page's addEventListener('bio-result', …) gets the detail types.
/* eslint-disable @typescript-eslint/no-empty-object-type */
declare global {
  interface HTMLElementEventMap extends BioEventMap {}
  interface DocumentEventMap extends BioEventMap {}
}
/* eslint-enable @typescript-eslint/no-empty-object-type */

/** The events of an operation element whose `bio-result` carries its own result type `R`. */
export type BioEventMapOf<R> = Omit<HTMLElementEventMap, 'bio-result'> & { 'bio-result': CustomEvent<BioResultDetail<R>> };

/**
 * Dispatches a bubbling, composed event; returns false when a listener cancelled it (only `bio-start` is
 * cancelable). A removed element emits nothing: the page no longer shows it, so nobody should hear from it.
 */
export function emit<K extends keyof BioEventDetails>(target: HTMLElement, name: K, detail: BioEventDetails[K]): boolean {
  if (!target.isConnected) return true;
  return target.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable: name === 'bio-start' }));
}

/**
 * Any failure of an element's work as the error its promise rejects with: core errors as they are, the
 * built-in TypeError of half a pin as the configuration error it is. Anything else (a bug) stays itself.
 */
export function asBioIDError(error: unknown): unknown {
  if (error instanceof TypeError) return new BioIDError('config', error.message, { cause: error });
  return error;
}

/** The `bio-error` detail of a failure (messages pass `scrubServerText` once more: no token reaches the page). */
export function errorDetail(operation: BioOperation, error: unknown): BioErrorDetail {
  const known = error instanceof BioIDError;
  const status = known ? error.status : undefined;
  return {
    operation,
    code: known ? error.code : 'unknown',
    message: scrubServerText(messageOf(error), 500),
    ...(status !== undefined ? { status } : {}),
    retryable: known ? error.retryable : false,
  };
}
