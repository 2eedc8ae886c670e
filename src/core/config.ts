/**
 * Configuration types of spec 2.1–2.3 and their validation. Validation happens at construction, so a
 * mistake surfaces where it was made, with the field named and what to do about it.
 */
import { configError } from './errors.js';
import type { TokenSource } from './token-source.js';
import type { FetchLike } from './http.js';

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_READER_SERVICE_URL = 'http://localhost:18065';
/** How often an unpinned reader asks the local service for /status while someone watches. */
export const DEFAULT_STATUS_INTERVAL_MS = 3_000;
/** setTimeout's ceiling; a larger delay would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** Spec 2.2 variant A: the integrator's frontend supplies tokens from its own token broker. */
export interface TokenProviderAuth {
  type: 'tokenProvider';
  /**
   * Resolves to a middleware access token; called on first use and again after a 401 (spec 5.3). Or a
   * token source from `brokerTokenSource(url)`: the broker call, cached page-wide, refreshed after a 401.
   */
  getToken: (() => Promise<string>) | TokenSource;
}

/** Spec 2.2 variant B: the SDK runs the client_credentials exchange itself. Server or kiosk only. */
export interface IdpClientCredentialsAuth {
  type: 'idpClientCredentials';
  clientId: string;
  /** Never ship this to a browser (spec 5.5). */
  clientSecret: string;
  /**
   * Address of the identity provider. The operator's default issuer is not published, so this is
   * required in practice; an issuer ending in `/realms/<realm>` also supplies the realm.
   */
  issuerUrl?: string;
  realm?: string;
  /** Default `biometrics-middleware`. */
  audience?: string;
  scope?: string;
  /** Allows this strategy in a browser or browser worker, where it would expose the client secret. */
  dangerouslyAllowBrowser?: boolean;
}

export type BioIDAuth = TokenProviderAuth | IdpClientCredentialsAuth;

/** Spec 2.1. */
export interface BioIDConfig {
  middlewareUrl: string;
  auth: BioIDAuth;
  /** Sent as X-Integrator-Id on dispatch; required with idpClientCredentials. */
  integratorId?: string;
  fetchImpl?: FetchLike;
  /** Per network call; default 15000. */
  timeoutMs?: number;
  /** Local hardware service of `bio.reader`; default http://localhost:18065. */
  readerServiceUrl?: string;
  /** Pins `bio.reader` to this workstation (with deviceId), as in spec 9.3. */
  workstationId?: string;
  /** Pins `bio.reader` to this device (with workstationId), as in spec 9.3. */
  deviceId?: string;
  /** Interval of /status polling while `watchStatus` has listeners; default 3000. */
  statusIntervalMs?: number;
}

/** Spec 2.3. */
export interface FingerprintReaderConfig {
  /**
   * A middleware bearer token, or a function resolving to one; called on demand and after a 401. Or a
   * token source from `brokerTokenSource(url)`.
   */
  getToken: string | (() => string | Promise<string>) | TokenSource;
  middlewareUrl: string;
  integratorId?: string;
  /** Default http://localhost:18065. */
  localServiceUrl?: string;
  /** Pins the dispatch target; must come with deviceId (spec 9.4). */
  workstationId?: string;
  /** Device named on dispatch; must come with workstationId (spec 9.4). */
  deviceId?: string;
  fetchImpl?: FetchLike;
  /** Per network call; default 15000 (spec 8). */
  timeoutMs?: number;
  /** Interval of /status polling while `watchStatus` has listeners; default 3000. */
  statusIntervalMs?: number;
}

/**
 * A field's validator: returns the value to use (its default applied) or throws a config error that
 * names `field`. One table of these per configuration object is the single source of its key list,
 * its unknown-key check and its validation (each field validated once, where the object is read).
 */
export type Check<T> = (value: unknown, field: string) => T;
export type OptionTable = Record<string, Check<unknown>>;
export type Options<T extends OptionTable> = { [K in keyof T]: ReturnType<T[K]> };

