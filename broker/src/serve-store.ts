/**
 * The sidecar's shared token store: a node-redis client for BIOID_TOKEN_STORE_URL (with
 * BIOID_TOKEN_STORE_USERNAME and BIOID_TOKEN_STORE_PASSWORD when set), connected in the
 * background (start-up never waits for Redis: the broker fails open until it answers), with its connection
 * errors kept from crashing the process and logged at most once a minute.
 *
 * A store that stops answering while its connection stays open (a frozen process, a network that drops
 * packets without a reset) is found and dropped (docs/operations.md, "The store's connection"): the client
 * PINGs an idle connection every `pingIntervalMs`, a connection that receives nothing for `socketTimeoutMs`
 * is closed (which fails every command waiting on it, then reconnects), and no more than `maxQueued`
 * commands wait at once (more fail at once). The broker does not wait for them anyway (storeTimeoutMs);
 * without these, each would stay in memory until the store answered.
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
    on(event: 'error' | 'ready' | 'ping-interval', listener: (value: unknown) => void): unknown;
    connect(): Promise<unknown>;
    ping(): Promise<unknown>;
    destroy(): void;
  };
}

/** How the connection finds a store that stopped answering; tests shorten them. */
export interface StoreConnectionLimits {
  pingIntervalMs: number;
  socketTimeoutMs: number;
  maxQueued: number;
}

/**
 * A PING a second keeps a healthy idle connection from reaching the timeout. 5 s is well over a healthy
 * store's slowest answer (a fork, a slow disk's fsync), and a store that long silent is reconnected to. 5000
 * commands waiting at once is more than any burst of new users an instance serves, and about 15 MB.
 */
export const STORE_CONNECTION: StoreConnectionLimits = { pingIntervalMs: 1_000, socketTimeoutMs: 5_000, maxQueued: 5_000 };

export interface ConnectedStore {
  store: TokenStore;
  /** Where the store is, without credentials: for the start-up line. */
  where: string;
  /** Whether the store has answered a command once (a PING): `/readyz` waits for it, once. */
  answered(): boolean;
  /** Whether the store's last word was a refusal of this instance's credentials (NOAUTH, WRONGPASS). */
  refused(): boolean;
  close(): void;
}

export async function connectTokenStore(
  settings: TokenStoreSettings,
  log: (fields: Record<string, unknown>) => void,
  load: () => Promise<unknown> = () => import('redis'),
  limits: StoreConnectionLimits = STORE_CONNECTION,
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
  const socket = {
    socketTimeout: limits.socketTimeoutMs,
    // node-redis's default gives up on a connection that timed out; the store may come back, so retry,
    // backing off to 2 s (with jitter, so instances do not reconnect in step).
    reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000) + Math.floor(Math.random() * 200),
  };
  // Commands fail at once while disconnected instead of queueing: a queued lock or write replayed minutes
  // later would only get in the way, and the broker serves without the store meanwhile.
  // BIOID_TOKEN_STORE_USERNAME/PASSWORD for every scheme (a unix:// URL cannot carry them). When they are
  // set, tokenStoreFromEnv (src/broker/store-env.ts) has made sure the URL carries no credentials of its
  // own, which node-redis would take instead of these.
  const client = redis.createClient({
    ...(settings.socketPath ? { socket: { ...socket, path: settings.socketPath } } : { url: settings.url, socket }),
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    disableOfflineQueue: true,
    pingInterval: limits.pingIntervalMs,
    commandsQueueMaxLength: limits.maxQueued,
  });
  let last: StoreFailure = { error: 'error' };
  const report = throttled((suppressed) => {
    const { error, fix } = last;
    log({ event: 'store-connection-error', error, ...(fix ? { fix } : {}), ...(suppressed ? { suppressed } : {}) });
  });
  const failed = (error: unknown) => {
    last = describeStoreFailure(error, settings, limits);
    report();
  };
  // The client's own errors (connection, timeout, a failed PING of pingInterval).
  client.on('error', failed);
  // 'ready' only says the connection is open: a store that wants a password takes it and then refuses every
  // command (NOAUTH). The store has answered once a command of ours did: the PING sent when ready, or
  // one of pingInterval's.
  let answered = false;
  client.on('ready', () => {
    client.ping().then(() => {
      answered = true;
    }, failed);
  });
  client.on('ping-interval', () => {
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
    refused: () => last.refused === true,
    close: () => {
      try {
        client.destroy();
      } catch {
        // Already closed.
      }
    },
  };
}

interface StoreFailure {
  error: string;
  fix?: string;
  /** The store refused this instance's credentials: its configuration, not the store, is wrong (not logged). */
  refused?: true;
}

/**
 * A log-safe account of a store failure: a system error code, the store's own error code (the first word
 * of its reply) or the class, and what to do when the operator can fix it. Never a message: it could
 * hold the URL, and the URL a password.
 */
function describeStoreFailure(error: unknown, settings: TokenStoreSettings, limits: StoreConnectionLimits): StoreFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return { error: code };
  if (!(error instanceof Error)) return { error: 'error' };
  const kind = error.constructor.name;
  if (kind === 'SocketTimeoutError') return { error: `no answer for ${limits.socketTimeoutMs} ms: reconnecting` };
  // node-redis's own words for commandsQueueMaxLength: fixed text, nothing of the store's.
  if (error.message === 'The queue is full') return { error: `${limits.maxQueued} commands waiting for an answer: more fail at once` };
  // An error reply of the store (ErrorReply, SimpleError): its first word is the code, NOAUTH, WRONGPASS, ERR…
  const reply = /^([A-Z][A-Z_]+)\b/.exec(error.message)?.[1];
  if (reply === 'NOAUTH' || reply === 'WRONGPASS') {
    return {
      error: `authentication failed (${reply})`,
      refused: true,
      // Names the variables only: never what they hold.
      fix: settings.socketPath
        ? `set ${STORE_ENV.password} to the password the store accepts (and ${STORE_ENV.username} to its user, with ACL users)`
        : `set ${STORE_ENV.password} to the password the store accepts (and ${STORE_ENV.username} to its user, with ACL users), or give them in ${STORE_ENV.url}: redis://user:password@host:6379`,
    };
  }
  if (reply && /Reply$|^SimpleError$|^BlobError$/.test(kind)) return { error: reply };
  return { error: error.name === 'Error' ? kind : error.name };
}
