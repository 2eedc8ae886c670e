/**
 * The sidecar's shared token store: a node-redis client for BIOID_TOKEN_STORE_URL, connected in the
 * background (start-up never waits for Redis: the broker fails open until it answers), with its connection
 * errors kept from crashing the process and logged at most once a minute.
 *
 * `redis` (a dependency of bioid-broker) is loaded only when a store is configured.
 */
import { BioIDError } from 'bioid-sdk';
import { STORE_ENV, redisTokenStore, type RedisClientLike, type TokenStore, type TokenStoreSettings } from 'bioid-sdk/broker';
import { throttled } from './throttle.js';
import { tracedStore } from './tracing.js';

/** What this module needs of the `redis` package. */
interface RedisModule {
  createClient(options: Record<string, unknown>): RedisClientLike & {
    on(event: 'error' | 'ready', listener: (error: unknown) => void): unknown;
    connect(): Promise<unknown>;
    destroy(): void;
  };
}

export interface ConnectedStore {
  store: TokenStore;
  /** Where the store is, without credentials: for the start-up line. */
  where: string;
  /** Whether the store has answered once (the client was ready): `/readyz` waits for it, once. */
  answered(): boolean;
  close(): void;
}

export async function connectTokenStore(
  settings: TokenStoreSettings,
  log: (fields: Record<string, unknown>) => void,
  load: () => Promise<unknown> = () => import('redis'),
): Promise<ConnectedStore> {
  let redis: RedisModule;
  try {
    redis = (await load()) as RedisModule;
  } catch {
    throw new BioIDError(
      'config',
      `bioid-broker serve: ${STORE_ENV.url} is set, but the redis package cannot be loaded: reinstall bioid-broker (it depends on redis), or unset ${STORE_ENV.url}.`,
    );
  }
  // Commands fail at once while disconnected instead of queueing: a queued lock or write replayed minutes
  // later would only get in the way, and the broker serves without the store meanwhile.
  const client = redis.createClient(
    settings.socketPath
      ? { socket: { path: settings.socketPath }, disableOfflineQueue: true }
      : { url: settings.url, disableOfflineQueue: true },
  );
  let lastError = 'error';
  const report = throttled((suppressed) =>
    log({ event: 'store-connection-error', error: lastError, ...(suppressed ? { suppressed } : {}) }),
  );
  client.on('error', (error: unknown) => {
    // The code or class only: a message could hold the URL, and the URL a password.
    lastError = (error as { code?: unknown })?.code
      ? String((error as { code: unknown }).code)
      : error instanceof Error
        ? error.name
        : 'error';
    report();
  });
  let answered = false;
  client.on('ready', () => {
    answered = true;
  });
  client.connect().catch(() => {
    // Reported through 'error'; the client keeps reconnecting.
  });
  const url = new URL(settings.url);
  const where = settings.socketPath ? `unix://${settings.socketPath}` : `${url.protocol}//${url.host}`;
  return {
    store: tracedStore(
      redisTokenStore({ client, encryptionKey: settings.encryptionKey }),
      settings.socketPath ? {} : { address: url.hostname, port: Number(url.port || 6379) },
    ),
    where,
    answered: () => answered,
    close: () => {
      try {
        client.destroy();
      } catch {
        // Already closed.
      }
    },
  };
}
