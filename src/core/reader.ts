/**
 * The fingerprint reader (spec 2.3, 9): discovery or pinning of the dispatch target, and enroll, verify
 * and search dispatched through the middleware orchestrator. `bio.reader` and `createFingerprintReader`
 * are both this one class.
 */
import { tokenProviderSource, type TokenSource } from './auth.js';
import {
  DEFAULT_READER_SERVICE_URL,
  DEFAULT_STATUS_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  optionalFunction,
  optionalHttpUrl,
  optionalString,
  positiveMs,
  readPin,
  rejectUnknownKeys,
  requireHttpUrl,
  requireObject,
  type FingerprintReaderConfig,
  type Pin,
} from './config.js';
import { fetchStatus, pickTarget, testCapture, type LocalServiceContext, type TestCaptureResult } from './discovery.js';
import { BioIDError } from './errors.js';
import type { FetchLike } from './http.js';
import { callMiddleware, type MiddlewareContext } from './middleware.js';
import { StatusWatcher, type ReaderStatus } from './status-watch.js';

export interface DispatchTarget {
  workstationId: string;
  deviceId: string;
}

/** Success bodies pass through unchanged; unknown extra fields survive. */
export interface EnrollResult {
  subjectId: string;
  enrollmentId: string;
  quality?: number;
  [extra: string]: unknown;
}
export interface VerifyResult {
  subjectId: string;
  match: boolean;
  score: number;
  /** Confirm this id with the middleware on your server: a client-side match is never proof. */
  verificationId: string;
  [extra: string]: unknown;
}
export interface SearchCandidate {
  subjectId: string;
  score: number;
  [extra: string]: unknown;
}
export interface SearchResult {
  candidates: SearchCandidate[];
  searchId: string;
  [extra: string]: unknown;
}
export interface EnrolledRecord {
  enrollmentId: string;
  createdAt: string;
  quality?: number;
  [extra: string]: unknown;
}
export interface EnrolledRecords {
  subjectId: string;
  records: EnrolledRecord[];
  [extra: string]: unknown;
}

export interface CaptureOptions {
  subjectId: string;
  /** Per-operation attribution of the end user who acted (spec 5.8); sent in the dispatch body. */
  agentId?: string;
  signal?: AbortSignal;
}

export interface FingerprintReader {
  enroll(o: CaptureOptions): Promise<EnrollResult>;
  verify(o: CaptureOptions): Promise<VerifyResult>;
  search(o?: { agentId?: string; signal?: AbortSignal }): Promise<SearchResult>;
  fetchEnrolled(o: { subjectId: string; signal?: AbortSignal }): Promise<EnrolledRecords>;
  testCapture(o?: { signal?: AbortSignal }): Promise<TestCaptureResult>;
  /** The workstation and device the next dispatch names: the pinned ids, or those discovered now. */
  target(o?: { signal?: AbortSignal }): Promise<DispatchTarget>;
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

export class FingerprintReaderImpl implements FingerprintReader {
  private readonly lifetime = new AbortController();
  private readonly watcher: StatusWatcher;

  constructor(private readonly parts: ReaderParts) {
    this.watcher = new StatusWatcher(parts.localService, parts.pin, parts.statusIntervalMs);
  }

  get pinned(): boolean {
    return this.parts.pin !== undefined;
  }

  async target(o: { signal?: AbortSignal } = {}): Promise<DispatchTarget> {
    const signal = this.signalFor(o.signal);
    if (this.parts.pin) return { ...this.parts.pin }; // spec 9.3: no discovery when pinned
    const status = await fetchStatus(this.parts.localService, signal);
    return pickTarget(status, this.parts.localService.localServiceUrl);
  }

  async enroll(o: CaptureOptions): Promise<EnrollResult> {
    const subjectId = subjectOf(o, 'enroll');
    return this.dispatch('enroll', { subjectId }, o, (body) => {
      expect(body, 'enroll', { enrollmentId: 'string' });
    });
  }

  async verify(o: CaptureOptions): Promise<VerifyResult> {
    const subjectId = subjectOf(o, 'verify');
    return this.dispatch('verify', { subjectId }, o, (body) => {
      expect(body, 'verify', { match: 'boolean', verificationId: 'string' });
    });
  }

  async search(o: { agentId?: string; signal?: AbortSignal } = {}): Promise<SearchResult> {
    return this.dispatch('search', {}, o ?? {}, (body) => {
      const { candidates } = body;
      if (!Array.isArray(candidates)) throw unexpected('search', 'candidates is not a list');
      candidates.forEach((c, i) => expect(c, `search candidates[${i}]`, { subjectId: 'string', score: 'number' }));
      expect(body, 'search', { searchId: 'string' });
    });
  }

  async fetchEnrolled(o: { subjectId: string; signal?: AbortSignal }): Promise<EnrolledRecords> {
    const subjectId = subjectOf(o, 'fetchEnrolled');
    const body = await callMiddleware(this.parts.middleware, {
      method: 'GET',
      path: `biometrics/${encodeURIComponent(subjectId)}`,
      signal: this.signalFor(o.signal),
    });
    const { records } = body;
    if (!Array.isArray(records)) throw unexpected('fetchEnrolled', 'records is not a list');
    records.forEach((r, i) => expect(r, `fetchEnrolled records[${i}]`, { enrollmentId: 'string' }));
    return body as EnrolledRecords;
  }

  async testCapture(o: { signal?: AbortSignal } = {}): Promise<TestCaptureResult> {
    const signal = this.signalFor(o?.signal);
    const { deviceId } = await this.target({ signal });
    return testCapture(this.parts.localService, deviceId, signal);
  }

