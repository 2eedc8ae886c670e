/**
 * The sidecar's shared token store: a node-redis client for the topology the environment names
 * (src/broker/store/topology.ts): `createClient` for BIOID_TOKEN_STORE_URL, `createSentinel` for
 * BIOID_TOKEN_STORE_SENTINEL_URLS + _MASTER, `createCluster` for BIOID_TOKEN_STORE_CLUSTER_URLS; TLS with
 * BIOID_TOKEN_STORE_CA_FILE (trusted beside the system's CAs) and _CERT_FILE/_KEY_FILE (mutual TLS) on every
 * TLS connection; BIOID_TOKEN_STORE_USERNAME and _PASSWORD for the data nodes. It connects in the
 * background (start-up never waits for Redis: the broker fails open until it answers), keeps its
 * connection errors from crashing the process and logs them at most once a minute.
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
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { BioIDError } from 'bioid-sdk';
import { STORE_ENV, redisTokenStore, type RedisClientLike, type TokenStore, type TokenStoreSettings } from 'bioid-sdk/broker';
import { STORE_SOCKET, keepStoreSocketErrors } from './store-socket.js';
import { throttled } from './throttle.js';
import { tracedStore } from './tracing.js';

/** A connected node-redis client of any topology, as far as this module uses it. */
type TopologyClient = RedisClientLike & {
  on(event: 'error' | 'ready' | 'ping-interval', listener: (value: unknown) => void): unknown;
  connect(): Promise<unknown>;
  ping(): Promise<unknown>;
  destroy(): void;
};

/** What this module needs of the `redis` package. */
interface RedisModule {
  createClient(options: Record<string, unknown>): TopologyClient;
  createSentinel(options: Record<string, unknown>): TopologyClient;
  createCluster(options: Record<string, unknown>): TopologyClient;
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
  /**
   * Whether the store refused this instance's credentials (NOAUTH, WRONGPASS) or TLS (an untrusted or misnamed
   * certificate, a client certificate refused) since it last answered.
   */
  refused(): boolean;
  close(): void;
}

export async function connectTokenStore(
  settings: TokenStoreSettings,
  log: (fields: Record<string, unknown>) => void,
  load: () => Promise<unknown> = () => import('redis'),
  limits: StoreConnectionLimits = STORE_CONNECTION,
): Promise<ConnectedStore> {
  const client = createStoreClient(await loadRedis(load), settings, limits);
  const { sentinel, cluster } = settings;
  let last: StoreFailure = { error: 'error' };
  const line = (suppressed: number) => {
    const { error, fix } = last;
    log({ event: 'store-connection-error', error, ...(fix ? { fix } : {}), ...(suppressed ? { suppressed } : {}) });
  };
  // Refusals apart: the hint that keeps an instance unready is written even when a reset came first.
  const reportFailure = throttled(line);
  const reportRefusal = throttled(line);
  const report = () => (last.refused ? reportRefusal() : reportFailure());
  // A refusal stays until the store answers: the reset that often follows a TLS alert says nothing of
  // whether the configuration was fixed.
  let refused = false;
  const failed = (error: unknown) => {
    last = describeStoreFailure(error, settings, limits);
    if (last.refused) refused = true;
    report();
  };
  // The client's own errors (connection, timeout, a failed PING of pingInterval).
  client.on('error', failed);
  let answered = false;
  let closed = false;
  if (sentinel || cluster) {
    void connectAndProbe(client, limits.pingIntervalMs, failed, () => closed).then(() => {
      answered = true;
      refused = false;
    });
  } else {
    // 'ready' only says the connection is open: a store that wants a password takes it and then refuses every
    // command (NOAUTH). The store has answered once a command of ours did: the PING sent when ready, or
    // one of pingInterval's.
    client.on('ready', () => {
      client.ping().then(() => {
        answered = true;
        refused = false;
      }, failed);
    });
    client.on('ping-interval', () => {
      answered = true;
      refused = false;
    });
    client.connect().catch(() => {
      // Reported through 'error'; the client keeps reconnecting.
    });
  }
  const first = new URL(settings.url ?? (sentinel ?? cluster)!.urls[0]);
  return {
    store: tracedStore(
      redisTokenStore({ client, encryptionKey: settings.encryptionKey }),
      settings.socketPath ? {} : { address: first.hostname, port: Number(first.port || 6379) },
    ),
    where: storeWhere(settings, first),
    answered: () => answered,
    refused: () => refused,
    close: () => {
      closed = true;
      try {
        client.destroy();
      } catch {
        // Already closed.
      }
    },
  };
}

