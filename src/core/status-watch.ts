/**
 * Reader status (spec 9.2, 9.3): polls the local service's /status while anyone listens, reports only
 * changes, backs off while the service is unreachable, pauses while the page is hidden, and never
 * polls when pinned. It needs no middleware and no token. One watcher per local service for the whole
 * page: every reader, `<bio-reader-status>` and operation element watching the same service shares its
 * polling.
 */
import { DEFAULT_READER_SERVICE_URL, SHARED_OPTIONS, httpUrlOr, readOptions, readPin, type Pin } from './config.js';
import { fetchStatus, pickTarget, type DeviceInfo, type LocalServiceContext } from './discovery.js';
import { BioIDError, callListener, messageOf } from './errors.js';
import type { FetchLike } from './http.js';

export type ReaderState =
  /** First /status request under way. */
  | 'checking'
  /** A connected device was found; workstationId and deviceId name it. */
  | 'ready'
  /** The service answered but no device is connected. */
  | 'no-device'
  /** The local service could not be reached (not running, blocked, or a CORS refusal). */
  | 'unreachable'
  /** The local service answered with an error or an unexpected payload. */
  | 'error'
  /** Pinned ids are used as given; the local service is never asked (spec 9.3). */
  | 'pinned';

export interface ReaderStatus {
  state: ReaderState;
  pinned: boolean;
  workstationId?: string;
  deviceId?: string;
  devices?: DeviceInfo[];
  /** For 'unreachable' and 'error': what went wrong and what to do. */
  message?: string;
}

export type StatusListener = (status: ReaderStatus) => void;

/** Longest wait between two polls while the service stays unreachable. */
export const MAX_BACKOFF_MS = 60_000;

/** What a status watch needs: the local service, or a pin (then nothing is polled). */
export interface StatusWatchOptions {
  /** Default http://localhost:18065. */
  localServiceUrl?: string;
  /** With deviceId: pinned, never polled (spec 9.3). Exactly one of the two is a TypeError (spec 9.4). */
  workstationId?: string | null;
  deviceId?: string | null;
  /** Bound on each /status request; default 15000. */
  timeoutMs?: number;
  /** Interval between polls; default 3000. */
  statusIntervalMs?: number;
  fetchImpl?: FetchLike;
}

const WATCH_OPTIONS = { localServiceUrl: httpUrlOr(DEFAULT_READER_SERVICE_URL), ...SHARED_OPTIONS };

const watchers = new Map<string, StatusWatcher>();

/**
 * Reports the reader status to `listener` (the current one at once, then each change) until the returned
 * function is called. Polls only while someone listens, the page is visible and no pin is set.
 */
export function watchReaderStatus(options: StatusWatchOptions, listener: StatusListener): () => void {
  if (typeof listener !== 'function') throw new BioIDError('config', 'watchReaderStatus(options, listener): listener must be a function.');
  const pin = readPin(options, 'watchReaderStatus');
  const o = readOptions(options, WATCH_OPTIONS, 'watchReaderStatus(options)', 'watchReaderStatus: ');
  return statusWatcher({ localServiceUrl: o.localServiceUrl, fetchImpl: o.fetchImpl, timeoutMs: o.timeoutMs }, pin, o.statusIntervalMs).watch(
    listener,
  );
}

/** The page-wide watcher of one local service (a pin or a fetchImpl of its own gets a watcher of its own). */
export function statusWatcher(ctx: LocalServiceContext, pin: Pin | undefined, intervalMs: number): StatusWatcher {
  if (pin || ctx.fetchImpl) return new StatusWatcher(ctx, pin, intervalMs);
  const key = `${ctx.localServiceUrl} ${ctx.timeoutMs} ${intervalMs}`;
  let watcher = watchers.get(key);
  if (!watcher) watchers.set(key, (watcher = new StatusWatcher(ctx, undefined, intervalMs)));
  return watcher;
}

export class StatusWatcher {
  private readonly listeners = new Set<StatusListener>();
  private last: ReaderStatus | undefined;
  private lastKey = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inflight: AbortController | undefined;
  private failures = 0;
  private readonly onVisibility = () => this.visibilityChanged();

  constructor(
    private readonly ctx: LocalServiceContext,
    private readonly pin: Pin | undefined,
    private readonly intervalMs: number,
  ) {}

  watch(listener: StatusListener): () => void {
    this.listeners.add(listener);
    if (this.pin) {
      // Spec 9.3: pinned ids are used unchanged; nothing to poll.
      const pinned: ReaderStatus = { state: 'pinned', pinned: true, ...this.pin };
      queueMicrotask(() => this.listeners.has(listener) && listener(pinned));
    } else if (this.listeners.size === 1) {
      this.emit({ state: 'checking', pinned: false });
      this.start();
    } else if (this.last) {
      const current = this.last;
      queueMicrotask(() => this.listeners.has(listener) && listener(current));
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  private start(): void {
    document_()?.addEventListener('visibilitychange', this.onVisibility);
    this.lastKey = '';
    this.failures = 0;
    if (!isHidden()) void this.poll();
  }

  private stop(): void {
    document_()?.removeEventListener('visibilitychange', this.onVisibility);
    clearTimeout(this.timer);
    this.timer = undefined;
    this.inflight?.abort();
    this.inflight = undefined;
    this.last = undefined;
  }

  private visibilityChanged(): void {
    if (isHidden()) {
      clearTimeout(this.timer);
      this.timer = undefined;
    } else if (!this.timer && !this.inflight && this.listeners.size > 0) {
      void this.poll();
    }
  }

  private async poll(): Promise<void> {
    this.timer = undefined;
    const controller = new AbortController();
    this.inflight = controller;
    let next: ReaderStatus;
    try {
      const status = await fetchStatus(this.ctx, controller.signal);
      let deviceId: string | undefined;
      try {
        deviceId = pickTarget(status, this.ctx.localServiceUrl).deviceId;
      } catch {
        deviceId = undefined;
      }
      next = deviceId
        ? { state: 'ready', pinned: false, workstationId: status.workstationId, deviceId, devices: status.devices }
        : { state: 'no-device', pinned: false, workstationId: status.workstationId, devices: status.devices };
      this.failures = 0;
    } catch (error) {
      if (controller.signal.aborted) return; // stopped while waiting; nobody listens any more
      const unreachable = error instanceof BioIDError && error.code === 'local-service-unreachable';
      next = {
        state: unreachable ? 'unreachable' : 'error',
        pinned: false,
        message: messageOf(error),
      };
      this.failures += 1;
    } finally {
      if (this.inflight === controller) this.inflight = undefined;
    }
    if (this.listeners.size === 0) return;
    this.emit(next);
    if (!isHidden()) this.timer = setTimeout(() => void this.poll(), this.delay());
  }

  /** The normal interval, doubled for each failure in a row up to MAX_BACKOFF_MS. */
  private delay(): number {
    if (this.failures === 0) return this.intervalMs;
    return Math.min(this.intervalMs * 2 ** Math.min(this.failures, 16), Math.max(MAX_BACKOFF_MS, this.intervalMs));
  }

  private emit(status: ReaderStatus): void {
    const key = JSON.stringify([status.state, status.workstationId, status.deviceId, status.devices]);
    if (key === this.lastKey) return; // only changes are reported
    this.lastKey = key;
    this.last = status;
    // A throwing listener must not stop the polling for the others.
    for (const listener of [...this.listeners]) callListener(listener, status);
  }
}

const document_ = (): Document | undefined =>
  typeof document === 'object' && typeof document.addEventListener === 'function' ? document : undefined;

const isHidden = () => document_()?.visibilityState === 'hidden';
