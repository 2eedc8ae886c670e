/**
 * Confirming a verification on the server (docs/wire-contract.md, docs/core.md). A `match: true` seen in a browser is never
 * proof: anyone can post any id. The integrator's server asks the middleware, with its own token, for the
 * verification record, and accepts it only when it is the record of exactly that id, matched, names the
 * subject the server expects and is recent. Accepting each id once is the caller's store's job
 * (docs/core.md shows an atomic way).
 */
import { isSegmentId, millisecondsOr, readOptions, requireString } from './config.js';
import { BioIDError } from './errors.js';
import { callMiddleware, type MiddlewareContext } from './middleware.js';

export const DEFAULT_MAX_AGE_MS = 120_000;

/**
 * How far in the future a `createdAt` may lie: the clocks of two servers differ by a little, never by
 * minutes. A record from further ahead fails closed, as its age cannot be trusted.
 */
const CLOCK_SKEW_MS = 10_000;

/**
 * A date and time that names its zone (ISO 8601 / RFC 3339: `…T…Z` or `…T…+02:00`); `Date.parse` reads the
 * rest. Without this, `Date.parse` would take a time without a zone as local time, and even `"1"` as a year.
 */
const ISO_DATE_TIME = /^[^T]*T[^T]*(Z|[+-]\d\d:\d\d)$/;

export interface ConfirmVerificationOptions {
  /** The subject your server expects (the signed-in user's, the form's record): never one the browser chose. */
  subjectId: string;
  /** How old the verification may be; default 120000 (two minutes). */
  maxAgeMs?: number;
}

/** The middleware's record of a confirmed verification; fields beyond these pass through unchanged. */
export interface ConfirmedVerification {
  verificationId: string;
  subjectId: string;
  match: true;
  score?: number;
  /** ISO 8601, with its zone. */
  createdAt: string;
  workstationId?: string;
  deviceId?: string;
  [extra: string]: unknown;
}

const OPTIONS = { subjectId: requireString, maxAgeMs: millisecondsOr(DEFAULT_MAX_AGE_MS) };

export async function confirmVerification(
  middleware: MiddlewareContext,
  verificationId: unknown,
  options: ConfirmVerificationOptions,
): Promise<ConfirmedVerification> {
  // The options are the integrator's code: a mistake there is a config error. The id comes from a
  // browser's form, so a missing or odd one is refused like any forged id, and nothing is sent.
  const { subjectId, maxAgeMs } = readOptions(options, OPTIONS, 'confirmVerification options', 'confirmVerification: ');
  if (!isSegmentId(verificationId)) throw rejected('no usable id');
  let record: Record<string, unknown>;
  try {
    record = await callMiddleware(middleware, { method: 'GET', path: `verifications/${encodeURIComponent(verificationId)}` });
  } catch (error) {
    if ((error as BioIDError).code === 'not-found') throw rejected('unknown id', error);
    throw error;
  }
  const createdAt = record.createdAt;
  const age = Date.now() - (typeof createdAt === 'string' && ISO_DATE_TIME.test(createdAt) ? Date.parse(createdAt) : NaN);
  const failed =
    // Exactly the id asked for: a middleware that matches ids loosely (case, blanks) would otherwise let
    // one verification pass under several spellings, each new to the caller's "used" store.
    record.verificationId !== verificationId
      ? 'another verification'
      : record.match !== true
        ? 'no match'
        : record.subjectId !== subjectId
          ? 'another subject'
          : // NaN (no usable createdAt) fails this too.
            !(age >= -CLOCK_SKEW_MS && age <= maxAgeMs)
            ? `createdAt is not an ISO 8601 time with a zone within the last ${maxAgeMs} ms`
            : '';
  if (failed) throw rejected(failed);
  return record as ConfirmedVerification;
}

const rejected = (why: string, cause?: unknown) =>
  new BioIDError('verification-rejected', `Verification rejected: ${why}; verify again.`, { cause, retryable: false });