/** The `redis` package, loaded only when a store is configured. */
async function loadRedis(load: () => Promise<unknown>): Promise<RedisModule> {
  try {
    return (await load()) as RedisModule;
  } catch {
    throw new BioIDError(
      'config',
      `bioid-broker serve: ${STORE_ENV.url} is set, but the redis package cannot be loaded: reinstall bioid-broker (it depends on redis), or unset ${STORE_ENV.url}.`,
    );
  }
}

/** The node-redis client of the configured topology: one server, Sentinel or a Cluster. */
function createStoreClient(redis: RedisModule, settings: TokenStoreSettings, limits: StoreConnectionLimits) {
  const socket = {
    socketTimeout: limits.socketTimeoutMs,
    // node-redis's default gives up on a connection that timed out; the store may come back, so retry,
    // backing off to 2 s (with jitter, so instances do not reconnect in step).
    reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000) + Math.floor(Math.random() * 200),
    ...tlsOptions(settings),
  };
  // Commands fail at once while disconnected instead of queueing: a queued lock or write replayed minutes
  // later would only get in the way, and the broker serves without the store meanwhile.
  // BIOID_TOKEN_STORE_USERNAME/PASSWORD for every scheme (a unix:// URL cannot carry them). When they are
  // set, tokenStoreFromEnv (src/broker/store/env.ts) has made sure the URL carries no credentials of its
  // own, which node-redis would take instead of these.
  const node = {
    ...(settings.username === undefined ? {} : { username: settings.username }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    disableOfflineQueue: true,
    pingInterval: limits.pingIntervalMs,
    commandsQueueMaxLength: limits.maxQueued,
  };
  const { sentinel, cluster } = settings;
  return sentinel
    ? redis.createSentinel({
        name: sentinel.master,
        sentinelRootNodes: sentinel.urls.map(hostAndPort),
        nodeClientOptions: { ...node, socket },
        // The sentinels' own credentials, if any, are in their URLs (src/broker/store/topology.ts).
        sentinelClientOptions: { ...credentialsOf(sentinel.urls), socket },
      })
    : cluster
      ? redis.createCluster({ rootNodes: cluster.urls.map((url) => ({ socket: hostAndPort(url) })), defaults: { ...node, socket } })
      : redis.createClient({
          ...(settings.socketPath ? { socket: { ...socket, path: settings.socketPath } } : { url: settings.url, socket }),
          ...node,
        });
}

/** Where the store is, without credentials, for the start-up line. */
function storeWhere({ socketPath, sentinel, cluster }: TokenStoreSettings, first: URL): string {
  if (socketPath) return `unix://${socketPath}`;
  if (sentinel) return `sentinel ${sentinel.master} via ${sentinel.urls.map((url) => new URL(url).host).join(',')}`;
  if (cluster) return `cluster via ${cluster.urls.map((url) => new URL(url).host).join(',')}`;
  return `${first.protocol}//${first.host}`;
}

/**
 * Sentinel and cluster clients have no 'ready' per connection to hang a PING on, and a cluster client
 * does not retry its first discovery: connect until it takes, then PING until the store answers once.
 */
async function connectAndProbe(client: TopologyClient, pauseMs: number, failed: (error: unknown) => void, closed: () => boolean) {
  /** `call` again after each failure, a pause apart, until it takes; never settles once the store is closed. */
  const untilItTakes = async (call: () => Promise<unknown>): Promise<void> => {
    for (;;) {
      if (closed()) return new Promise<never>(() => {});
      try {
        await call();
        return;
      } catch (error) {
        failed(error);
        await new Promise((resolve) => setTimeout(resolve, pauseMs).unref());
      }
    }
  };
  await untilItTakes(() => client.connect());
  await untilItTakes(() => client.ping());
}

const hostAndPort = (url: string) => {
  const { hostname, port } = new URL(url);
  return { host: hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(port || 6379) };
};