  watchStatus(listener: (s: ReaderStatus) => void): () => void {
    if (typeof listener !== 'function') throw new BioIDError('config', 'watchStatus(listener): listener must be a function.');
    return this.watcher.watch(listener);
  }

  close(): void {
    this.lifetime.abort();
    this.watcher.close();
  }

  private async dispatch<T>(
    operation: 'enroll' | 'verify' | 'search',
    fields: Record<string, string>,
    o: { agentId?: string; signal?: AbortSignal },
    check: (body: Record<string, unknown>) => void,
  ): Promise<T> {
    const agentId = o.agentId;
    if (agentId !== undefined && (typeof agentId !== 'string' || agentId === '')) {
      throw new BioIDError('config', `${operation}: agentId must be a non-empty string when given.`);
    }
    const signal = this.signalFor(o.signal);
    const target = await this.target({ signal });
    // Spec 9.1: dispatched to the middleware orchestrator, never to the local service.
    const body = await callMiddleware(this.parts.middleware, {
      method: 'POST',
      path: `orchestrator/${operation}`,
      body: { ...target, ...fields, ...(agentId ? { agentId } : {}) },
      dispatch: true,
      signal,
    });
    check(body);
    return body as T;
  }

  /** The caller's signal combined with the reader's own lifetime (close() aborts everything). */
  private signalFor(callerSignal: AbortSignal | undefined): AbortSignal {
    if (this.lifetime.signal.aborted) {
      throw new BioIDError('aborted', 'This reader was closed; create a new one.', { retryable: false });
    }
    if (callerSignal !== undefined && !(callerSignal instanceof AbortSignal)) {
      throw new BioIDError('config', 'signal must be an AbortSignal.');
    }
    // A signal of its own per operation, even without a caller's: listeners of one operation then never
    // pile up on the reader's long-lived signal (no MaxListenersExceededWarning with many at once).
    return AbortSignal.any(callerSignal ? [this.lifetime.signal, callerSignal] : [this.lifetime.signal]);
  }
}

function subjectOf(o: unknown, operation: string): string {
  const subjectId = (o as { subjectId?: unknown } | undefined)?.subjectId;
  if (typeof subjectId !== 'string' || subjectId.trim() === '') {
    throw new BioIDError('config', `${operation}: subjectId is required and must be a non-empty string.`);
  }
  return subjectId;
}

/** Checks the fields the SDK and its callers rely on; anything else passes through unchecked. */
function expect(body: unknown, operation: string, fields: Record<string, 'string' | 'boolean' | 'number'>): void {
  if (!body || typeof body !== 'object') throw unexpected(operation, 'not an object');
  for (const [field, type] of Object.entries(fields)) {
    if (typeof (body as Record<string, unknown>)[field] !== type) throw unexpected(operation, `${field} is not a ${type}`);
  }
}

const unexpected = (operation: string, what: string) =>
  new BioIDError('bad-response', `The middleware's ${operation} answer is not as expected: ${what}.`, { retryable: false });

const READER_KEYS = [
  'getToken',
  'middlewareUrl',
  'integratorId',
  'localServiceUrl',
  'workstationId',
  'deviceId',
  'fetchImpl',
  'timeoutMs',
  'statusIntervalMs',
] as const;

/**
 * A standalone reader (spec 2.3) with its own getToken. Exactly one of workstationId and deviceId is
 * the built-in TypeError (spec 9.4), thrown here.
 */
export function createFingerprintReader(config: FingerprintReaderConfig): FingerprintReader {
  return readerFrom(config, 'createFingerprintReader');
}

/**
 * The one place a reader is configured: standalone readers, `bio.reader` and the elements all come
 * through here. `tokens`, when given, replaces `getToken`: `bio.reader` takes them from its auth
 * strategy, the elements from the page-wide cache of their token broker.
 */
export function readerFrom(config: unknown, where: string, tokens?: TokenSource): FingerprintReader {
  const c = requireObject(config, `${where}(config)`);
  const pin = readPin(c.workstationId, c.deviceId, where);
  rejectUnknownKeys(c, READER_KEYS, `${where}(config)`);
  const timeoutMs = positiveMs(c.timeoutMs, `${where}: timeoutMs`, DEFAULT_TIMEOUT_MS);
  const getToken = c.getToken;
  if (!tokens && typeof getToken !== 'function' && (typeof getToken !== 'string' || getToken === '')) {
    throw new BioIDError(
      'config',
      `${where}: getToken is required: a function resolving to a middleware access token (from your token broker), or the token itself.`,
    );
  }
  const fetchImpl = optionalFunction<FetchLike>(c.fetchImpl, `${where}: fetchImpl`);
  return new FingerprintReaderImpl({
    middleware: {
      middlewareUrl: requireHttpUrl(c.middlewareUrl, `${where}: middlewareUrl`),
      tokens: tokens ?? tokenProviderSource(getToken as FingerprintReaderConfig['getToken'], timeoutMs),
      integratorId: optionalString(c.integratorId, `${where}: integratorId`),
      fetchImpl,
      timeoutMs,
    },
    localService: {
      localServiceUrl: optionalHttpUrl(c.localServiceUrl, `${where}: localServiceUrl`, DEFAULT_READER_SERVICE_URL),
      fetchImpl,
      timeoutMs,
    },
    pin,
    statusIntervalMs: positiveMs(c.statusIntervalMs, `${where}: statusIntervalMs`, DEFAULT_STATUS_INTERVAL_MS),
  });
}
