/**
 * The shared token store's environment variables, read together (each needs the others): where the store
 * is, exactly one of BIOID_TOKEN_STORE_URL (one server: redis://, rediss:// or unix://),
 * BIOID_TOKEN_STORE_SENTINEL_URLS with BIOID_TOKEN_STORE_SENTINEL_MASTER (Sentinel) and
 * BIOID_TOKEN_STORE_CLUSTER_URLS (Cluster seed nodes); BIOID_TOKEN_STORE_CA_FILE, _CERT_FILE and _KEY_FILE
 * for TLS; BIOID_TOKEN_STORE_KEY (32 random bytes in base64; comma-separated while keys rotate, the first
 * encrypts), BIOID_TOKEN_STORE_TIMEOUT_MS (the bound on each store call, `storeTimeoutMs`) and
 * BIOID_TOKEN_STORE_USERNAME / BIOID_TOKEN_STORE_PASSWORD (the data nodes' credentials apart from the URL:
 * a unix:// URL cannot carry them, and operators keep a password in a secret of its own). Only validated
 * here, files included by name only: the handler cannot create a Redis client or read a file on every
 * runtime, so whoever runs it (the sidecar, broker/src/serve-store.ts) connects and passes
 * `redisTokenStore({ client, encryptionKey })`.
 */
import { BioIDError } from '../../core/errors.js';
import { envMilliseconds, envValue, type EnvLike } from '../config/env-values.js';
import { BROKER_VARIABLES } from '../config/env-variables.js';
import { KEY_HINT, readEncryptionKeys } from './crypto.js';
import { STORE_URL_EXAMPLE, storeTopologyFromEnv } from './topology.js';

// Declared with the others in ../config/env-variables.ts.
/** The shared token store's variables by their role: the same names as BROKER_ENV's tokenStore*. */
export const STORE_ENV = {
  url: BROKER_VARIABLES.tokenStoreUrl.env,
  key: BROKER_VARIABLES.tokenStoreKey.env,
  timeout: BROKER_VARIABLES.tokenStoreTimeoutMs.env,
  username: BROKER_VARIABLES.tokenStoreUsername.env,
  password: BROKER_VARIABLES.tokenStorePassword.env,
  caFile: BROKER_VARIABLES.tokenStoreCaFile.env,
  certFile: BROKER_VARIABLES.tokenStoreCertFile.env,
  keyFile: BROKER_VARIABLES.tokenStoreKeyFile.env,
  sentinelUrls: BROKER_VARIABLES.tokenStoreSentinelUrls.env,
  sentinelMaster: BROKER_VARIABLES.tokenStoreSentinelMaster.env,
  clusterUrls: BROKER_VARIABLES.tokenStoreClusterUrls.env,
} as const;

export interface TokenStoreSettings {
  /** Which of the three: one server (`url`), Sentinel (`sentinel`) or Cluster (`cluster`). */
  topology: 'server' | 'sentinel' | 'cluster';
  /** One server: BIOID_TOKEN_STORE_URL as given (it may hold a password: never log it whole). */
  url?: string;
  /** For unix://: the socket's path. */
  socketPath?: string;
  /**
   * Sentinel: the sentinels' URLs (credentials in them are the sentinels' own) and the master's name. The
   * sentinels' scheme is the data nodes' too: rediss:// sentinels, TLS everywhere.
   */
  sentinel?: { urls: string[]; master: string };
  /** Cluster: the seed nodes' URLs (without credentials: every node gets `username` and `password`). */
  cluster?: { urls: string[] };
  /** TLS files by path (read by whoever connects), for every TLS connection of the store. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /** The keys, as base64 strings, first one encrypting. */
  encryptionKey: string[];
  /** The bound on each store call in milliseconds (the broker's `storeTimeoutMs`), when set. */
  timeoutMs?: number;
  /**
   * BIOID_TOKEN_STORE_USERNAME, when set: the store's ACL user, for node-redis's `username`. The URL then
   * carries no credentials, so `createClient({ url, username, password })` uses these.
   */
  username?: string;
  /** BIOID_TOKEN_STORE_PASSWORD, when set: for node-redis's `password` (never log it). */
  password?: string;
}

