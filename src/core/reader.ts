/**
 * The fingerprint reader (spec 2.3, 9): the whole flow of an operation, in one place. A dispatch gets
 * the token, finds the target (discovered through the local service, pinned, or given by the caller),
 * then sends the capture to the middleware's orchestrator, reporting each phase through `onPhase`.
 * `bio.reader`, `createFingerprintReader` and the elements all run this one class.
 */
import { getTokenSource, isTokenSource } from './auth.js';
import { anySignal, requireBaseline } from './baseline.js';
import type { TokenSource } from './token-source.js';
import {
  DEFAULT_READER_SERVICE_URL,
  SHARED_OPTIONS,
  httpUrlOr,
  isSegmentId,
  optionalIntegratorId,
  own,
  passThrough,
  readOptions,
  readPin,
  requireSecureUrl,
  type FingerprintReaderConfig,
  type Pin,
} from './config.js';
import { fetchStatus, pickTarget, testCapture, unlessBlocked, type LocalServiceContext, type TestCaptureResult } from './discovery.js';
import { BioIDError, callListener, configError } from './errors.js';
import { callMiddleware, type MiddlewareContext } from './middleware.js';
import { connectLocalService, statusWatcher, type ReaderStatus, type StatusWatcher } from './status-watch.js';

export interface DispatchTarget {
  workstationId: string;
  deviceId: string;
}

/**
 * Success bodies as docs/wire-contract.md describes them, passed through unchanged (tolerant
 * reader, docs/wire-contract.md): the SDK checks only what it acts on (verify's `match`; search's `candidates`
 * when present), so every other field is optional here, as it may be missing from a real middleware's
 * answer, and unknown extra fields survive.
 */
export interface EnrollResult {
  subjectId?: string;
  enrollmentId?: string;
  quality?: number;
  [extra: string]: unknown;
}
export interface VerifyResult {
  subjectId?: string;
  match: boolean;
  score?: number;
  /** Confirm this id with the middleware on your server: a client-side match is never proof. */
  verificationId?: string;
  [extra: string]: unknown;
}
export interface SearchCandidate {
  subjectId?: string;
  score?: number;
  [extra: string]: unknown;
}
export interface SearchResult {
  candidates?: SearchCandidate[];
  searchId?: string;
  [extra: string]: unknown;
}
export interface EnrolledRecord {
  enrollmentId?: string;
  createdAt?: string;
  quality?: number;
  [extra: string]: unknown;
}
export interface EnrolledRecords {
  subjectId?: string;
  records?: EnrolledRecord[];
  [extra: string]: unknown;
}

/**
 * The phases of an operation, in order: the token, the target (discovery through the local service;
 * immediate when pinned or given), then the dispatch to the workstation, which waits for a finger.
 * fetchEnrolled has only the first.
 */
export type ReaderPhase = 'token' | 'locating' | 'dispatched';

export interface OperationOptions {
  signal?: AbortSignal;
  /** Called as each phase begins; 'dispatched' comes with the target named in the dispatch. */
  onPhase?: (phase: ReaderPhase, target?: DispatchTarget) => void;
}

export interface SearchOptions extends OperationOptions {
  /** Per-operation attribution of the end user who acted (spec 5.8); sent in the dispatch body. */
  agentId?: string;
  /** Dispatch to this workstation and device, without asking the local service. */
  target?: DispatchTarget;
}

export interface CaptureOptions extends SearchOptions {
  subjectId: string;
}

export interface FingerprintReader {
  enroll(o: CaptureOptions): Promise<EnrollResult>;
  verify(o: CaptureOptions): Promise<VerifyResult>;
  search(o?: SearchOptions): Promise<SearchResult>;
  fetchEnrolled(o: { subjectId: string } & OperationOptions): Promise<EnrolledRecords>;
  testCapture(o?: { signal?: AbortSignal }): Promise<TestCaptureResult>;
  /** The workstation and device the next dispatch names: the pinned ids, or those discovered now. */
  target(o?: { signal?: AbortSignal }): Promise<DispatchTarget>;
  /**
   * Whether the middleware reports `workstationId` live, through its optional liveness call
   * (docs/wire-contract.md); rejects as any middleware call does (`not-found` where the middleware has none).
   */
  live(workstationId: string, o?: { signal?: AbortSignal }): Promise<boolean>;
  /** Reports reader status changes; polls /status while listened to, never when pinned. Returns the unsubscribe. */
  watchStatus(listener: (s: ReaderStatus) => void): () => void;
  /** True when workstationId and deviceId were given (spec 9.3). */
  readonly pinned: boolean;
  /** Stops polling and aborts in-flight work; later calls reject with code 'aborted'. */
  close(): void;
}

