/**
 * Refusals of the token broker: why a request got no token, as a value the host can log or count.
 * The reasons are the contract's (docs/broker-contract.md): the `reason` of a 401 or 403 body, plus the
 * two refusals that have no body to carry one (a preflight from an origin that is not allowed, a method
 * other than GET).
 */

export type RefusalReason =
  /** Rule 1: a method other than GET or OPTIONS (405). */
  | 'method'
  /** Rule 2: an OPTIONS preflight from an origin that is not in allowedOrigins (403). */
  | 'origin-not-allowed'
  /** Rule 3: a GET without `X-CSRF: 1` (403). */
  | 'csrf'
  /** Rule 4: no signed-in session (401). */
  | 'no-session'
  /** Rule 5: no session, and the browser sent no cookie to a broker on another site (401). */
  | 'no-cookie'
  /** Rule 12: RFC 8693 variant, signed in but no end-user token to exchange (401). */
  | 'no-subject-token';

/** One refused request. Nothing in it is a secret: no header but the Origin, no cookie, no token. */
export interface BrokerRefusal {
  reason: RefusalReason;
  status: number;
  method: string;
  /** The request's Origin header (at most 200 characters), or null when it had none. */
  origin: string | null;
}

/** What a refusal's log line says to do, for the reasons an operator can fix. */
const FIXES: Partial<Record<RefusalReason, string>> = {
  'origin-not-allowed': 'add this exact origin to allowedOrigins (BIOID_ALLOWED_ORIGINS) if its pages should get tokens',
};

/**
 * The broker's default: one structured line for a preflight from an origin that is not allowed (the page
 * then shows "service unavailable" and nothing else would say why). Other refusals are ordinary traffic
 * (signed-out users, probes) and are not logged unless the host asks (`onRefusal`).
 */
export function defaultRefusalLog(log: (line: string) => void): (refusal: BrokerRefusal) => void {
  return (refusal) => {
    if (refusal.reason === 'origin-not-allowed') log(refusalLine(refusal));
  };
}

/** One JSON object on one line (JSON escapes every control character a hostile Origin could carry). */
export function refusalLine(refusal: BrokerRefusal, extra: Record<string, unknown> = {}): string {
  const fix = FIXES[refusal.reason];
  return JSON.stringify({ ...extra, event: 'refused', ...refusal, ...(fix ? { fix } : {}) });
}

/** The Origin header as a refusal carries it: bounded, since it comes from the caller. */
export function refusalOrigin(origin: string | null): string | null {
  return origin === null ? null : origin.slice(0, 200);
}
