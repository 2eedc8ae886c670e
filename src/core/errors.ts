/**
 * Typed errors of the SDK. Every failure the SDK reports is a `BioIDError` with a stable `code`, so
 * callers (and the elements) branch on codes, never on message text.
 */

/** The middleware's text for a pinned workstation that is not live (spec 7, 9.5). */
export const WORKSTATION_OFFLINE_TEXT = 'Target workstation is not currently live.';

export type BioIDErrorCode =
  /** Invalid configuration or argument; the message names the field. */
  | 'config'
  /** The browser lacks a feature the SDK needs and has no fallback for (below the browser baseline); the message names it. */
  | 'browser-too-old'
  /** No token could be obtained: `getToken` threw or returned garbage, or the IdP exchange failed. */
  | 'auth'
  /** The token broker answered 401/403, redirected (to a login page) or sent an HTML page: sign in again. */
  | 'session-expired'
  /** The token broker failed (5xx, a garbage answer, network, timeout); the session may be fine. */
  | 'broker-unavailable'
  /** The browser sent no cookie to a token broker on another site (the broker answered reason "no-cookie"). */
  | 'cookie-blocked'
  /** The middleware still answered 401 after one refresh and retry. */
  | 'unauthorized'
  /** The middleware answered 403: the token is valid but not allowed; refreshing would not help. */
  | 'forbidden'
  /** The middleware answered 404 (unknown subject or workstation). */
  | 'not-found'
  /** `confirmVerification`: the verification is unknown, not a match, about another subject or too old. */
  | 'verification-rejected'
  /** 503 "Target workstation is not currently live." (spec 7). */
  | 'workstation-offline'
  /** Any other failure status of the middleware. */
  | 'middleware'
  /** A success status with a body that is not the expected JSON (a login page, a proxy, truncated JSON). */
  | 'bad-response'
  /** The call took longer than `timeoutMs`. */
  | 'timeout'
  /** The network failed (DNS, refused, reset, CORS refusal in a browser). */
  | 'network'
  /** The caller's AbortSignal fired, or the reader was closed. */
  | 'aborted'
  /** The local hardware service could not be reached. */
  | 'local-service-unreachable'
  /** The browser does not let this page reach the local hardware service (its local network access permission is denied). */
  | 'local-network-blocked'
  /** The local hardware service answered, but no fingerprint device is connected. */
  | 'no-device'
  /** The local hardware service answered with an error status or an unexpected payload. */
  | 'local-service';

export interface BioIDErrorOptions {
  status?: number;
  retryable?: boolean;
  cause?: unknown;
}

/**
 * The codes retryable unless the error says otherwise; any other code is retryable only with a 5xx status.
 * An error whose code and status already give the right answer leaves `retryable` out.
 */
const RETRYABLE_BY_DEFAULT: ReadonlySet<BioIDErrorCode> = new Set<BioIDErrorCode>([
  'timeout',
  'network',
  'workstation-offline',
  'local-service-unreachable',
  'no-device',
]);

export class BioIDError extends Error {
  readonly code: BioIDErrorCode;
  readonly status?: number;
  /** True when trying the same call again later may succeed without changing anything. */
  readonly retryable: boolean;

  constructor(code: BioIDErrorCode, message: string, options: BioIDErrorOptions = {}) {
    // Error takes `cause` from the options when they have one, and reads nothing else of them.
    super(message, options);
    this.name = 'BioIDError';
    this.code = code;
    if (options.status !== undefined) this.status = options.status;
    this.retryable = options.retryable ?? (RETRYABLE_BY_DEFAULT.has(code) || (options.status !== undefined && options.status >= 500));
  }
}

/** A `config` error: a setting is missing or wrong; the message names it and what to give instead. */
export const configError = (message: string) => new BioIDError('config', message);

/** The codes of a failure to obtain a token: which token source failed, and how. */
export type TokenErrorCode = 'auth' | 'session-expired' | 'broker-unavailable' | 'cookie-blocked' | 'timeout';

/**
 * No middleware token could be obtained (spec 5.7, 7: a throwing `getToken` of a reader). The same class
 * serves every token source, so one `instanceof` check covers "no token"; `code` tells which failure:
 * `auth` (a getToken or IdP failure, whatever the getToken threw), the token broker's `session-expired`,
 * `broker-unavailable`, `cookie-blocked`, or `timeout` (a getToken or token source that did not settle
 * within `timeoutMs`, spec 8).
 */
export class ReaderAuthError extends BioIDError {
  declare readonly code: TokenErrorCode;
  constructor(message: string, options: BioIDErrorOptions & { code?: TokenErrorCode } = {}) {
    super(options.code ?? 'auth', message, options);
    this.name = 'ReaderAuthError';
  }
}

/** The message of anything thrown: an Error's message, else its text; never throws (hostile toString). */
export function messageOf(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}

// Each pattern runs in linear time: no nested or overlapping quantifiers that fail late.
const TOKEN_LIKE = [
  // JWTs (header.payload.signature, base64url), and any head of one a cut left behind.
  /eyJ[\w-]{4,}[\w.-]*/g,
  // Anything after the word Bearer.
  /(bearer\s+)[^\s"',;]+/gi,
  // access_token / client_secret / subject_token values in JSON or form text.
  /((?:access|refresh|id|subject)_token|client_secret)("?\s*[:=]\s*"?)[^\s"&,}]+/gi,
];

/**
 * Calls a listener the caller gave the SDK (a phase or status listener). One that throws must not break
 * the SDK's work, and its error is not swallowed: it is rethrown on its own, where the page sees it.
 */
export function callListener<A extends unknown[]>(listener: ((...args: A) => void) | undefined, ...args: A): void {
  try {
    listener?.(...args);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/** `text` as one sentence: a final period added only when it does not already end in one. */
export const sentence = (text: string): string => (/[.!?…]$/.test(text) ? text : `${text}.`);

/** Secret values a text must not show; null and undefined are skipped (a form field not set). */
export type Secrets = readonly (string | null | undefined)[];

/**
 * Text received from a server (middleware, IdP, local service) goes into messages only through here:
 * shortened, on one line, and with anything that looks like a token or secret replaced.
 */
export function scrubServerText(text: string, maxLength = 200, secrets: Secrets = []): string {
  // The values the SDK holds (the token sent, the client secret, a subject token) go first, whole, whatever
  // surrounds them: an opaque one matches no pattern below. One under 8 characters is a test stand-in
  // that would match ordinary words.
  for (const secret of secrets) if (secret && secret.length >= 8) text = text.split(secret).join('[redacted]');
  // Only the head can be shown; what reaches a pattern is bounded, whatever the server sent.
  let out = text
    .slice(0, maxLength * 8)
    .replace(/\s+/g, ' ')
    .trim();
  out = out.replace(TOKEN_LIKE[0], '[redacted]').replace(TOKEN_LIKE[1], '$1[redacted]').replace(TOKEN_LIKE[2], '$1$2[redacted]');
  return out.length > maxLength ? `${out.slice(0, maxLength - 1)}…` : out;
}
