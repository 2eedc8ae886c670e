/**
 * Broker options from environment variables (spec 4.2: the client id, the client secret and the auth base
 * address live in server-side configuration). Code-only options (`authorize`, `tokenExchange`, `logger`,
 * `onRefusal`, `fetchImpl`) come as overrides; an override also wins over its variable.
 */
import { realmOf } from '../core/config.js';
import { BioIDError } from '../core/errors.js';
import type { TokenBrokerOptions } from './options.js';
import { readMilliseconds } from './env-values.js';
import { STORE_ENV, tokenStoreFromEnv } from './store-env.js';

/** The documented variable names, one place. */
export const BROKER_ENV = {
  clientId: 'BIOID_CLIENT_ID',
  clientSecret: 'BIOID_CLIENT_SECRET',
  issuerUrl: 'BIOID_AUTH_URL',
  realm: 'BIOID_REALM',
  audience: 'BIOID_AUDIENCE',
  scope: 'BIOID_SCOPE',
  allowedOrigins: 'BIOID_ALLOWED_ORIGINS',
  timeoutMs: 'BIOID_TIMEOUT_MS',
  requireCsrfHeader: 'BIOID_REQUIRE_CSRF_HEADER',
  middlewareUrl: 'BIOID_MIDDLEWARE_URL',
  tokenStoreUrl: STORE_ENV.url,
  tokenStoreKey: STORE_ENV.key,
  tokenStoreTimeoutMs: STORE_ENV.timeout,
} as const;

export type EnvLike = Record<string, string | undefined>;
export type BrokerOverrides = Partial<TokenBrokerOptions> & Pick<TokenBrokerOptions, 'authorize'>;

const WHERE = 'brokerOptionsFromEnv';

/**
 * Reads BIOID_CLIENT_ID, BIOID_CLIENT_SECRET, BIOID_AUTH_URL and BIOID_REALM (required unless given in
 * `overrides`, or BIOID_AUTH_URL ends in /realms/<realm>), and the optional BIOID_AUDIENCE, BIOID_SCOPE,
 * BIOID_ALLOWED_ORIGINS (comma-separated), BIOID_TIMEOUT_MS and BIOID_REQUIRE_CSRF_HEADER (true/false).
 * A missing variable is an error naming it; values are never echoed (one of them is a secret).
 */
export function brokerOptionsFromEnv(env: EnvLike | undefined, overrides: BrokerOverrides): TokenBrokerOptions {
  const vars: EnvLike = env ?? (globalThis as { process?: { env?: EnvLike } }).process?.env ?? {};
  if (!overrides || typeof overrides.authorize !== 'function') {
    throw new BioIDError(
      'config',
      `${WHERE}: overrides.authorize is required: your session gate, a function (request, context) that is truthy only for a signed-in user.`,
    );
  }
  const read = (name: string): string | undefined => {
    const value = vars[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const required = (name: string, what: string): string => {
    const value = read(name);
    if (value === undefined) throw new BioIDError('config', `${WHERE}: environment variable ${name} is not set: ${what}.`);
    return value;
  };

  const issuerUrl =
    overrides.issuerUrl ?? required(BROKER_ENV.issuerUrl, "the identity provider's base address, for example https://idp.example.com");
  const realmInUrl = realmOf(issuerUrl) !== undefined;
  const options: TokenBrokerOptions = {
    issuerUrl,
    clientId: overrides.clientId ?? required(BROKER_ENV.clientId, 'the client id of your machine identity'),
    clientSecret: overrides.clientSecret ?? required(BROKER_ENV.clientSecret, 'the client secret of your machine identity'),
    authorize: overrides.authorize,
  };
  const realm =
    overrides.realm ??
    (realmInUrl
      ? read(BROKER_ENV.realm)
      : required(BROKER_ENV.realm, 'the realm of your identity provider (the <realm> in /realms/<realm>/protocol/openid-connect/token)'));
  if (realm !== undefined) options.realm = realm;
  const audience = overrides.audience ?? read(BROKER_ENV.audience);
  if (audience !== undefined) options.audience = audience;
  const scope = overrides.scope ?? read(BROKER_ENV.scope);
  if (scope !== undefined) options.scope = scope;
  const origins =
    overrides.allowedOrigins ??
    read(BROKER_ENV.allowedOrigins)
      ?.split(',')
      .map((o) => o.trim())
      .filter(Boolean);
  if (origins !== undefined) options.allowedOrigins = origins;
  const timeoutMs = overrides.timeoutMs ?? readMilliseconds(read(BROKER_ENV.timeoutMs), BROKER_ENV.timeoutMs, WHERE);
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  const csrf = overrides.requireCsrfHeader ?? readBoolean(read(BROKER_ENV.requireCsrfHeader), BROKER_ENV.requireCsrfHeader);
  if (csrf !== undefined) options.requireCsrfHeader = csrf;
  const middlewareUrl = overrides.middlewareUrl ?? read(BROKER_ENV.middlewareUrl);
  if (middlewareUrl !== undefined) options.middlewareUrl = middlewareUrl;
  if (overrides.tokenExchange !== undefined) options.tokenExchange = overrides.tokenExchange;
  if (overrides.fetchImpl !== undefined) options.fetchImpl = overrides.fetchImpl;
  if (overrides.logger !== undefined) options.logger = overrides.logger;
  if (overrides.onRefusal !== undefined) options.onRefusal = overrides.onRefusal;
  // The store variables are checked even when a store is given, so a broken deployment fails at start.
  // Without a store override they cannot be honoured here (no Redis client in this module): say so
  // rather than run without the store the operator asked for.
  const storeSettings = tokenStoreFromEnv(vars, WHERE);
  if (overrides.store !== undefined) options.store = overrides.store;
  else if (storeSettings) {
    throw new BioIDError(
      'config',
      `${WHERE}: ${BROKER_ENV.tokenStoreUrl} is set, but this function cannot connect to a store: create a node-redis client for it and pass overrides.store = redisTokenStore({ client, encryptionKey }) (tokenStoreFromEnv(env) gives the checked URL and keys), or use bioid-broker serve, which does this.`,
    );
  }
  const storeTimeoutMs = overrides.storeTimeoutMs ?? storeSettings?.timeoutMs;
  if (storeTimeoutMs !== undefined) options.storeTimeoutMs = storeTimeoutMs;
  if (overrides.onEvent !== undefined) options.onEvent = overrides.onEvent;
  return options;
}

function readBoolean(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new BioIDError('config', `${WHERE}: environment variable ${name} must be true or false.`);
}
