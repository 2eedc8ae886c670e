/**
 * What the broker reports about itself through `createTokenBroker({ onEvent })`: a union of small typed
 * events, so the handler stays free of dependencies while a host turns them into metrics, logs or spans.
 * No event ever carries a token, a cookie, a secret, a subject token or a user id.
 */

/** A shared token store operation; `lock` covers both taking and releasing the exchange lock. */
export type StoreOperation = 'get' | 'set' | 'delete' | 'lock';

/**
 * A shared token store operation failed (`error`) or did not answer within `storeTimeoutMs` (`timeout`).
 * The request went on as without a store: no token request fails because of the store.
 */
export interface StoreErrorEvent {
  type: 'store-error';
  operation: StoreOperation;
  kind: 'timeout' | 'error';
}

/** Every event the broker reports. More kinds will join this union; switch on `type`. */
export type BrokerEvent = StoreErrorEvent;

export type BrokerEventListener = (event: BrokerEvent) => void;

/** Calls `listener` so that nothing it does (throw, reject) reaches the request it reports on. */
export function safeEmitter(listener: BrokerEventListener | undefined): (event: BrokerEvent) => void {
  if (!listener) return () => {};
  return (event) => {
    try {
      const result = listener(event) as unknown;
      if (result && typeof (result as Promise<unknown>).catch === 'function') (result as Promise<unknown>).catch(() => {});
    } catch {
      // A failing listener must not turn a served token into an error.
    }
  };
}
