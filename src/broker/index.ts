/**
 * `bioid-sdk/broker`: the reference token broker (spec 4.1, 4.2, 5.5, 5.6) for the integrator's backend.
 * A web-standard `(Request) => Promise<Response>` handler for fetch-style hosts (Next.js route handlers,
 * workers, Deno, Bun), an adapter for Node/Express, and options from environment variables.
 */
export { createTokenBroker, type TokenBrokerHandler } from './handler.js';
export { expressTokenBroker, toNodeHandler, type NodeHandlerOptions, type NodeTokenBrokerHandler } from './adapters/node.js';
export { forwardAuth, type ForwardAuthGate, type ForwardAuthOptions, type SessionCheckProbe } from './adapters/forward-auth.js';
export type { BrokerRefusal, RefusalReason } from './refusal.js';
export type {
  BrokerEvent,
  BrokerEventListener,
  ExchangeEvent,
  RefusedTokenEvent,
  RefusedTokenResult,
  RequestEvent,
  RequestOutcome,
  StoreErrorEvent,
  StoreOperation,
} from './events.js';
export { memoryTokenStore, type TokenStore } from './store/token-store.js';
export { DEFAULT_STORE_PREFIX, redisTokenStore, type RedisClientLike, type RedisTokenStoreOptions } from './store/redis.js';
export { BROKER_ENV, brokerOptionsFromEnv, type BrokerOverrides, type EnvLike } from './config/env.js';
export { envBoolean, envMilliseconds, envValue } from './config/env-values.js';
export { STORE_ENV, tokenStoreFromEnv, type TokenStoreSettings } from './store/env.js';
export {
  DEFAULT_BROKER_TIMEOUT_MS,
  DEFAULT_MAX_CACHED_USERS,
  DEFAULT_REFUSED_TOKEN_INTERVAL_MS,
  DEFAULT_REFUSED_TOKEN_MIN_AGE_MS,
  DEFAULT_STORE_LOCK_WAIT_MS,
  DEFAULT_STORE_TIMEOUT_MS,
  type TokenBrokerOptions,
  type TokenExchangeOptions,
} from './config/options.js';
export type { BrokerContext } from './adapters/context.js';
