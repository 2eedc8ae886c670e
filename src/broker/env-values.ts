/** Values of the broker's environment variables, read one way wherever a variable holds them. */
import { BioIDError } from '../core/errors.js';

/** A positive whole number of milliseconds, or undefined when unset; anything else is a config error naming `name`. */
export function readMilliseconds(value: string | undefined, name: string, where: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number <= 0) {
    throw new BioIDError('config', `${where}: environment variable ${name} must be a positive whole number of milliseconds.`);
  }
  return number;
}