/**
 * Reads `value` through `table`: an object with only the table's keys, each validated by its check.
 * `prefix` goes before each field name in messages (`createFingerprintReader: middlewareUrl …`).
 */
export function readOptions<T extends OptionTable>(value: unknown, table: T, what: string, prefix = ''): Options<T> {
  const record = requireObject(value, what);
  rejectUnknownKeys(record, Object.keys(table), what);
  const out: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(table)) out[key] = check(own(record, key), `${prefix}${key}`);
  return out as Options<T>;
}

/**
 * `record[key]` only when `record` itself has it: a value inherited from a polluted `Object.prototype`
 * (another script on the page) must never configure the SDK, a pin above all. `null` reads as not
 * supplied, as spec 2.1 says of integratorId: an optional option gets its default, a required one says so.
 */
export function own(record: unknown, key: string): unknown {
  return isJsonObject(record) && Object.hasOwn(record, key) ? (record[key] ?? undefined) : undefined;
}

/**
 * An id sent as one path segment (a subject, a verification): not blank, at most 256 characters
 * (docs/core.md), and not "." or "..", which would address another resource
 * ({middlewareUrl}/biometrics/.. is the root).
 */
export const isSegmentId = (value: unknown): value is string =>
  typeof value === 'string' && value.trim() !== '' && value.length <= 256 && value !== '.' && value !== '..';

/** A JSON object: not null, not a list. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === 'object' && !Array.isArray(value);

export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (!isJsonObject(value)) {
    throw configError(`${what} must be an object.`);
  }
  return value;
}

/** Rejects keys the SDK does not know, so a typo (`middlewareURL`) is not silently ignored. */
export function rejectUnknownKeys(record: Record<string, unknown>, known: readonly string[], what: string): void {
  for (const key of Object.keys(record)) {
    if (known.includes(key)) continue;
    const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
    throw configError(
      `${what} has an unknown option "${key}"${near ? `; did you mean "${near}"?` : `. Known options: ${known.join(', ')}.`}`,
    );
  }
}

export function requireString(value: unknown, field: string, hint = ''): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw configError(`${field} is required and must be a non-empty string${hint ? `: ${hint}` : '.'}`);
  }
  return value;
}

export function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  return requireString(value, field);
}

/**
 * Spec 2.1: integratorId is optional (`null` arrives as not supplied, as every option read through own()).
 * It travels as the X-Integrator-Id header, so a value no header can carry (a line break, characters outside
 * visible ASCII and space) is refused here, at construction, not at dispatch as a network failure.
 */
export const optionalIntegratorId: Check<string | undefined> = (value, field) => {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.trim() === '') throw configError(`${field} is empty: give the tenant id, or leave it out.`);
  if (typeof value !== 'string' || !/^[\x20-\x7E]+$/.test(value)) {
    throw configError(`${field} must be visible ASCII characters and spaces: it is sent as the X-Integrator-Id header.`);
  }
  return value;
};

/**
 * An absolute http(s) URL, returned without a trailing slash so paths join predictably, nor a bare `?` or
 * `#` (an empty query or fragment, which href keeps: a path joined after it would not be a path). `secure`: the
 * address of a party that receives a token or the client secret (the middleware, the identity provider),
 * so https, or plain http on loopback only, where nothing crosses a network.
 */