export interface ReaderParts {
  middleware: MiddlewareContext;
  localService: LocalServiceContext;
  pin: Pin | undefined;
  statusIntervalMs: number;
}

class FingerprintReaderImpl implements FingerprintReader {
  readonly #lifetime = new AbortController();
  readonly #unwatches = new Set<() => void>();

  readonly #parts: ReaderParts;

  constructor(parts: ReaderParts) {
    this.#parts = parts;
  }

  get pinned(): boolean {
    return this.#parts.pin !== undefined;
  }

  async target(o?: { signal?: AbortSignal }): Promise<DispatchTarget> {
    const signal = this.#signalFor(o);
    if (this.#parts.pin) return { ...this.#parts.pin }; // spec 9.3: no discovery when pinned
    const { localServiceUrl } = this.#parts.localService;
    return unlessBlocked(localServiceUrl, async () => {
      connectLocalService(); // an operation the page started: the status watchers may ask from now on too
      // What the reader's status watch heard lately, so an element's click sends the dispatch alone: the
      // page-wide watch an element starts on the first sign of intent (a fetchImpl of its own has its own).
      return this.#watcher().knownTarget() ?? pickTarget(await fetchStatus(this.#parts.localService, signal), localServiceUrl);
    });
  }

  async enroll(o: CaptureOptions): Promise<EnrollResult> {
    return this.#dispatch('enroll', { subjectId: subjectOf(o, 'enroll') }, o);
  }

  async verify(o: CaptureOptions): Promise<VerifyResult> {
    const body = await this.#dispatch<VerifyResult>('verify', { subjectId: subjectOf(o, 'verify') }, o);
    // The one field every caller acts on: a match must be a real boolean, never a truthy string.
    if (typeof body.match !== 'boolean') throw unexpected('verify', 'match is not a boolean');
    return body;
  }

  async search(o?: SearchOptions): Promise<SearchResult> {
    // No options (undefined or null) read as none: #dispatch reads each through own().
    const body = await this.#dispatch<SearchResult>('search', {}, o);
    if (body.candidates !== undefined && !Array.isArray(body.candidates)) throw unexpected('search', 'candidates is not a list');
    return body;
  }

  async fetchEnrolled(o: { subjectId: string } & OperationOptions): Promise<EnrolledRecords> {
    const subjectId = subjectOf(o, 'fetchEnrolled');
    const signal = this.#signalFor(o);
    const onPhase = phaseListener(own(o, 'onPhase') as OperationOptions['onPhase']);
    onPhase('token');
    const body = await callMiddleware(this.#parts.middleware, {
      method: 'GET',
      path: `biometrics/${encodeURIComponent(subjectId)}`,
      signal,
    });
    return body;
  }

