/**
 * `watchStatus` (spec 9.2, 9.3): polls the local service's /status while anyone listens, reports only
 * changes, backs off while the service is unreachable, pauses while the page is hidden, and never
 * polls a pinned reader.
 */
import { fetchStatus, pickTarget, type DeviceInfo, type LocalServiceContext } from './discovery.js';
import { BioIDError, messageOf } from './errors.js';
import type { Pin } from './config.js';

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

export class StatusWatcher {
  private readonly listeners = new Set<StatusListener>();
  private last: ReaderStatus | undefined;
  private lastKey = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inflight: AbortController | undefined;
  private failures = 0;
  private closed = false;
  private readonly onVisibility = () => this.visibilityChanged();

  constructor(
    private readonly ctx: LocalServiceContext,
    private readonly pin: Pin | undefined,
    private readonly intervalMs: number,
  ) {}

  watch(listener: StatusListener): () => void {
    if (this.closed) return () => {};
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

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.stop();
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
    if (this.listeners.size === 0 || this.closed) return;
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
    for (const listener of [...this.listeners]) {
      try {
        listener(status);
      } catch (error) {
        // A throwing listener must not stop the polling for the others.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}

const document_ = (): Document | undefined =>
  typeof document === 'object' && typeof document.addEventListener === 'function' ? document : undefined;

const isHidden = () => document_()?.visibilityState === 'hidden';
