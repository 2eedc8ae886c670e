/**
 * Configuration of `npm start`: the simulator's settings for the operator's side (simulator/src/config.ts:
 * client, realm, IdP, middleware and local service ports, capture delay) plus the demo app's own.
 *
 * | env                         | flag                    | default               |
 * |-----------------------------|-------------------------|-----------------------|
 * | BIOID_DEMO_PORT             | --port                  | 3000                  |
 * | BIOID_DEMO_USER             | --user                  | demo                  |
 * | BIOID_DEMO_PASSWORD         | (environment only)      | fingerprint           |
 * Port 0 means "any free port" (tests).
 */
import { portOf, readSettings, usage, worldConfig, WORLD_SETTINGS, type WorldConfig } from '../simulator/src/config.js';

export { closeOnSignals } from '../simulator/src/config.js';

export interface DemoConfig extends WorldConfig {
  demoPort: number;
  username: string;
  password: string;
  /** Which settings still have their printed demo defaults. */
  defaulted: Set<string>;
  help: boolean;
}

const SETTINGS = {
  ...WORLD_SETTINGS,
  demoPort: { env: 'BIOID_DEMO_PORT', flag: 'port', fallback: '3000', help: 'the demo app' },
  username: { env: 'BIOID_DEMO_USER', flag: 'user', fallback: 'demo', help: 'demo sign-in user' },
  // No flag: a password on the command line shows in every process listing.
  password: { env: 'BIOID_DEMO_PASSWORD', flag: null, fallback: 'fingerprint', help: 'demo sign-in password' },
} as const;

export const USAGE = usage(SETTINGS);

export function readConfig(argv: string[], env: NodeJS.ProcessEnv): DemoConfig {
  const { values, defaulted, help } = readSettings(SETTINGS, argv, env);
  return {
    ...worldConfig(values),
    demoPort: portOf(SETTINGS.demoPort, values.demoPort),
    username: values.username,
    password: values.password,
    defaulted,
    help,
  };
}