  async live(workstationId: string, o?: { signal?: AbortSignal }): Promise<boolean> {
    const body = await callMiddleware(this.#parts.middleware, {
      method: 'GET',
      path: `orchestrator/workstations/${encodeURIComponent(workstationId)}`,
      signal: this.#signalFor(o),
    });
    return body.live === true;
  }

  async testCapture(o?: { signal?: AbortSignal }): Promise<TestCaptureResult> {
    const signal = this.#signalFor(o);
    const { deviceId } = await this.target({ signal });
    return testCapture(this.#parts.localService, deviceId, signal);
  }

  watchStatus(listener: (s: ReaderStatus) => void): () => void {
    if (typeof listener !== 'function') throw configError('watchStatus(listener): listener must be a function.');
    if (this.#lifetime.signal.aborted) return () => {};
    const stop = this.#watcher().watch(listener);
    const unwatch = () => {
      this.#unwatches.delete(unwatch);
      stop();
    };
    this.#unwatches.add(unwatch);
    return unwatch;
  }

  /** The reader's status watcher: the page-wide one of its local service, or its own (a pin or a fetchImpl of its own). */
  #statusWatcher: StatusWatcher | undefined;
  #watcher(): StatusWatcher {
    const { localService, pin, statusIntervalMs } = this.#parts;
    return (this.#statusWatcher ??= statusWatcher(localService, pin, statusIntervalMs));
  }

  close(): void {
    this.#lifetime.abort();
    for (const unwatch of [...this.#unwatches]) unwatch();
  }

  /** Token, target, then the orchestrator (spec 9.1: never the local service), each phase reported. */
  async #dispatch<T>(operation: 'enroll' | 'verify' | 'search', fields: Record<string, string>, o: SearchOptions | undefined): Promise<T> {
    // The caller's options are read as own properties only (a polluted Object.prototype adds none).
    const agentId = own(o, 'agentId');
    if (agentId !== undefined && (typeof agentId !== 'string' || agentId === '')) {
      throw configError(`${operation}: agentId must be a non-empty string when given.`);
    }
    const target = own(o, 'target');
    const given = target === undefined ? undefined : readPin(target, `${operation}: target`);
    const signal = this.#signalFor(o);
    const onPhase = phaseListener(own(o, 'onPhase') as OperationOptions['onPhase']);
    const { tokens } = this.#parts.middleware;
    onPhase('token');
    // The token first: a signed-out user learns it before anyone is asked for a finger.
    await tokens.get(signal);
    onPhase('locating');
    const to = given ?? (await this.target({ signal }));
    onPhase('dispatched', to);
    const body = await callMiddleware(this.#parts.middleware, {
      method: 'POST',
      path: `orchestrator/${operation}`,
      body: { ...to, ...fields, ...(agentId && { agentId }) },
      dispatch: true,
      signal,
    });
    return body as T;
  }

  /** The signal of the caller's options (if any) combined with the reader's own lifetime (close() aborts everything). */
  #signalFor(options: unknown): AbortSignal {
    requireBaseline();
    const callerSignal = own(options, 'signal');
    if (this.#lifetime.signal.aborted) {
      throw new BioIDError('aborted', 'This reader was closed; create a new one.');
    }
    if (callerSignal !== undefined && !(callerSignal instanceof AbortSignal)) {
      throw configError('signal must be an AbortSignal.');
    }
    // A signal of its own per operation, even without a caller's: listeners of one operation then never
    // pile up on the reader's long-lived signal (no MaxListenersExceededWarning with many at once).
    return anySignal(callerSignal ? [this.#lifetime.signal, callerSignal] : [this.#lifetime.signal]);
  }
}

/** The caller's phase listener, called safely (callListener). */
function phaseListener(listener: OperationOptions['onPhase']): NonNullable<OperationOptions['onPhase']> {
  if (listener !== undefined && typeof listener !== 'function') throw configError('onPhase must be a function.');
  return (phase, target) => callListener(listener, phase, target);
}

function subjectOf(o: unknown, operation: string): string {
  const subjectId = own(o, 'subjectId');
  if (!isSegmentId(subjectId)) {
    throw configError(`${operation}: subjectId is required: a non-empty string of at most 256 characters, and not "." or "..".`);
  }
  return subjectId;
}

const unexpected = (operation: string, what: string) =>
  new BioIDError('bad-response', `The middleware's ${operation} answer is not as expected: ${what}.`);

/** Spec 2.3, one table: every option of a reader, its check and its default. The pin is read apart (a TypeError). */
/** What a reader takes: the key list, the unknown-key check and each value's validation (the elements pass on the settings named here). */
export const READER_OPTIONS = {
  getToken: passThrough,
  middlewareUrl: requireSecureUrl,
  integratorId: optionalIntegratorId,
  localServiceUrl: httpUrlOr(DEFAULT_READER_SERVICE_URL),
  ...SHARED_OPTIONS,
};

/**
 * A standalone reader (spec 2.3) with its own getToken. Exactly one of workstationId and deviceId is
 * the built-in TypeError (spec 9.4), thrown here.
 */
export function createFingerprintReader(config: FingerprintReaderConfig): FingerprintReader {
  return readerFrom(config, 'createFingerprintReader');
}

/**
 * The one place a reader is configured: standalone readers and the elements come through here. `tokens`,
 * when given, replaces `getToken`: the elements take them from the page-wide cache of their token broker.
 */
export function readerFrom(config: unknown, where: string, tokens?: TokenSource): FingerprintReader {
  const pin = readPin(config, where);
  const c = readOptions(config, READER_OPTIONS, `${where}(config)`, `${where}: `);
  // A token source given as getToken is used as it is; else the elements' `tokens` replace getToken.
  const source = isTokenSource(c.getToken) || !tokens ? getTokenSource(c.getToken, c.timeoutMs, true) : tokens;
  if (!source) {
    throw configError(
      `${where}: getToken is required: a function resolving to a middleware access token (from your token broker), the token itself, or brokerTokenSource(url).`,
    );
  }
  return newReader(c, c.localServiceUrl, source, pin);
}

/** A reader from options already read (by `readerFrom` or `BioID`): nothing is validated twice. */
export function newReader(
  c: Pick<MiddlewareContext, 'middlewareUrl' | 'integratorId' | 'fetchImpl' | 'timeoutMs'> & { statusIntervalMs: number },
  localServiceUrl: string,
  tokens: TokenSource,
  pin: Pin | undefined,
): FingerprintReader {
  const { middlewareUrl, integratorId, fetchImpl, timeoutMs } = c;
  return new FingerprintReaderImpl({
    middleware: { middlewareUrl, tokens, integratorId, fetchImpl, timeoutMs },
    localService: { localServiceUrl, fetchImpl, timeoutMs },
    pin,
    statusIntervalMs: c.statusIntervalMs,
  });
}
