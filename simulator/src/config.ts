/**
 * Settings of `bioid-simulator` (and, through `readSettings`, of the repository's `npm start`):
 * environment variables, overridden by flags. A port of 0 means "any free port" (tests, CI).
 *
 * | env                       | flag                  | default         |
 * |---------------------------|-----------------------|-----------------|
 * | BIOID_CLIENT_ID           | --client-id           | demo-integrator |
 * | BIOID_CLIENT_SECRET       | (environment only)    | demo-secret     |
 * | BIOID_REALM               | --realm               | bioid-demo      |
 * | BIOID_IDP_PORT            | --idp-port            | 18080           |
 * | BIOID_MIDDLEWARE_PORT     | --middleware-port     | 18081           |
 * | BIOID_LOCAL_SERVICE_PORT  | --local-service-port  | 18065           |
 * | BIOID_BROKER_PORT         | --broker-port         | 18082           |
 * | BIOID_CAPTURE_DELAY_MS    | --capture-delay-ms    | 600-1200        |
 * | BIOID_SIM_ENROLL          | --enroll              | alice           |
 *
 * The client id, secret and realm are the names the reference broker reads (brokerOptionsFromEnv), so
 * one set of variables configures both the simulator's IdP and an integrator's own broker.
 */

export interface Setting {
  env: string;
  /** The command-line flag without `--`; null for secrets (a command line shows in process listings). */
  flag: string | null;
  fallback: string;
  help: string;
}

export type SettingsTable = Record<string, Setting>;

/** The operator's side: IdP, middleware, workstation with its local hardware service. */
export const WORLD_SETTINGS = {
  clientId: {
    env: 'BIOID_CLIENT_ID',
    flag: 'client-id',
    fallback: 'demo-integrator',
    help: 'integrator client at the IdP; also the integrator-id',
  },
  clientSecret: { env: 'BIOID_CLIENT_SECRET', flag: null, fallback: 'demo-secret', help: 'its client secret' },
  realm: { env: 'BIOID_REALM', flag: 'realm', fallback: 'bioid-demo', help: 'IdP realm (/realms/<realm>/protocol/openid-connect/token)' },
  idpPort: { env: 'BIOID_IDP_PORT', flag: 'idp-port', fallback: '18080', help: 'identity provider' },
  middlewarePort: { env: 'BIOID_MIDDLEWARE_PORT', flag: 'middleware-port', fallback: '18081', help: 'simulated middleware' },
  localServicePort: {
    env: 'BIOID_LOCAL_SERVICE_PORT',
    flag: 'local-service-port',
    fallback: '18065',
    help: 'local hardware service (the SDK default is 18065)',
  },
  captureDelayMs: {
    env: 'BIOID_CAPTURE_DELAY_MS',
    flag: 'capture-delay-ms',
    fallback: '600-1200',
    help: 'time a capture takes, "min-max" or "ms"',
  },
} as const satisfies SettingsTable;

/** What `bioid-simulator` adds: the development token broker and the subjects enrolled at start. */
export const SIMULATOR_SETTINGS = {
  ...WORLD_SETTINGS,
  brokerPort: { env: 'BIOID_BROKER_PORT', flag: 'broker-port', fallback: '18082', help: 'development token broker (/signin, /token)' },
  enroll: { env: 'BIOID_SIM_ENROLL', flag: 'enroll', fallback: 'alice', help: 'subjects enrolled at start, comma-separated; "" for none' },
} as const satisfies SettingsTable;

export interface ReadSettings<K extends string> {
  values: Record<K, string>;
  /** Settings that kept their printed default (only those may be printed: a secret from the environment never is). */
  defaulted: Set<K>;
  /** `--help` was given. */
  help: boolean;
}

export function usage(table: SettingsTable): string {
  const rows = Object.values(table).map((s) => {
    const flag = s.flag ? `--${s.flag} <value>` : '(environment only)';
    return `  ${flag.padEnd(30)} ${s.env.padEnd(25)} ${s.help}; default ${s.fallback === '' ? '""' : s.fallback}`;
  });
  return `Options (flags override environment variables; a port of 0 means any free port):\n${rows.join('\n')}\n  ${'--help'.padEnd(30)} prints this and exits`;
}

