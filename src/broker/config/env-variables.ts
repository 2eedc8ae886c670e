/**
 * The broker's environment variables, each declared once: its variable, the option it sets, how its value
 * is read, whether it is required (with the hint the error gives), its default and one line of docs.
 * `BROKER_ENV`, `STORE_ENV` and `brokerOptionsFromEnv` (env.ts, ../store/env.ts) and the variable tables of
 * docs/broker.md and docs/operations.md (`npm run docs`, scripts/docs-reference.mjs) derive from it.
 */
import { realmOf } from '../../core/config.js';
import { DEFAULT_AUDIENCE } from '../../core/exchange.js';
import {
  DEFAULT_BROKER_TIMEOUT_MS,
  DEFAULT_REFUSED_TOKEN_INTERVAL_MS,
  DEFAULT_REFUSED_TOKEN_MIN_AGE_MS,
  DEFAULT_STORE_LOCK_WAIT_MS,
  DEFAULT_STORE_TIMEOUT_MS,
  type TokenBrokerOptions,
} from './options.js';

/** How a variable's text becomes its option's value, and the option type each kind gives. */
export interface BrokerVariableKinds {
  string: string;
  /** A string never echoed (in errors, logs or docs examples). */
  secret: string;
  /** A URL, checked by createTokenBroker like the option itself. */
  url: string;
  /** Comma-separated, each entry trimmed, empty entries dropped. */
  list: string[];
  milliseconds: number;
  /** true, 1 or yes; false, 0 or no. */
  boolean: boolean;
}

/** The kinds whose value fits option `O` (never when none does, so such an entry does not type-check). */
type KindFor<O extends keyof TokenBrokerOptions> = {
  [K in keyof BrokerVariableKinds]: BrokerVariableKinds[K] extends NonNullable<TokenBrokerOptions[O]> ? K : never;
}[keyof BrokerVariableKinds];

interface VariableDocs {
  env: `BIOID_${string}`;
  /** One line for the docs tables: what the variable is for. */
  doc: string;
  /** The value the broker uses when the variable is unset (applied by createTokenBroker, shown in the docs). */
  default?: string | number | boolean;
  /** What the docs say when the variable is unset and there is no default value (otherwise "none"). */
  unset?: string;
}

/**
 * A variable that sets one option of TokenBrokerOptions: the type of `kind`'s value must be that option's
 * type, checked at compile time (the interface stays hand-written for its JSDoc in the reference).
 */
type OptionVariable = {
  [O in keyof TokenBrokerOptions]-?: VariableDocs & {
    option: O;
    kind: KindFor<O>;
    /** The variable must be set (unless its option is given in code): what to set it to, for the error. */
    required?: string;
    /** The requirement lifts when this holds of the options read so far (issuerUrl is read first). */
    optional?: { when: (options: Pick<TokenBrokerOptions, 'issuerUrl'>) => boolean; doc: string };
  };
}[keyof TokenBrokerOptions];

/**
 * A variable of the shared token store: read and checked together by tokenStoreFromEnv (../store/env.ts),
 * since each needs the others; the store itself is created by whoever can connect to it.
 */
interface StoreVariable extends VariableDocs {
  kind: 'store';
  option: 'store' | 'storeTimeoutMs';
  /** Docs only: when it is required (tokenStoreFromEnv checks it). */
  requiredWhen?: string;
}

export type BrokerVariable = OptionVariable | StoreVariable;

