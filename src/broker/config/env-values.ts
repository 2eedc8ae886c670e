/**
 * Values of environment variables, read one way by `brokerOptionsFromEnv`, `tokenStoreFromEnv` and
 * `bioid-broker serve` (which imports these from bioid-sdk/broker, the only way it reaches the SDK).
 * Errors name the variable and never echo its value: some of these variables hold secrets.
 */
import { BioIDError } from '../../core/errors.js';

/** Environment variables by name, as `process.env` holds them. */
export type EnvLike = Record<string, string | undefined>;

/** The variable's value trimmed, or undefined when it is unset or blank (a blank line in a .env file means unset). */
export function envValue(env: EnvLike, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * A whole number of milliseconds, or undefined when `value` is undefined. Positive unless `allowZero`
 * (a delay may be 0; a timeout may not). Anything else is a config error, prefixed with `where`, naming `name`.
 */
export function envMilliseconds(
  value: string | undefined,
  name: string,
  where: string,
  options: { allowZero?: boolean } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const allowZero = options.allowZero === true;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || (!allowZero && number <= 0)) {
    const what = allowZero ? 'a whole number of milliseconds (0 or more)' : 'a positive whole number of milliseconds';
    throw new BioIDError('config', `${where}: environment variable ${name} must be ${what}.`);
  }
  return number;
}

/** true, 1 or yes; false, 0 or no (any case); undefined when `value` is. Anything else is a config error naming `name`. */
export function envBoolean(value: string | undefined, name: string, where: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new BioIDError('config', `${where}: environment variable ${name} must be true or false.`);
}
