/**
 * The elements' settings, declared once: each setting is a member of `Settings` (its type and its one
 * doc, which the IDE, the API reference and custom-elements.json show) and a row of `SETTINGS` (what the
 * browser needs of it at run time); the compiler holds the two to the same names and kinds. A setting's
 * camelCase name is its JS property and its key in the page defaults (`window.BioIDElementsConfig`); its
 * kebab-case name is its attribute. From them come the Lit properties of every element, the elements'
 * typed properties (`BioElement`), the page defaults' key check, what an element hands the core, and the
 * elements' reference (custom-elements-manifest.config.mjs reads this file). Values are validated once,
 * by the core, with the element named in the message. docs/architecture.md, "Adding an element setting".
 */
import type { PropertyDeclaration } from 'lit';
import { tokenProviderSource } from '../../core/auth.js';
import type { TokenSource } from '../../core/token-source.js';
import { configError } from '../../core/errors.js';
import { DEFAULT_READER_SERVICE_URL, DEFAULT_TIMEOUT_MS, own, unsupplied } from '../../core/config.js';
import { READER_OPTIONS, readerFrom, type FingerprintReader } from '../../core/reader.js';
import { WATCH_OPTIONS, type StatusWatchOptions } from '../../core/status-watch.js';
import { brokerTokenSource } from '../../core/token-broker-client.js';
import { idAttribute, numberAttribute } from './attributes.js';

/** The settings of an element as set on it or given as page defaults. */
export interface Settings {
  /**
   * The biometrics middleware (relative URLs resolve against the page). Required for operations (attribute
   * or page default); `https:` unless its host is loopback (`localhost`, `127.0.0.0/8`, `[::1]`).
   */
  middlewareUrl?: string;
  /** Your token broker (spec 4.1: GET, session cookie, `X-CSRF: 1`). Required for operations unless the `getToken` property is set. */
  tokenEndpoint?: string;
  /** Replaces token-endpoint: a function resolving to a middleware access token. A property only. */
  getToken?: () => string | Promise<string>;
  /**
   * Sent as `X-Integrator-Id` on dispatch. Required unless your middleware's tokens are tenant-scoped
   * (spec 2.3): without it such a middleware refuses enroll, verify and search (`bio-error` code
   * `middleware`, `missing_integrator_id`).
   */
  integratorId?: string;
  /**
   * Pins the dispatch target's workstation; needs device-id too (half a pin is a `config` error). Pinned:
   * the local service is never asked, no `/status` polling.
   */
  workstationId?: string;
  /** Pins the device; needs workstation-id too. */
  deviceId?: string;
  /**
   * The local hardware service (default `http://localhost:18065`). An element that is not pinned and falls
   * back to that default says so once per page with `console.warn`: whatever answers on that port would
   * otherwise be used silently.
   * @defaultValue `'http://localhost:18065'`
   */
  localServiceUrl?: string;
  /**
   * Bound on each network call, in milliseconds (default 15000).
   * @defaultValue `15000`
   */
  timeoutMs?: number;
  /** The end user who acts (spec 5.8), sent with enroll, verify and search. */
  agentId?: string;
  /**
   * The integrator's sign-in page (http or https; relative URLs resolve against the page), for operation
   * elements: a `session-expired` failure then shows a sign-in link to it, with `return_to` (this page's
   * address) appended unless the URL has one.
   */
  loginUrl?: string;
}

/**
 * A setting's row: its Lit property declaration. The attribute is the kebab-case name; a function is a
 * property only; a number and an id convert from their attribute (attributes.ts).
 */
type SettingRow<T> = T extends number ? typeof NUMBER : T extends (...args: never[]) => unknown ? { attribute: false } : object;

const ID = { converter: idAttribute };
const NUMBER = { converter: numberAttribute };

const SETTINGS = {
  middlewareUrl: {},
  tokenEndpoint: {},
  getToken: { attribute: false },
  integratorId: ID,
  workstationId: ID,
  deviceId: ID,
  localServiceUrl: {},
  timeoutMs: NUMBER,
  agentId: ID,
  loginUrl: {},
} satisfies { [K in keyof Settings]-?: SettingRow<NonNullable<Settings[K]>> };