/** Flags (`--name value` or `--name=value`) over environment variables over defaults. */
export function readSettings<T extends SettingsTable>(
  table: T,
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ReadSettings<Extract<keyof T, string>> {
  type K = Extract<keyof T, string>;
  const flags = new Map<string, string>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new UsageError(`Unexpected argument "${arg}".`, table);
    const name = match[1]!;
    if (!Object.values(table).some((s) => s.flag === name)) throw new UsageError(`Unknown option --${name}.`, table);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value.`, table);
    flags.set(name, value);
  }
  const values = {} as Record<K, string>;
  const defaulted = new Set<K>();
  for (const key of Object.keys(table) as K[]) {
    const setting = table[key]!;
    const given = (setting.flag ? flags.get(setting.flag) : undefined) ?? env[setting.env];
    // An empty environment variable counts as unset; an empty flag is a value (`--enroll ""`).
    const unset = given === undefined || (given === '' && !(setting.flag && flags.has(setting.flag)));
    if (unset) defaulted.add(key);
    values[key] = unset ? setting.fallback : given;
  }
  return { values, defaulted, help };
}

/** A wrong command line: the message names the option; the usage follows it. */
export class UsageError extends Error {
  constructor(message: string, table: SettingsTable) {
    super(`${message}\n${usage(table)}`);
    this.name = 'UsageError';
  }
}

function where(setting: Setting): string {
  return setting.flag ? `${setting.env} / --${setting.flag}` : setting.env;
}

export function portOf(setting: Setting, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(value) || value < 0 || value > 65535) {
    throw new Error(`${where(setting)} must be a port number 0-65535 (0: any free port); got "${raw}".`);
  }
  return value;
}

export function delayOf(setting: Setting, raw: string): [number, number] {
  const delay = /^(\d+)(?:-(\d+))?$/.exec(raw);
  if (!delay) throw new Error(`${where(setting)} must be "600-1200" or "800" (milliseconds); got "${raw}".`);
  const min = Number(delay[1]);
  const max = delay[2] === undefined ? min : Number(delay[2]);
  return [Math.min(min, max), Math.max(min, max)];
}

/** Subject ids as the middleware takes them: non-empty, no surrounding space, no duplicates. */
export function subjectsOf(setting: Setting, raw: string): string[] {
  const subjects = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const subject of subjects) {
    if (subject.length > 256 || /[\u0000-\u001f\u007f]/.test(subject)) {
      throw new Error(`${where(setting)}: "${subject.slice(0, 40)}" is not a subject id (at most 256 printable characters).`);
    }
  }
  return [...new Set(subjects)];
}

export interface WorldConfig {
  clientId: string;
  clientSecret: string;
  realm: string;
  idpPort: number;
  middlewarePort: number;
  localServicePort: number;
  captureDelayMs: [number, number];
}

export function worldConfig(values: Record<keyof typeof WORLD_SETTINGS, string>): WorldConfig {
  if (values.clientId.trim() === '') throw new Error(`${where(WORLD_SETTINGS.clientId)} must not be empty.`);
  return {
    clientId: values.clientId,
    clientSecret: values.clientSecret,
    realm: values.realm,
    idpPort: portOf(WORLD_SETTINGS.idpPort, values.idpPort),
    middlewarePort: portOf(WORLD_SETTINGS.middlewarePort, values.middlewarePort),
    localServicePort: portOf(WORLD_SETTINGS.localServicePort, values.localServicePort),
    captureDelayMs: delayOf(WORLD_SETTINGS.captureDelayMs, values.captureDelayMs),
  };
}

export interface SimulatorConfig extends WorldConfig {
  brokerPort: number;
  enroll: string[];
  defaulted: Set<keyof typeof SIMULATOR_SETTINGS>;
  help: boolean;
}

export function readSimulatorConfig(argv: readonly string[], env: Record<string, string | undefined>): SimulatorConfig {
  const { values, defaulted, help } = readSettings(SIMULATOR_SETTINGS, argv, env);
  return {
    ...worldConfig(values),
    brokerPort: portOf(SIMULATOR_SETTINGS.brokerPort, values.brokerPort),
    enroll: subjectsOf(SIMULATOR_SETTINGS.enroll, values.enroll),
    defaulted,
    help,
  };
}

/** Closes everything on Ctrl-C / SIGTERM, once, and exits 0; a second signal exits at once. */
export function closeOnSignals(close: () => Promise<void>): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`\n${signal}: stopping…`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Stopping failed:', error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