/** The credentials the first of `urls` that has any carries. */
function credentialsOf(urls: readonly string[]): { username?: string; password?: string } {
  const url = urls.map((u) => new URL(u)).find((u) => u.username !== '' || u.password !== '');
  if (!url) return {};
  return {
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
  };
}

/**
 * The TLS socket options when the store's URLs are rediss://: the CA file trusted beside the system's CAs
 * (node's `ca` replaces them, so they are passed too), the client certificate for mutual TLS. Node checks
 * the server's name against its certificate. A file that cannot be read, or holds no PEM, stops start-up
 * with an error naming its variable (never its content: one of them is a private key).
 */
function tlsOptions(settings: TokenStoreSettings): Record<string, unknown> {
  const first = settings.url ?? (settings.sentinel ?? settings.cluster)?.urls[0] ?? '';
  if (!first.startsWith('rediss:')) return {};
  const { caFile, certFile, keyFile } = settings.tls ?? {};
  // A refused client certificate must not end the process (store-socket.ts).
  keepStoreSocketErrors();
  return {
    tls: true,
    [STORE_SOCKET]: true,
    ...(caFile ? { ca: [...rootCertificates, pemFile(caFile, STORE_ENV.caFile)] } : {}),
    ...(certFile && keyFile ? { cert: pemFile(certFile, STORE_ENV.certFile), key: pemFile(keyFile, STORE_ENV.keyFile) } : {}),
  };
}

function pemFile(path: string, variable: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new BioIDError(
      'config',
      `bioid-broker serve: ${variable} names a file this process cannot read (${typeof code === 'string' ? code : 'error'}): mount the PEM file there (a Kubernetes Secret as a volume), or correct ${variable}.`,
    );
  }
  if (!text.includes('-----BEGIN ')) {
    throw new BioIDError(
      'config',
      `bioid-broker serve: ${variable} names a file that holds no PEM block (-----BEGIN …): give the PEM file itself.`,
    );
  }
  return text;
}

interface StoreFailure {
  error: string;
  fix?: string;
  /**
   * The store refused this instance's credentials or client certificate, or its certificate is not one this
   * instance trusts: the instance's configuration, not the store, is wrong (not logged).
   */
  refused?: true;
}

/** Node's codes for a server certificate no trusted CA signed. */
const UNTRUSTED_CERTIFICATE = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** OpenSSL's alerts for a client certificate the server wanted and did not take. */
const REFUSED_CLIENT_CERTIFICATE = /^ERR_SSL_.*(CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_UNKNOWN)$/;

/** TLS failures this instance's configuration causes, with the variable that fixes each. */
function tlsFailure(code: string, settings: TokenStoreSettings): StoreFailure | undefined {
  const place = settings.sentinel ? STORE_ENV.sentinelUrls : settings.cluster ? STORE_ENV.clusterUrls : STORE_ENV.url;
  if (UNTRUSTED_CERTIFICATE.has(code)) {
    return {
      error: `the store's certificate is not signed by a CA this instance trusts (${code})`,
      refused: true,
      fix: `set ${STORE_ENV.caFile} to the PEM file of the CA that signed the store's certificate`,
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      error: `the store's certificate does not name the host connected to (${code})`,
      refused: true,
      fix: `write the host in ${place} as the certificate names it`,
    };
  }
  if (REFUSED_CLIENT_CERTIFICATE.test(code)) {
    return {
      error: `the store refused this instance's client certificate (${code})`,
      refused: true,
      fix: `set ${STORE_ENV.certFile} and ${STORE_ENV.keyFile} to a client certificate signed by a CA the store trusts, and its key`,
    };
  }
  return undefined;
}

/**
 * A log-safe account of a store failure: a system error code, the store's own error code (the first word
 * of its reply) or the class, and what to do when the operator can fix it. Never a message: it could
 * hold the URL, and the URL a password.
 */
function describeStoreFailure(error: unknown, settings: TokenStoreSettings, limits: StoreConnectionLimits): StoreFailure {
  // Sentinel and cluster clients wrap a node's error in one of their own: its cause has the code.
  const code = [error, (error as { cause?: unknown } | null)?.cause]
    .map((e) => (e as { code?: unknown } | null)?.code)
    .find((c): c is string => typeof c === 'string' && c !== '');
  if (code !== undefined) return tlsFailure(code, settings) ?? { error: code };
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