export type SettingName = keyof typeof SETTINGS;
const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** Page defaults: every setting, plus per-language string overrides (`{ de: { verify: 'Finger prüfen' } }`). */
export interface BioIDElementsConfig extends Settings {
  strings?: Record<string, Record<string, string>>;
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The Lit properties of the settings: `middlewareUrl` ↔ `middleware-url`, …, `getToken` a property only. */
export const settingProperties: Record<SettingName, PropertyDeclaration> = Object.fromEntries(
  SETTING_NAMES.map((name) => [name, { attribute: kebab(name), ...SETTINGS[name] }]),
) as Record<SettingName, PropertyDeclaration>;

const PAGE_KEYS = [...SETTING_NAMES, 'strings'];

type Host = { BioIDElementsConfig?: BioIDElementsConfig };
const listeners = new Set<() => void>();

/**
 * The page defaults as they are now (an empty object when the page set none): an own property of
 * `window` holding a plain object, never one inherited from a polluted Object.prototype nor markup that
 * names an element `BioIDElementsConfig` (its form fields would read as settings).
 */
export function pageConfig(): BioIDElementsConfig {
  const value = own(globalThis, 'BioIDElementsConfig');
  const proto: unknown = value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  return proto === Object.prototype || proto === null ? (value as BioIDElementsConfig) : {};
}

/**
 * Merges `defaults` into `window.BioIDElementsConfig` and makes every connected element re-read it.
 * A client secret is refused: it must never reach a browser (spec 5.5).
 */
export function configureElements(defaults: BioIDElementsConfig): void {
  checkPageConfig(defaults);
  (globalThis as Host).BioIDElementsConfig = { ...pageConfig(), ...defaults };
  for (const listener of [...listeners]) listener();
}

/** Throws a config error for a secret or an unknown key (a typo would otherwise be ignored silently). */
function checkPageConfig(value: object): void {
  for (const key of Object.keys(value)) {
    if (!PAGE_KEYS.includes(key)) {
      throw configError(
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
 * The element's own values where set (an attribute removed reads as null), else the page default: an own
 * property of the page defaults only, never one inherited from a polluted Object.prototype. A blank id of its
 * own is a config error naming the attribute, not a reason to use the page default.
 */
export function effectiveSettings(el: Element & Partial<Record<SettingName, unknown>>): Settings {
  const page = pageConfig();
  checkPageConfig(page);
  // No prototype: a setting that is not here reads as undefined, never as a polluted Object.prototype's.
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of SETTING_NAMES) {
    const mine = el[key];
    if (SETTINGS[key] === ID && typeof mine === 'string' && !mine.trim()) throw configError(`<${el.localName}>: ${kebab(key)} is empty.`);
    const value = unsupplied(mine) ? own(page, key) : mine;
    if (!unsupplied(value)) out[key] = value;
  }
  return out;
}

/**
 * A URL attribute as the absolute URL the core requires: relative values resolve against the page
 * (`document.baseURI`). A value that does not resolve is passed on as is, for the core to reject by name.
 */
export function resolveUrl(value: string | undefined): string | undefined {
  if (!value?.trim()) return undefined;
  try {
    return new URL(value, pageBase()).href;
  } catch {
    return value;
  }
}

/** The page's base URL, read through the platform's getter: markup such as `<img name="baseURI">` shadows `document.baseURI`. */
export const pageBase = (): string => Reflect.get(Node.prototype, 'baseURI', document);

let warnedDefaultLocalService = false;

/**
 * The local service URL an element uses: its own (resolved), none when pinned (never asked), else the
 * default, with a warning once per page: a simulator or service elsewhere must not be missed silently
 * because something else answers on the default port.
 */
function localServiceUrlOf(tag: string, s: Settings): string | undefined {
  const url = resolveUrl(s.localServiceUrl);
  if (url || (s.workstationId && s.deviceId) || warnedDefaultLocalService) return url;
  warnedDefaultLocalService = true;
  console.warn(`bioid-sdk: <${tag}> has no local-service-url, so it uses ${DEFAULT_READER_SERVICE_URL}.`);
  return url;
}

/** The bound on the element's calls: timeout-ms when positive, else the default. */
export const timeoutOf = (s: Settings): number => (typeof s.timeoutMs === 'number' && s.timeoutMs > 0 ? s.timeoutMs : DEFAULT_TIMEOUT_MS);

const userSources = new WeakMap<object, TokenSource>();

/**
 * Where the element's tokens come from: its `getToken` property (wrapped by the core like any reader's
 * getToken, cached per function) or the page-wide cache of the broker at `token-endpoint`.
 */
export function tokenSourceFor(tag: string, s: Settings): TokenSource {
  const timeoutMs = timeoutOf(s);
  if (typeof s.getToken === 'function') {
    let source = userSources.get(s.getToken);
    if (!source) userSources.set(s.getToken, (source = tokenProviderSource(s.getToken, timeoutMs)));
    return source;
  }
  const endpoint = resolveUrl(s.tokenEndpoint);
  if (!endpoint) {
    throw configError(`<${tag}>: token-endpoint (your token broker's URL) or the getToken property is required.`);
  }
  const source = brokerTokenSource(endpoint, { timeoutMs });
  const issued = (token: string) => ((sessionSeen = true), token);
  return {
    ...source,
    get: (signal) => source.get(signal).then(issued),
    refresh: (stale, signal) => source.refresh(stale, signal).then(issued),
  };
}

/**
 * True once a token broker has issued a token on this page: before that, a refusal means "not signed in
 * yet", and "your session has ended" would mislead a first visit.
 */
let sessionSeen = false;
export const hadSession = (): boolean => sessionSeen;

/**
 * The href of the sign-in link that `login-url` puts under a `session-expired` failure: resolved against
 * the page, http(s) only (a `javascript:` link would run script on a click), with `return_to` set to this
 * page unless the login-url names it already. Undefined without login-url; a config error when it is bad.
 */
export function loginLinkFor(tag: string, s: Settings): string | undefined {
  const href = resolveUrl(s.loginUrl);
  if (href === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(href);
  } catch {
    // not a URL at all: refused below
  }
  if (!url || !/^https?:$/.test(url.protocol)) {
    throw configError(`<${tag}>: login-url must be an http(s) address (relative ones resolve against the page).`);
  }
  if (!url.searchParams.has('return_to')) url.searchParams.set('return_to', location.href);
  return url.href;
}

/** The settings named by a core option table (its own keys: a polluted Object.prototype adds none): the core says what it takes. */
const takenBy = (options: object): SettingName[] => SETTING_NAMES.filter((name) => Object.hasOwn(options, name));
const settingsFor = (options: object, s: Settings): Settings => Object.fromEntries(takenBy(options).map((name) => [name, s[name]]));

/** The settings a status watch reads: a change to one of them starts a new watch. */
export const WATCHED_SETTINGS = takenBy(WATCH_OPTIONS);

/** A core reader for these settings. Throws the core's errors (a config `BioIDError` naming the field; a `TypeError` for half a pin). */
export function readerFor(tag: string, s: Settings): FingerprintReader {
  const middlewareUrl = resolveUrl(s.middlewareUrl);
  if (!middlewareUrl) {
    throw configError(`<${tag}>: middleware-url (the biometrics middleware's address) is required.`);
  }
  // getToken reaches the reader as the token source below (tokenSourceFor), never as a setting of its own.
  const config = { ...settingsFor(READER_OPTIONS, s), getToken: undefined, middlewareUrl, localServiceUrl: localServiceUrlOf(tag, s) };
  return readerFrom(config, `<${tag}>`, tokenSourceFor(tag, s));
}

/** What a status watch needs of these settings: the local service or the pin; no middleware, no token. */
export function statusOptionsFor(tag: string, s: Settings): StatusWatchOptions {
  return { ...settingsFor(WATCH_OPTIONS, s), localServiceUrl: localServiceUrlOf(tag, s) };
}
