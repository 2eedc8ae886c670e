/**
 * The variables `bioid-broker serve` reads besides the broker's own (bioid-sdk/broker's BROKER_ENV), each
 * declared once: its variable, how its value is read, whether it is required (with the hint the error
 * gives), its default and one line of docs. SERVE_ENV, the defaults, `serveSettingsFromEnv` and the
 * sidecar's table in docs/operations.md (`npm run docs`, scripts/docs-reference.mjs) derive from it.
 * Values are read with bioid-sdk/broker's own readers, so both layers trim, default and refuse alike.
 */
import { BioIDError } from 'bioid-sdk';
import { envBoolean, envMilliseconds, envValue, type EnvLike } from 'bioid-sdk/broker';
import { LOG_LEVELS, readLogLevel, type LogLevel } from './logs.js';

const WHERE = 'bioid-broker serve';

/** How a variable's text becomes its setting, and the type each kind gives. */
interface ServeVariableKinds {
  string: string;
  /** An absolute http(s) URL without credentials; a query is allowed. */
  'endpoint-url': string;
  /** 0 to 65535; 0 picks a free port. */
  port: number;
  /** A whole number of milliseconds, 0 or more. */
  milliseconds: number;
  boolean: boolean;
  'log-level': LogLevel;
}

type ServeVariable = {
  [K in keyof ServeVariableKinds]: {
    env: `BIOID_${string}`;
    kind: K;
    /** One line for the docs table: what the variable is for. */
    doc: string;
    /** The value when the variable is unset. */
    default?: ServeVariableKinds[K];
    /** What the docs say when the variable is unset and there is no default (otherwise "none"). */
    unset?: string;
    /** The variable must be set: what to set it to, for the error. */
    required?: string;
  };
}[keyof ServeVariableKinds];

/** Each kind's reading of a set variable (unset ones never get here). */
const READ: { [K in keyof ServeVariableKinds]: (value: string, name: string) => ServeVariableKinds[K] } = {
  string: (value) => value,
  'endpoint-url': requireEndpointUrl,
  port: readPort,
  milliseconds: (value, name) => envMilliseconds(value, name, WHERE, { allowZero: true })!,
  boolean: (value, name) => envBoolean(value, name, WHERE)!,
  'log-level': readLogLevel,
};

export const SERVE_VARIABLES = {
  sessionCheckUrl: {
    env: 'BIOID_SESSION_CHECK_URL',
    kind: 'endpoint-url',
    required:
      'the URL of your backend\'s session check (GET with the user\'s Cookie; it answers 204, or 200 {"signed_in": true}, when signed in, and 401 otherwise)',
    doc: "your app's session check, asked with each token request's `Cookie` ([backends.md](backends.md))",
  },
  port: {
    env: 'BIOID_PORT',
    kind: 'port',
    default: 8787,
    doc: "the token endpoint's port (`0`: any free port, printed in the `listening` line)",
  },
  host: { env: 'BIOID_HOST', kind: 'string', default: '127.0.0.1', doc: 'its interface' },
  tokenExchange: {
    env: 'BIOID_TOKEN_EXCHANGE',
    kind: 'boolean',
    default: false,
    doc: '`true`: RFC 8693, the session check answers `{ "subject_token": … }`',
  },
  metricsPort: {
    env: 'BIOID_METRICS_PORT',
    kind: 'port',
    unset: 'off',
    doc: "the metrics listener's port; no listener when unset",
  },
  metricsHost: { env: 'BIOID_METRICS_HOST', kind: 'string', default: '127.0.0.1', doc: "the metrics listener's interface" },
  logLevel: {
    env: 'BIOID_LOG_LEVEL',
    kind: 'log-level',
    default: 'info',
    doc: LOG_LEVELS.map((level) => `\`${level}\``)
      .join(', ')
      .replace(/, (?=[^,]*$)/, ' or '),
  },
  shutdownDelayMs: {
    env: 'BIOID_SHUTDOWN_DELAY_MS',
    kind: 'milliseconds',
    // The load balancer's turn: how long SIGTERM keeps serving with /readyz at 503 before it stops accepting.
    default: 3_000,
    doc: 'after SIGTERM, how long `/readyz` answers 503 while requests are still served, before the listener closes',
  },
} as const satisfies Record<string, ServeVariable>;

type ServeVariables = typeof SERVE_VARIABLES;

/** Each setting's type: its kind's, and undefined too when the variable may be unset without a default. */
export type ServeSettings = {
  [K in keyof ServeVariables]: ServeVariables[K] extends { default: unknown } | { required: string }
    ? ServeVariableKinds[ServeVariables[K]['kind']]
    : ServeVariableKinds[ServeVariables[K]['kind']] | undefined;
};

export const SERVE_ENV = Object.fromEntries(Object.entries(SERVE_VARIABLES).map(([key, { env }]) => [key, env])) as {
  readonly [K in keyof ServeVariables]: ServeVariables[K]['env'];
};
export const DEFAULT_PORT = SERVE_VARIABLES.port.default;
export const DEFAULT_HOST = SERVE_VARIABLES.host.default;
export const DEFAULT_METRICS_HOST = SERVE_VARIABLES.metricsHost.default;
export const DEFAULT_SHUTDOWN_DELAY_MS = SERVE_VARIABLES.shutdownDelayMs.default;

/** The sidecar's settings from `env`, in the table's order; a missing or malformed variable is an error naming it (never its value). */
export function serveSettingsFromEnv(env: EnvLike): ServeSettings {
  const settings: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(SERVE_VARIABLES) as [string, ServeVariable][]) {
    const text = envValue(env, variable.env);
    if (text !== undefined) settings[key] = (READ[variable.kind] as (value: string, name: string) => unknown)(text, variable.env);
    else if (variable.required !== undefined) {
      throw new BioIDError('config', `${WHERE}: environment variable ${variable.env} is not set: ${variable.required}.`);
    } else settings[key] = variable.default;
  }
  return settings as ServeSettings;
}

/** An absolute http(s) URL without credentials (a query is allowed); the value is never echoed. */
function requireEndpointUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BioIDError('config', `${WHERE}: environment variable ${name} is not an absolute URL; give the full http(s) address.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BioIDError('config', `${WHERE}: environment variable ${name} must be an http or https URL, not ${url.protocol}.`);
  }
  if (url.username || url.password) {
    throw new BioIDError('config', `${WHERE}: environment variable ${name} must not carry credentials in the URL.`);
  }
  return url.href;
}

function readPort(value: string, name: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new BioIDError('config', `${WHERE}: environment variable ${name} must be a port number (0 to 65535; 0 picks a free one).`);
  }
  return port;
}
