/**
 * What the broker reports about itself through `createTokenBroker({ onEvent })`: a union of small typed
 * events, so the handler stays free of dependencies while a host turns them into metrics, logs or spans.
 * No event ever carries a token, a cookie, a secret, a subject token or a user id.
 */
import type { BrokerContext } from './adapters/context.js';

/** A shared token store operation; `lock` covers both taking and releasing the exchange lock. */
export type StoreOperation = 'get' | 'set' | 'delete' | 'lock';

/**
 * A shared token store operation failed (`error`) or did not answer within `storeTimeoutMs` (`timeout`),
 * or (`held`, operation `lock`) the exchange lock was held by someone this instance did not wait for: a
 * lock without an expiry or with a longer one than a broker sets, which no broker leaves, or one still held
 * after `storeLockWaitMs`. The request went on as without a store: no token request fails because of the
 * store.
 */
export interface StoreErrorEvent {
  type: 'store-error';
  operation: StoreOperation;
  kind: 'timeout' | 'error' | 'held';
}

/**
 * What became of a request's `X-Refused-Token` (docs/broker-contract.md, rule 13), a claim from the
 * caller that the middleware refused a token: `honoured` (the token was dropped and replaced), or ignored
 * and answered with the current token: `not-held` (the hash names no token the broker holds for the
 * caller: already replaced, or no token's hash at all), `too-young` (the token was issued less than
 * `refusedTokenMinAgeMs` ago) or `too-soon` (a refused token of the same cache key was replaced less than
 * `refusedTokenIntervalMs` ago, here or, with a shared store, by another instance).
 */
export type RefusedTokenResult = 'honoured' | 'not-held' | 'too-young' | 'too-soon';

/** A request that named a refused token by its hash (`X-Refused-Token`), and what the broker made of it. */
export interface RefusedTokenEvent {
  type: 'refused-token';
  result: RefusedTokenResult;
}

/**
 * How a token request was answered: `token` (200), `preflight` (204), or the refusal's reason
 * (`origin-not-allowed`, `method`, `csrf`, `no-session`, `no-cookie`, `no-subject-token`), `exchange-failed`
 * (502) or `internal` (500, an integrator callback threw).
 */
export type RequestOutcome =
  | 'token'
  | 'preflight'
  | 'origin-not-allowed'
  | 'method'
  | 'csrf'
  | 'no-session'
  | 'no-cookie'
  | 'no-subject-token'
  | 'exchange-failed'
  | 'internal';

/** A request answered, with its HTTP status and how long the broker took (ms). */
export interface RequestEvent {
  type: 'request';
  outcome: RequestOutcome;
  status: number;
  durationMs: number;
}

/**
 * An exchange with the identity provider: `ok`, `refused` (the IdP answered 4xx: a wrong secret, a
 * revoked subject token) or `failed` (5xx, timeout, network, an answer without a token).
 */
export interface ExchangeEvent {
  type: 'exchange';
  grant: 'client_credentials' | 'token-exchange';
  result: 'ok' | 'refused' | 'failed';
  /** The IdP's HTTP status, when it answered. */
  status?: number;
  durationMs: number;
}

/** Every event the broker reports; switch on `type`. More kinds may join this union. */
export type BrokerEvent = RequestEvent | ExchangeEvent | StoreErrorEvent | RefusedTokenEvent;

/**
 * A listener of broker events. A `request` event comes with the context of its request (the Node adapter's
 * `{ req, res }`, as `authorize` gets it), so a host can tie it to its own request id; the other events
 * may serve several requests at once and come without one.
 */
export type BrokerEventListener = (event: BrokerEvent, context?: BrokerContext) => void;

/** Calls `listener` so that nothing it does (throw, reject) reaches the request it reports on. */
export function safeEmitter(listener: BrokerEventListener | undefined): (event: BrokerEvent, context?: BrokerContext) => void {
  if (!listener) return () => {};
  return (event, context) => {
    try {
      const result = listener(event, context) as unknown;
      if (result && typeof (result as Promise<unknown>).catch === 'function') (result as Promise<unknown>).catch(() => {});
    } catch {
      // A failing listener must not turn a served token into an error.
    }
  };
}

/** The outcome of an answer: its status, and for a refusal the `reason` its body carries. */
export function outcomeOf(method: string, answer: { status: number; body: string | null }): RequestOutcome {
  if (answer.status === 200) return 'token';
  if (method === 'OPTIONS') return answer.status === 204 ? 'preflight' : 'origin-not-allowed';
  if (answer.status === 405) return 'method';
  if (answer.status === 502) return 'exchange-failed';
  if (answer.status === 500) return 'internal';
  const reason = /"reason":"([a-z-]+)"/.exec(answer.body ?? '')?.[1];
  return reason === 'csrf' || reason === 'no-cookie' || reason === 'no-subject-token' ? reason : 'no-session';
}
