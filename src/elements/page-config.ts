/**
 * Page-wide defaults for every element, in one place: `window.BioIDElementsConfig`, a plain object a
 * page may assign before or after the script loads. It is read whenever an element builds its reader
 * (each operation, and each (re)start of `bio-reader-status`); `configureElements()` merges into it and
 * tells the live elements to re-read it at once. An attribute on an element overrides the page default.
 */
import { BioIDError } from '../core/errors.js';

export interface BioIDElementsConfig {
  middlewareUrl?: string;
  tokenEndpoint?: string;
  /** Replaces tokenEndpoint: a function resolving to a middleware access token. */
  getToken?: () => string | Promise<string>;
  integratorId?: string;
  workstationId?: string;
  deviceId?: string;
  localServiceUrl?: string;
  timeoutMs?: number;
  agentId?: string;
  /** Per-language string overrides: `{ de: { verify: 'Finger prüfen' } }`. */
  strings?: Record<string, Record<string, string>>;
}

const KNOWN = 'middlewareUrl tokenEndpoint getToken integratorId workstationId deviceId localServiceUrl timeoutMs agentId strings'.split(' ');

type Host = { BioIDElementsConfig?: BioIDElementsConfig };
const listeners = new Set<() => void>();

/** The page defaults as they are now (an empty object when the page set none). */
export function pageConfig(): BioIDElementsConfig {
  const value = (globalThis as Host).BioIDElementsConfig;
  return value && typeof value === 'object' ? value : {};
}

/**
 * Merges `defaults` into `window.BioIDElementsConfig` and makes every connected element re-read it.
 * A client secret is refused: it must never reach a browser (spec 5.5).
 */
export function configureElements(defaults: BioIDElementsConfig): void {
  checkPageConfig(defaults);
  const host = globalThis as Host;
  host.BioIDElementsConfig = { ...pageConfig(), ...defaults };
  for (const listener of [...listeners]) listener();
}

/** Throws a config error for a secret or an unknown key (a typo would otherwise be ignored silently). */
export function checkPageConfig(value: object): void {
  for (const key of Object.keys(value)) {
    if (!KNOWN.includes(key)) {
      throw new BioIDError(
        'config',
        `BioIDElementsConfig.${key} is not an option${/secret/i.test(key) ? ': a client secret must never reach a browser; use token-endpoint' : ''}.`,
      );
    }
  }
}

/** Called by elements while connected, so configureElements() reaches them. */
export function onPageConfigChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * A URL attribute as the absolute URL the core requires: relative values resolve against the page
 * (`document.baseURI`). A value that does not resolve is passed on as is, for the core to reject by name.
 */
export function resolveUrl(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return new URL(value, document.baseURI).href;
  } catch {
    return value;
  }
}
