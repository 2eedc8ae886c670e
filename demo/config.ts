/**
 * Configuration of `npm start` and `npm run simulate`: environment variables, overridden by flags.
 *
 * | env                         | flag                    | default               |
 * |-----------------------------|-------------------------|-----------------------|
 * | BIOID_CLIENT_ID             | --client-id             | demo-integrator       |
 * | BIOID_CLIENT_SECRET         | (environment only)      | demo-secret           |
 * | BIOID_REALM                 | --realm                 | bioid-demo            |
 * | BIOID_DEMO_PORT             | --port                  | 3000                  |
 * | BIOID_IDP_PORT              | --idp-port              | 18080                 |
 * | BIOID_MIDDLEWARE_PORT       | --middleware-port       | 18081                 |
 * | BIOID_LOCAL_SERVICE_PORT    | --local-service-port    | 18065                 |
 * | BIOID_CAPTURE_DELAY_MS      | --capture-delay-ms      | 600-1200              |
 * | BIOID_DEMO_USER             | --user                  | demo                  |
 * | BIOID_DEMO_PASSWORD         | (environment only)      | fingerprint           |
 * Port 0 means "any free port" (tests).
 */

export interface DemoConfig {
  clientId: string;
  clientSecret: string;
  realm: string;
  demoPort: number;
  idpPort: number;
  middlewarePort: number;
  localServicePort: number;
  captureDelayMs: [number, number];
  username: string;
  password: string;
  /** Which settings still have their printed demo defaults. */
  defaulted: Set<string>;
}

const SETTINGS = {
  clientId: { env: 'BIOID_CLIENT_ID', flag: 'client-id', fallback: 'demo-integrator' },
  // No flag: a secret on the command line shows in every process listing.
  clientSecret: { env: 'BIOID_CLIENT_SECRET', flag: null, fallback: 'demo-secret' },
  realm: { env: 'BIOID_REALM', flag: 'realm', fallback: 'bioid-demo' },
  demoPort: { env: 'BIOID_DEMO_PORT', flag: 'port', fallback: '3000' },
  idpPort: { env: 'BIOID_IDP_PORT', flag: 'idp-port', fallback: '18080' },
  middlewarePort: { env: 'BIOID_MIDDLEWARE_PORT', flag: 'middleware-port', fallback: '18081' },
  localServicePort: { env: 'BIOID_LOCAL_SERVICE_PORT', flag: 'local-service-port', fallback: '18065' },
  captureDelayMs: { env: 'BIOID_CAPTURE_DELAY_MS', flag: 'capture-delay-ms', fallback: '600-1200' },
  username: { env: 'BIOID_DEMO_USER', flag: 'user', fallback: 'demo' },
  password: { env: 'BIOID_DEMO_PASSWORD', flag: null, fallback: 'fingerprint' },
} as const;

export const USAGE = `Options (flags override environment variables):\n${Object.values(SETTINGS)
  .map((s) => `  ${s.flag ? `--${s.flag}`.padEnd(22) : '(environment only)'.padEnd(22)} ${s.env.padEnd(26)} default ${s.fallback}`)
  .join('\n')}`;

export function readConfig(argv: string[], env: NodeJS.ProcessEnv): DemoConfig {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`Unexpected argument "${arg}".\n${USAGE}`);
    const [, name, inline] = match as unknown as [string, string, string | undefined];
    if (!Object.values(SETTINGS).some((s) => s.flag === name)) throw new Error(`Unknown option --${name}.\n${USAGE}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value.`);
    flags.set(name, value);
  }
  const defaulted = new Set<string>();
  const raw = {} as Record<keyof typeof SETTINGS, string>;
  for (const [key, s] of Object.entries(SETTINGS) as Array<[keyof typeof SETTINGS, (typeof SETTINGS)[keyof typeof SETTINGS]]>) {
    const value = (s.flag ? flags.get(s.flag) : undefined) ?? env[s.env];
    if (value === undefined || value === '') defaulted.add(key);
    raw[key] = value === undefined || value === '' ? s.fallback : value;
  }
  const port = (key: keyof typeof SETTINGS) => {
    const value = Number(raw[key]);
    if (!Number.isInteger(value) || value < 0 || value > 65535) {
      throw new Error(`${SETTINGS[key].env} / --${SETTINGS[key].flag ?? ''} must be a port number 0-65535; got "${raw[key]}".`);
    }
    return value;
  };
  const delay = /^(\d+)(?:-(\d+))?$/.exec(raw.captureDelayMs);
  if (!delay) throw new Error(`BIOID_CAPTURE_DELAY_MS / --capture-delay-ms must be "600-1200" or "800"; got "${raw.captureDelayMs}".`);
  const min = Number(delay[1]);
  const max = delay[2] === undefined ? min : Number(delay[2]);
  return {
    clientId: raw.clientId,
    clientSecret: raw.clientSecret,
    realm: raw.realm,
    demoPort: port('demoPort'),
    idpPort: port('idpPort'),
    middlewarePort: port('middlewarePort'),
    localServicePort: port('localServicePort'),
    captureDelayMs: [Math.min(min, max), Math.max(min, max)],
    username: raw.username,
    password: raw.password,
    defaulted,
  };
}

/** Closes everything on Ctrl-C / SIGTERM, once; a second signal exits at once. */
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
