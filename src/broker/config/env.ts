/**
 * Broker options from environment variables (spec 4.2: the client id, the client secret and the auth base
 * address live in server-side configuration). Code-only options (`authorize`, `tokenExchange`, `logger`,
 * `onRefusal`, `onEvent`, `fetchImpl`) come as overrides, copied whatever their name; an override also
 * wins over its variable.
 */
import { BioIDError } from '../../core/errors.js';
import type { TokenBrokerOptions } from './options.js';
import { envBoolean, envMilliseconds, envValue, type EnvLike } from './env-values.js';
import { BROKER_VARIABLES, variableNames, type BrokerVariableKinds } from './env-variables.js';
import { tokenStoreFromEnv } from '../store/env.js';

export type { EnvLike } from './env-values.js';

// Derived from the declaration of each variable (env-variables.ts), like the tables in the docs.
/** The documented variable names, by option; docs/broker.md lists each with its meaning and default. */
export const BROKER_ENV = variableNames(BROKER_VARIABLES);

export type BrokerOverrides = Partial<TokenBrokerOptions> & Pick<TokenBrokerOptions, 'authorize'>;

const WHERE = 'brokerOptionsFromEnv';

/** Each kind's reading of a set variable (unset ones never get here). */
const READ: { [K in keyof BrokerVariableKinds]: (value: string, name: string) => BrokerVariableKinds[K] | undefined } = {
  string: (value) => value,
  secret: (value) => value,
  url: (value) => value,
  list: (value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  milliseconds: (value, name) => envMilliseconds(value, name, WHERE),
  boolean: (value, name) => envBoolean(value, name, WHERE),
};

/**
 * The variables that set an option, issuerUrl first: whether BIOID_REALM is required depends on it. The
 * store's variables are read together by tokenStoreFromEnv.
 */
const OPTION_VARIABLES = Object.values(BROKER_VARIABLES)
  .filter((variable) => variable.kind !== 'store')
  .sort((a, b) => Number(b.option === 'issuerUrl') - Number(a.option === 'issuerUrl'));

/** The options a variable sets: read above, or with the store's variables below; the others come from code only. */
const SET_BY_VARIABLES = new Set<string>(Object.values(BROKER_VARIABLES).map((variable) => variable.option));

/**
 * Reads the variables of `BROKER_ENV` (docs/broker.md lists them): BIOID_CLIENT_ID, BIOID_CLIENT_SECRET,
 * BIOID_AUTH_URL and BIOID_REALM are required unless given in `overrides` (BIOID_REALM also when
 * BIOID_AUTH_URL ends in /realms/<realm>); the others are optional.
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
  const options: Record<string, unknown> = {};
  for (const variable of OPTION_VARIABLES) {
    const { option, env: name, kind } = variable;
    // An override wins, and then the variable is not read at all (a malformed one included).
    let value: unknown = overrides[option];
    if (value === undefined || value === null) {
      const text = envValue(vars, name);
      if (text === undefined) {
        const lifted = 'optional' in variable && variable.optional.when(options as Pick<TokenBrokerOptions, 'issuerUrl'>);
        if ('required' in variable && !lifted) {
          throw new BioIDError('config', `${WHERE}: environment variable ${name} is not set: ${variable.required}.`);
        }
        continue;
      }
      value = READ[kind](text, name);
    }
    if (value !== undefined) options[option] = value;
  }
  // Every option no variable sets (authorize, tokenExchange, logger, … and any added later) is copied as
  // given, so none is dropped; createTokenBroker checks each, and names a key it does not know.
  for (const [option, value] of Object.entries(overrides)) {
    if (!SET_BY_VARIABLES.has(option) && value !== undefined) options[option] = value;
  }
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
  // The table's entries are checked against TokenBrokerOptions at compile time (env-variables.ts).
  return options as unknown as TokenBrokerOptions;
}
