/**
 * The shared token store's environment variables: BIOID_TOKEN_STORE_URL (redis://, rediss:// or unix://),
 * BIOID_TOKEN_STORE_KEY (32 random bytes in base64; comma-separated while keys rotate, the first
 * encrypts), BIOID_TOKEN_STORE_TIMEOUT_MS (the bound on each store call, `storeTimeoutMs`) and
 * BIOID_TOKEN_STORE_USERNAME / BIOID_TOKEN_STORE_PASSWORD (the store's credentials apart from the URL: a
 * unix:// URL cannot carry them, and operators keep a password in a secret of its own). Only validated
 * here: the handler cannot create a Redis client, so whoever runs it (the sidecar, broker/src/serve-store.ts)
 * connects to the URL and passes `redisTokenStore({ client, encryptionKey })`.
 */
import { BioIDError } from '../core/errors.js';
import { envMilliseconds, envValue, type EnvLike } from './env-values.js';
import { BROKER_VARIABLES } from './env-variables.js';
import { KEY_HINT, readEncryptionKeys } from './store-crypto.js';

// Declared with the others in env-variables.ts.
/** The shared token store's variables by their role: the same names as BROKER_ENV's tokenStore*. */
export const STORE_ENV = {
  url: BROKER_VARIABLES.tokenStoreUrl.env,
  key: BROKER_VARIABLES.tokenStoreKey.env,
  timeout: BROKER_VARIABLES.tokenStoreTimeoutMs.env,
  username: BROKER_VARIABLES.tokenStoreUsername.env,
  password: BROKER_VARIABLES.tokenStorePassword.env,
} as const;

export interface TokenStoreSettings {
  /** The URL as given (it may hold a password: never log it whole). */
  url: string;
  /** For unix://: the socket's path. */
  socketPath?: string;
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
  const url = envValue(env, STORE_ENV.url);
  const key = envValue(env, STORE_ENV.key);
  const timeout = envValue(env, STORE_ENV.timeout);
  const username = envValue(env, STORE_ENV.username);
  const password = envValue(env, STORE_ENV.password);
  const error = (message: string) => new BioIDError('config', `${where}: ${message}`);
  // Credentials without a store are a mistake in the deployment (a Secret mounted on the wrong
  // container, a URL dropped): say so rather than run without the store the operator meant to give.
  const credential = password !== undefined ? STORE_ENV.password : username !== undefined ? STORE_ENV.username : undefined;
  if (url === undefined && credential !== undefined) {
    throw error(
      `${credential} is set but ${STORE_ENV.url} is not: it is a credential of the shared token store; set ${STORE_ENV.url} to your Redis or Valkey (redis://host:6379, rediss://host:6380 or unix:///path/to/redis.sock), or unset ${credential}.`,
    );
  }
  if (url === undefined && key === undefined) {
    if (timeout !== undefined)
      throw error(
        `${STORE_ENV.timeout} is set but ${STORE_ENV.url} is not: it bounds the shared token store's calls; set the store, or unset it.`,
      );
    return undefined;
  }
  const timeoutMs = envMilliseconds(timeout, STORE_ENV.timeout, where);
  if (key === undefined) {
    throw error(
      `${STORE_ENV.url} is set but ${STORE_ENV.key} is not: the shared token store needs a key to encrypt what it stores; ${KEY_HINT} and set it in ${STORE_ENV.key} on every instance.`,
    );
  }
  if (url === undefined) {
    throw error(
      `${STORE_ENV.key} is set but ${STORE_ENV.url} is not: set ${STORE_ENV.url} to your Redis or Valkey (redis://host:6379, rediss://host:6380 or unix:///path/to/redis.sock), or unset ${STORE_ENV.key}.`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw error(
      `environment variable ${STORE_ENV.url} is not a URL: write redis://host:6379, rediss://host:6380 or unix:///path/to/redis.sock.`,
    );
  }
  if (!['redis:', 'rediss:', 'unix:'].includes(parsed.protocol)) {
    throw error(`environment variable ${STORE_ENV.url} must start with redis://, rediss:// or unix://.`);
  }
  if (parsed.protocol === 'unix:' && (parsed.pathname === '' || parsed.pathname === '/')) {
    throw error(`environment variable ${STORE_ENV.url} names no socket: write unix:///path/to/redis.sock.`);
  }
  // The credentials come from one place: the URL, or the two variables. A URL with its own user or
  // password beside either variable is ambiguous, and node-redis would settle it silently: the URL's
  // credentials win over its `username` and `password` options, so the variable would be ignored. The
  // error names the variables, never a value (nor the URL, which holds one).
  if (credential !== undefined && (parsed.username !== '' || parsed.password !== '')) {
    const set =
      username !== undefined && password !== undefined ? `${STORE_ENV.username} and ${STORE_ENV.password} are` : `${credential} is`;
    throw error(
      `${set} set, and ${STORE_ENV.url} carries credentials too (user:password@): give the store's credentials in one place, either in the URL or in ${STORE_ENV.username} and ${STORE_ENV.password}, and remove them from the other.`,
    );
  }
  // Checked here so a bad key stops start-up; its errors name the variable, never the value.
  readEncryptionKeys(key, `environment variable ${STORE_ENV.key}`, where);
  return {
    url,
    ...(parsed.protocol === 'unix:' ? { socketPath: decodeURIComponent(parsed.pathname) } : {}),
    encryptionKey: key.split(',').map((k) => k.trim()),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
  };
}