export function requireHttpUrl(value: unknown, field: string, secure = false): string {
  const url = absoluteHttpUrl(value, field, false);
  if (secure && url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw configError(`${field} must be an https URL (http on loopback only).`);
  }
  return url.href.replace(/[/?#]+$/, '');
}

/** `requireHttpUrl` for the middleware and the identity provider: https unless loopback. */
export const requireSecureUrl: Check<string> = (value, field) => requireHttpUrl(value, field, true);

/** Loopback hosts, where plain http never leaves the machine. */
export const isLoopback = (hostname: string): boolean => /^(localhost|\[::1\]|127(\.\d+){3})$/.test(hostname);

/** An absolute http(s) endpoint, called as given: a query is allowed (`/wp-admin/admin-ajax.php?action=…`). */
export function requireEndpointUrl(value: unknown, field: string): string {
  return absoluteHttpUrl(value, field, true).href;
}

function absoluteHttpUrl(value: unknown, field: string, queryAllowed: boolean): URL {
  if (typeof value !== 'string' || value.trim() === '') {
    throw configError(`${field} is required: the absolute http(s) address, for example https://biometrics.example.com.`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value is not echoed: a misplaced secret must not end up in a log.
    throw configError(`${field} is not an absolute URL; give the full http(s) address, such as https://biometrics.example.com.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw configError(`${field} must be an http or https URL, not ${url.protocol}.`);
  }
  if (url.username || url.password) {
    throw configError(`${field} must not carry credentials in the URL.`);
  }
  if ((url.search && !queryAllowed) || url.hash) {
    throw configError(`${field} must be ${queryAllowed ? 'an address without a fragment' : 'a base address without a query or fragment'}.`);
  }
  return url;
}

/** Checks for option tables. */
export const httpUrlOr =
  (fallback: string): Check<string> =>
  (value, field) =>
    value === undefined ? fallback : requireHttpUrl(value, field);

export const millisecondsOr =
  (fallback: number): Check<number> =>
  (value, field) => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
      throw configError(`${field} must be a positive number of milliseconds (at most ${MAX_TIMER_MS}).`);
    }
    return value;
  };

export function optionalFunction<T>(value: unknown, field: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw configError(`${field} must be a function.`);
  return value as T;
}

/** Any value: for fields another step reads (the pin, the auth object). */
export const passThrough: Check<unknown> = (value) => value;

/**
 * The options every reader-like object shares (a reader, `BioID`, a status watch): the pin (read apart,
 * spec 9.4), fetch, the timeout and the status interval.
 */
export const SHARED_OPTIONS = {
  workstationId: passThrough,
  deviceId: passThrough,
  fetchImpl: optionalFunction<FetchLike>,
  timeoutMs: millisecondsOr(DEFAULT_TIMEOUT_MS),
  statusIntervalMs: millisecondsOr(DEFAULT_STATUS_INTERVAL_MS),
};

export interface Pin {
  workstationId: string;
  deviceId: string;
}

/** A value not supplied: absent, null or empty (a pin id; an element setting, src/elements/parts/settings.ts). */
export const unsupplied = (value: unknown): value is undefined | null | '' => value === undefined || value === null || value === '';

/**
 * Spec 9.3/9.4: both ids of `config` pin the target; exactly one is a programming error, thrown as the
 * built-in TypeError (not a BioIDError) as the spec says. `null` counts as not supplied, like an absent field.
 */
export function readPin(config: unknown, where: string): Pin | undefined {
  const workstationId = own(config, 'workstationId');
  const deviceId = own(config, 'deviceId');
  const hasWorkstation = !unsupplied(workstationId);
  const hasDevice = !unsupplied(deviceId);
  if (hasWorkstation !== hasDevice) {
    throw new TypeError(
      `${where}: workstationId and deviceId pin the dispatch target together; ${hasWorkstation ? 'deviceId' : 'workstationId'} is missing. Give both, or neither to discover them from the local service.`,
    );
  }
  if (!hasWorkstation) return undefined;
  return {
    workstationId: requireString(workstationId, `${where}.workstationId`),
    deviceId: requireString(deviceId, `${where}.deviceId`),
  };
}

/**
 * The realm an issuer URL names: an OpenID issuer of a Keycloak-style provider ends in `/realms/<realm>`.
 * Returns the issuer's root and that realm (decoded), or undefined when the URL names none.
 */
export function realmOf(issuerUrl: string): { root: string; realm: string } | undefined {
  const match = /^(.*)\/realms\/([^/]+)\/*$/.exec(issuerUrl);
  if (!match) return undefined;
  let realm = match[2];
  try {
    realm = decodeURIComponent(realm);
  } catch {
    // not percent-encoded text: the segment as written
  }
  return { root: match[1], realm };
}
