/**
 * Configuration of `npm start`: the simulator's settings for the operator's side (simulator/src/config.ts:
 * client, realm, IdP, middleware and local service ports, capture delay) plus the demo app's own.
 *
 * | env                         | flag                    | default               |
 * |-----------------------------|-------------------------|-----------------------|
 * | BIOID_DEMO_PORT             | --port                  | 3000                  |
 * | BIOID_DEMO_USER             | --user                  | demo                  |
 * | BIOID_DEMO_PASSWORD         | (environment only)      | fingerprint           |
 * | BIOID_DEMO_TRUST_PROXY      | --trust-proxy           | (none)                |
 * Port 0 means "any free port" (tests). The trusted proxy (Express's `trust proxy`: `loopback`, an address
 * or subnet list, or a number of hops) may say by X-Forwarded-Proto that the page was served over https.
 */
import { portOf, readSettings, usage, worldConfig, WORLD_SETTINGS, type WorldConfig } from '../simulator/src/config.js';

export { closeOnSignals } from '../simulator/src/config.js';

export interface DemoConfig extends WorldConfig {
  demoPort: number;
  username: string;
  password: string;
  /** Express's `trust proxy` for the demo app; undefined when no proxy is believed. */
  trustProxy: string | number | undefined;
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
  trustProxy: {
    env: 'BIOID_DEMO_TRUST_PROXY',
    flag: 'trust-proxy',
    fallback: '',
    help: 'proxy believed about https (Express trust proxy: loopback, addresses, hops)',
  },
} as const;

export const USAGE = usage(SETTINGS);

export function readConfig(argv: string[], env: NodeJS.ProcessEnv): DemoConfig {
  const { values, defaulted, help } = readSettings(SETTINGS, argv, env);
  return {
    ...worldConfig(values),
    demoPort: portOf(SETTINGS.demoPort, values.demoPort),
    username: values.username,
    password: values.password,
    // A number of hops is a number for Express; anything else (loopback, addresses, subnets) a string.
    trustProxy: values.trustProxy === '' ? undefined : /^\d+$/.test(values.trustProxy) ? Number(values.trustProxy) : values.trustProxy,
    defaulted,
    help,
  };
}