/** In the order of BROKER_ENV, which is exported API (api/bioid-sdk-broker.api.md): new entries go last. */
export const BROKER_VARIABLES = {
  clientId: {
    env: 'BIOID_CLIENT_ID',
    option: 'clientId',
    kind: 'string',
    required: 'the client id of your machine identity',
    doc: 'the client id of your machine identity at the identity provider',
  },
  clientSecret: {
    env: 'BIOID_CLIENT_SECRET',
    option: 'clientSecret',
    kind: 'secret',
    required: 'the client secret of your machine identity',
    doc: 'its secret; never logged, never in a metric or a span, never sent anywhere but the identity provider',
  },
  issuerUrl: {
    env: 'BIOID_AUTH_URL',
    option: 'issuerUrl',
    kind: 'url',
    required: "the identity provider's base address, for example https://idp.example.com",
    doc: "the identity provider's base address (`https://idp.example.com`), or its realm issuer `…/realms/<realm>`; https unless loopback",
  },
  realm: {
    env: 'BIOID_REALM',
    option: 'realm',
    kind: 'string',
    required: 'the realm of your identity provider (the <realm> in /realms/<realm>/protocol/openid-connect/token)',
    optional: { when: ({ issuerUrl }) => realmOf(issuerUrl) !== undefined, doc: '`BIOID_AUTH_URL` ends in `/realms/<realm>`' },
    doc: 'the realm in the token endpoint `{BIOID_AUTH_URL}/realms/{BIOID_REALM}/protocol/openid-connect/token`',
  },
  audience: {
    env: 'BIOID_AUDIENCE',
    option: 'audience',
    kind: 'string',
    default: DEFAULT_AUDIENCE,
    doc: 'the `audience` of the exchange',
  },
  scope: { env: 'BIOID_SCOPE', option: 'scope', kind: 'string', doc: 'the `scope` of the exchange' },
  allowedOrigins: {
    env: 'BIOID_ALLOWED_ORIGINS',
    option: 'allowedOrigins',
    kind: 'list',
    unset: 'none (same-origin only)',
    doc: 'comma-separated exact origins of your frontend allowed to call cross-origin (CORS)',
  },
  timeoutMs: {
    env: 'BIOID_TIMEOUT_MS',
    option: 'timeoutMs',
    kind: 'milliseconds',
    default: DEFAULT_BROKER_TIMEOUT_MS,
    doc: 'the bound of each exchange with the identity provider in ms (and, in `bioid-broker serve`, of each session check)',
  },
  requireCsrfHeader: {
    env: 'BIOID_REQUIRE_CSRF_HEADER',
    option: 'requireCsrfHeader',
    kind: 'boolean',
    default: true,
    doc: '`false` turns off the `X-CSRF: 1` requirement (rule 3 of [broker-contract.md](broker-contract.md))',
  },
  middlewareUrl: {
    env: 'BIOID_MIDDLEWARE_URL',
    option: 'middlewareUrl',
    kind: 'url',
    doc: 'recommended: answered as `middleware_url`, so the SDK sends the token to that middleware only; https unless loopback',
  },
  tokenStoreUrl: {
    env: 'BIOID_TOKEN_STORE_URL',
    option: 'store',
    kind: 'store',
    unset: 'none (memory)',
    doc: '[several instances](broker.md#several-instances): the one Redis or Valkey they share, `redis://`, `rediss://` ([TLS](operations.md#the-store-over-tls)) or `unix://` (or Sentinel, or a Cluster, below); `brokerOptionsFromEnv` then needs `overrides.store`, `bioid-broker serve` connects to it',
  },
  tokenStoreKey: {
    env: 'BIOID_TOKEN_STORE_KEY',
    option: 'store',
    kind: 'store',
    requiredWhen: 'with `BIOID_TOKEN_STORE_URL`',
    doc: "the store's key, 32 random bytes in base64 (`openssl rand -base64 32`); comma-separated while keys rotate: the first encrypts, all decrypt",
  },
  tokenStoreTimeoutMs: {
    env: 'BIOID_TOKEN_STORE_TIMEOUT_MS',
    option: 'storeTimeoutMs',
    kind: 'store',
    default: DEFAULT_STORE_TIMEOUT_MS,
    doc: 'the bound on each store call in ms; a slower answer is treated as no store (the request is served as without one)',
  },
  tokenStoreUsername: {
    env: 'BIOID_TOKEN_STORE_USERNAME',
    option: 'store',
    kind: 'store',
    unset: "none (the URL's, if any)",
    doc: "the store's ACL user, for every scheme; with it or `BIOID_TOKEN_STORE_PASSWORD` set, `BIOID_TOKEN_STORE_URL` must carry no user or password (the credentials come from one place)",
  },
  tokenStorePassword: {
    env: 'BIOID_TOKEN_STORE_PASSWORD',
    option: 'store',
    kind: 'store',
    unset: "none (the URL's, if any)",
    doc: "the store's password (`requirepass`, or the ACL user's) for every scheme, `unix://` included, kept apart from the URL (a Kubernetes Secret); never logged",
  },
  refusedTokenMinAgeMs: {
    env: 'BIOID_REFUSED_TOKEN_MIN_AGE_MS',
    option: 'refusedTokenMinAgeMs',
    kind: 'milliseconds',
    default: DEFAULT_REFUSED_TOKEN_MIN_AGE_MS,
    doc: '`X-Refused-Token` ([rule 13](broker-contract.md)) replaces only a token issued at least this many ms ago',
  },
  refusedTokenIntervalMs: {
    env: 'BIOID_REFUSED_TOKEN_INTERVAL_MS',
    option: 'refusedTokenIntervalMs',
    kind: 'milliseconds',
    default: DEFAULT_REFUSED_TOKEN_INTERVAL_MS,
    doc: '`X-Refused-Token` replaces a token at most once per this many ms per cache key, across the instances sharing a store; within it the current token is answered',
  },
  tokenStoreLockWaitMs: {
    env: 'BIOID_TOKEN_STORE_LOCK_WAIT_MS',
    option: 'storeLockWaitMs',
    kind: 'milliseconds',
    default: DEFAULT_STORE_LOCK_WAIT_MS,
    doc: "how long an instance waits for the token of the instance holding the store's lock before it exchanges itself (at most `BIOID_TIMEOUT_MS`); a lock that never expires, or outlives a broker's, is not waited on",
  },
  tokenStoreCaFile: {
    env: 'BIOID_TOKEN_STORE_CA_FILE',
    option: 'store',
    kind: 'store',
    unset: "none (the system's CAs)",
    doc: "a PEM file of the CA(s) that signed the store's certificate (`rediss://`), trusted beside the system's; the server's name is checked. A certificate it did not sign keeps `/readyz` 503",
  },
  tokenStoreCertFile: {
    env: 'BIOID_TOKEN_STORE_CERT_FILE',
    option: 'store',
    kind: 'store',
    requiredWhen: 'with `BIOID_TOKEN_STORE_KEY_FILE`',
    unset: 'none (no client certificate)',
    doc: "mutual TLS: the PEM file of this instance's client certificate, with `BIOID_TOKEN_STORE_KEY_FILE`",
  },
  tokenStoreKeyFile: {
    env: 'BIOID_TOKEN_STORE_KEY_FILE',
    option: 'store',
    kind: 'store',
    requiredWhen: 'with `BIOID_TOKEN_STORE_CERT_FILE`',
    unset: 'none (no client certificate)',
    doc: "mutual TLS: the PEM file of that certificate's private key (never logged)",
  },
  tokenStoreSentinelUrls: {
    env: 'BIOID_TOKEN_STORE_SENTINEL_URLS',
    option: 'store',
    kind: 'store',
    unset: 'none',
    doc: "[Sentinel](operations.md#the-store-on-sentinel): comma-separated `redis://host:26379` (or `rediss://`) of the sentinels, instead of `BIOID_TOKEN_STORE_URL`; the broker asks them for the master and follows a failover by itself. Credentials in these URLs are the sentinels' own",
  },
  tokenStoreSentinelMaster: {
    env: 'BIOID_TOKEN_STORE_SENTINEL_MASTER',
    option: 'store',
    kind: 'store',
    requiredWhen: 'with `BIOID_TOKEN_STORE_SENTINEL_URLS`',
    doc: "the master's name the sentinels watch (`sentinel monitor <name> …`)",
  },
  tokenStoreClusterUrls: {
    env: 'BIOID_TOKEN_STORE_CLUSTER_URLS',
    option: 'store',
    kind: 'store',
    unset: 'none',
    doc: '[Cluster](operations.md#the-store-on-a-cluster): comma-separated seed nodes `redis://host:6379` (or `rediss://`), instead of `BIOID_TOKEN_STORE_URL`; the rest of the cluster is found from them. Exactly one of `BIOID_TOKEN_STORE_URL`, `_SENTINEL_URLS` and `_CLUSTER_URLS`',
  },
} as const satisfies Record<string, BrokerVariable>;

/**
 * Each variable's name by its key: the shape of BROKER_ENV. The return type is written out, not a named
 * alias, so the declaration of BROKER_ENV lists the names themselves (as api/bioid-sdk-broker.api.md does).
 */
export function variableNames<T extends Record<string, { env: string }>>(table: T): { readonly [K in keyof T]: T[K]['env'] } {
  return Object.fromEntries(Object.entries(table).map(([key, { env }]) => [key, env])) as { readonly [K in keyof T]: T[K]['env'] };
}
