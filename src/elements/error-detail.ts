/**
 * Any failure of an element's work, as the `bio-error` detail. Core errors keep their codes; broker
 * failures (found anywhere in the `cause` chain, since the core wraps getToken failures) get their own;
 * the built-in TypeError of half a pin is a configuration error. Messages pass `scrubServerText`
 * once more, so a token quoted in a getToken failure cannot reach the page.
 */
import { BioIDError, messageOf, scrubServerText } from '../core/errors.js';
import { BrokerError } from './broker-client.js';
import type { BioErrorCode, BioErrorDetail, BioOperation } from './events.js';

export function errorDetail(operation: BioOperation, error: unknown): BioErrorDetail {
  const broker = findBrokerError(error);
  const source: unknown = broker ?? error;
  let code: BioErrorCode = 'unknown';
  let retryable = false;
  let status: number | undefined;
  if (source instanceof BrokerError) {
    code = source.reason;
    retryable = source.retryable;
    status = source.status;
  } else if (source instanceof BioIDError) {
    code = source.code;
    retryable = source.retryable;
    status = source.status;
  } else if (source instanceof TypeError) {
    code = 'config';
  }
  const message = scrubServerText(messageOf(source), 500);
  return { operation, code, message, ...(status !== undefined ? { status } : {}), retryable };
}

/** The core wraps getToken failures at most twice (reader token source, then the middleware call). */
function findBrokerError(error: unknown): BrokerError | undefined {
  for (let e = error, depth = 0; depth < 4; depth++, e = (e as { cause?: unknown } | undefined)?.cause) {
    if (e instanceof BrokerError) return e;
  }
  return undefined;
}
