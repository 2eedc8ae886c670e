import type { StringKey } from './localize.js';
import { en } from '../translations/en.js';

/**
 * The words of a `bio-error` code on a card or in `<bio-reader-status>`: the key of its sentence, whose
 * headline is `{key}.title`; its own where the translation has them, else the general ones. A 404 of a
 * verify is a person with no fingerprint enrolled yet (the middleware's unknown subject).
 */
export function failureKey(code: string, operation?: string): StringKey {
  if (code === 'not-found' && operation === 'verify') return 'not-enrolled';
  // The translation's keys are the list: a code gets its own words by adding its strings, nowhere else.
  return (Object.hasOwn(en, `${code}.title`) ? code : 'failed') as StringKey;
}