/** The validated store settings, or undefined when no store variable is set. Values are never echoed. */
export function tokenStoreFromEnv(env: EnvLike, where = 'brokerOptionsFromEnv'): TokenStoreSettings | undefined {
  const key = envValue(env, STORE_ENV.key);
  const timeout = envValue(env, STORE_ENV.timeout);
  const username = envValue(env, STORE_ENV.username);
  const password = envValue(env, STORE_ENV.password);
  const error = (message: string) => new BioIDError('config', `${where}: ${message}`);
  const place = storeTopologyFromEnv(env, error);
  // Credentials without a store are a mistake in the deployment (a Secret mounted on the wrong
  // container, a URL dropped): say so rather than run without the store the operator meant to give.
  const credential = password !== undefined ? STORE_ENV.password : username !== undefined ? STORE_ENV.username : undefined;
  if (place === undefined && credential !== undefined) {
    throw error(
      `${credential} is set but ${STORE_ENV.url} is not: it is a credential of the shared token store; set ${STORE_ENV.url} to your Redis or Valkey (${STORE_URL_EXAMPLE}), or ${STORE_ENV.sentinelUrls} or ${STORE_ENV.clusterUrls}, or unset ${credential}.`,
    );
  }
  if (place === undefined && key === undefined) {
    if (timeout !== undefined)
      throw error(
        `${STORE_ENV.timeout} is set but ${STORE_ENV.url} is not: it bounds the shared token store's calls; set the store, or unset it.`,
      );
    return undefined;
  }
  const timeoutMs = envMilliseconds(timeout, STORE_ENV.timeout, where);
  if (key === undefined) {
    throw error(
      `${place!.variable} is set but ${STORE_ENV.key} is not: the shared token store needs a key to encrypt what it stores; ${KEY_HINT} and set it in ${STORE_ENV.key} on every instance.`,
    );
  }
  if (place === undefined) {
    throw error(
      `${STORE_ENV.key} is set but ${STORE_ENV.url} is not: set ${STORE_ENV.url} to your Redis or Valkey (${STORE_URL_EXAMPLE}), or ${STORE_ENV.sentinelUrls} or ${STORE_ENV.clusterUrls}, or unset ${STORE_ENV.key}.`,
    );
  }
  const { parsed } = place;
  // The credentials come from one place: the URL, or the two variables. A URL with its own user or
  // password beside either variable is ambiguous, and node-redis would settle it silently: the URL's
  // credentials win over its `username` and `password` options, so the variable would be ignored. The
  // error names the variables, never a value (nor the URL, which holds one). (Sentinels' URLs may carry
  // the sentinels' own credentials: the variables are the data nodes'.)
  if (credential !== undefined && parsed && (parsed.username !== '' || parsed.password !== '')) {
    const set =
      username !== undefined && password !== undefined ? `${STORE_ENV.username} and ${STORE_ENV.password} are` : `${credential} is`;
    throw error(
      `${set} set, and ${STORE_ENV.url} carries credentials too (user:password@): give the store's credentials in one place, either in the URL or in ${STORE_ENV.username} and ${STORE_ENV.password}, and remove them from the other.`,
    );
  }
  // Checked here so a bad key stops start-up; its errors name the variable, never the value.
  readEncryptionKeys(key, `environment variable ${STORE_ENV.key}`, where);
  return {
    topology: place.topology,
    ...(place.url === undefined ? {} : { url: place.url }),
    ...(parsed?.protocol === 'unix:' ? { socketPath: decodeURIComponent(parsed.pathname) } : {}),
    ...(place.sentinel ? { sentinel: place.sentinel } : {}),
    ...(place.cluster ? { cluster: place.cluster } : {}),
    ...(place.tls ? { tls: place.tls } : {}),
    encryptionKey: key.split(',').map((k) => k.trim()),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
  };
}
