/**
 * Reader status (spec 9.2, 9.3): polls the local service's /status while anyone listens, reports only
 * changes, backs off while the service is unreachable, pauses while the page is hidden, and never
 * polls when pinned. It needs no middleware and no token. One poller per browser, too: where Web Locks and
 * BroadcastChannel exist, the tabs of an origin elect one leader per local service that polls and posts
 * each status to the others (docs/core.md). Where the browser asks the user before a page
 * reaches the local service (Chromium's Local Network Access), it reads that permission first: while
 * 'prompt' it waits for a user gesture (connectLocalService), while 'denied' it asks nothing and says
 * the browser blocks it (docs/cms.md). One watcher per local service for the whole
 * page: every reader, `<bio-reader-status>` and operation element watching the same service shares its
 * polling.
 */
import { DEFAULT_READER_SERVICE_URL, SHARED_OPTIONS, httpUrlOr, readOptions, readPin, type Pin } from './config.js';
import {
  blockedError,
  fetchStatus,
  loopbackPermission,
  parseStatus,
  pickTarget,
  type DeviceInfo,
  type LocalServiceContext,
  type LocalStatus,
} from './discovery.js';
import { BioIDError, callListener, messageOf, configError } from './errors.js';
import type { FetchLike } from './http.js';

export type ReaderState =
  /** First /status request under way. */
  | 'checking'
  /** A connected device was found; workstationId and deviceId name it. */
  | 'ready'
  /** The service answered but no device is connected. */
  | 'no-device'
  /** The local service could not be reached (not running, or a CORS refusal). */
  | 'unreachable'
  /** The browser would ask the user first: nothing is asked until a user gesture (connectLocalService). */
  | 'prompt'
  /** The browser does not let this page reach the local service (its permission is denied); nothing is asked. */
  | 'blocked'
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
  /** For 'unreachable', 'blocked' and 'error': what went wrong and what to do. */
  message?: string;
}

/** A status the watcher heard from the local service (or its leading tab), which is never pinned. */
type PolledStatus = Omit<ReaderStatus, 'pinned'>;

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

/** What a status watch takes: the key list, the unknown-key check and each value's validation (the elements pass on the settings named here). */
export const WATCH_OPTIONS = { localServiceUrl: httpUrlOr(DEFAULT_READER_SERVICE_URL), ...SHARED_OPTIONS };

const watchers = new Map<string, StatusWatcher>();

/** Set once a user gesture (or an operation the page started) lets the watchers ask while the permission is 'prompt'. */
let connected = false;
const waiting = new Set<() => void>();

/**
 * Lets the status watchers reach the local service while the browser's permission is 'prompt'. Call it
 * from a user gesture (the elements do, on their clicks): the browser's question then follows the user's
 * action, not the page load (docs/cms.md).
 */
export function connectLocalService(): void {
  connected = true;
  for (const resume of [...waiting]) resume();
}

/**
 * Reports the reader status to `listener` (the current one at once, then each change) until the returned
 * function is called. Polls only while someone listens, the page is visible and no pin is set.
 */
export function watchReaderStatus(options: StatusWatchOptions, listener: StatusListener): () => void {
  if (typeof listener !== 'function') throw configError('watchReaderStatus(options, listener): listener must be a function.');
  const pin = readPin(options, 'watchReaderStatus');
  const o = readOptions(options, WATCH_OPTIONS, 'watchReaderStatus(options)', 'watchReaderStatus: ');
  // The options read are the local service's context too (localServiceUrl, fetchImpl, timeoutMs).
  return statusWatcher(o, pin, o.statusIntervalMs).watch(listener);
}

/** The page-wide watcher of one local service (a pin or a fetchImpl of its own gets a watcher of its own). */
export function statusWatcher(ctx: LocalServiceContext, pin: Pin | undefined, intervalMs: number): StatusWatcher {
  if (pin || ctx.fetchImpl) return new StatusWatcher(ctx, pin, intervalMs);
  const key = `${ctx.localServiceUrl} ${ctx.timeoutMs} ${intervalMs}`;
  let watcher = watchers.get(key);
  if (!watcher) watchers.set(key, (watcher = new StatusWatcher(ctx, undefined, intervalMs, true)));
  return watcher;
}

export class StatusWatcher {
  readonly #listeners = new Set<StatusListener>();
  #last: ReaderStatus | undefined;
  #lastKey = '';
  /** When a status was last heard, changed or not (Date.now()). */
  #heardAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inflight: AbortController | undefined;
  #failures = 0;
  /** The loopback permission; null where none applies, undefined until read. */
  #permission: PermissionStatus | null | undefined;
  /** Counts starts and stops: a permission read that outlived its start is dropped. */
  #session = 0;
  readonly #onVisibility = () => this.#visibilityChanged();
  /** Decides again what to do: on the permission's change, and on connectLocalService(). */
  readonly #resume = () => this.#proceed();
  /** This tab's part in the election of the tabs' poller: aborted when it leaves (which releases a lock it holds). */
  #election: AbortController | undefined;
  #channel: BroadcastChannel | undefined;
  #leading = false;
  /** Fires when the leader has been silent too long: a hung tab keeps its lock, so this tab takes it. */
  #hang: ReturnType<typeof setTimeout> | undefined;
  /** Takes the lock from a leader that has gone silent. */
  #claim: (() => void) | undefined;

  constructor(
    private readonly ctx: LocalServiceContext,
    private readonly pin: Pin | undefined,
    private readonly intervalMs: number,
    /** The page-wide watcher: it shares one poller with the other tabs where the browser allows it. */
    private readonly shared = false,
  ) {}

  watch(listener: StatusListener): () => void {
    this.#listeners.add(listener);
    // The current status at once, as the first listener's 'checking': an element that starts watching as
    // it renders shows it in that render, with no second one.
    if (this.pin) {
      // Spec 9.3: pinned ids are used unchanged; nothing to poll.
      callListener(listener, { state: 'pinned', pinned: true, ...this.pin });
    } else if (this.#listeners.size === 1) {
      this.#emit({ state: 'checking' });
      this.#start();
    } else if (this.#last) {
      callListener(listener, this.#last);
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  #start(): void {
    document_()?.addEventListener('visibilitychange', this.#onVisibility);
    this.#lastKey = '';
    this.#failures = 0;
    const session = ++this.#session;
    void loopbackPermission().then((permission) => {
      if (session !== this.#session) return;
      this.#permission = permission ?? null;
      permission?.addEventListener('change', this.#resume);
      this.#proceed();
    });
  }

  /** Polls unless the permission says not to: 'denied' blocks, 'prompt' waits for connectLocalService(). */
  #proceed(): void {
    if (this.#permission === undefined) return; // still reading it: start() goes on
    const state = this.#permission?.state;
    waiting.delete(this.#resume);
    if (state === 'denied' || (state === 'prompt' && !connected)) {
      this.#halt();
      if (state === 'prompt') {
        waiting.add(this.#resume);
        this.#emit({ state });
      } else {
        this.#emit({ state: 'blocked', message: blockedError(this.ctx.localServiceUrl).message });
      }
    } else if (!this.#timer && !this.#inflight && !isHidden()) {
      if (this.#last?.state === 'prompt' || this.#last?.state === 'blocked') this.#emit({ state: 'checking' });
      this.#join();
    }
  }

  /**
   * Polls, alone or as the tabs' leader. The tab that holds the lock of this local service polls and
   * posts each status (nothing else: no token) on the channel. Another tab polls as if alone until it
   * hears the leader, then stops, shows what the leader posts and waits in line: a leader that closes or
   * hides releases the lock, and the next tab polls at once. A tab never stops on the lock alone, so a
   * holder that is going away (or never posts) cannot leave it without a status.
   */
  #join(): void {
    if (this.#election) return; // following, or leading already
    void this.#poll();
    const locks = typeof navigator === 'object' ? navigator.locks : undefined;
    if (!this.shared || !locks || typeof BroadcastChannel !== 'function' || !document_()) return;
    const name = `bioid-status ${this.ctx.localServiceUrl}`;
    const election = (this.#election = new AbortController());
    const channel = (this.#channel = new BroadcastChannel(name));
    channel.onmessage = ({ data }: MessageEvent<unknown>) => {
      if (data === 'hello') {
        if (this.#leading && this.#last) this.#post(this.intervalMs);
      } else if (!this.#leading) {
        // Any script of the origin can post here: a status is taken only when it is, key for key, what this
        // tab would show, read as a /status answer is (or a failure: one of its two states, a message of at
        // most 10,000 characters), with finite times. Anything else changes nothing (docs/security.md, claim 29).
        try {
          const { status, next, at } = data as { status: ReaderStatus; next: number; at: number };
          const polled: PolledStatus =
            status.workstationId === undefined
              ? { state: status.state === 'unreachable' ? 'unreachable' : 'error', message: String(status.message).slice(0, 1e4) }
              : this.#heard(parseStatus(status, Error));
          if (
            JSON.stringify({ ...polled, pinned: false }) === JSON.stringify(status) &&
            Number.isFinite(next) &&
            next >= 0 &&
            Number.isFinite(at)
          ) {
            this.#stopPolling();
            this.#emit(polled, at);
            this.#awaitLeader(next);
          }
        } catch {
          // No object, or no status in it: ignored as well.
        }
      }
    };
    const lead = (lock: Lock | null) => {
      if (election.signal.aborted) return;
      if (!lock) {
        // Another tab leads: ask it for the status, and stand in line.
        channel.postMessage('hello');
        return void claim({ signal: election.signal });
      }
      this.#leading = true;
      clearTimeout(this.#hang);
      if (!this.#timer && !this.#inflight) void this.#poll();
      // Held until this tab leaves.
      return new Promise((resolve) => election.signal.addEventListener('abort', resolve));
    };
    const claim = (options: LockOptions): void =>
      void locks.request(name, options, lead).catch((error: unknown) => {
        // Refused by the browser itself (an opaque origin, or WebKit's 1,024-character bound on a long
        // local service URL): asking again would fail again at once, forever. This tab polls as if alone,
        // as it started to in join().
        if ((error as Error | null)?.name !== 'AbortError') return;
        // Stolen by a tab that found this one silent: follow it.
        this.#leading = false;
        void lead(null);
      });
    this.#claim = () => claim({ steal: true });
    claim({ ifAvailable: true });
  }

  /**
   * Tells the other tabs the last status, when it was heard (a tab that joins must not take an old one for
   * a fresh one) and, in `next`, when this leader polls again (ms).
   */
  #post(next: number): void {
    this.#channel?.postMessage({ status: this.#last, next, at: this.#heardAt });
  }

  /** `next`: the leader's word on its next poll, in ms (0 or more). */
  #awaitLeader(next: number): void {
    clearTimeout(this.#hang);
    // The leader's next poll, plus a request's longest wait and one interval of grace.
    this.#hang = setTimeout(() => this.#claim?.(), next + this.ctx.timeoutMs + this.intervalMs);
  }

  #leave(): void {
    clearTimeout(this.#hang);
    this.#election?.abort();
    this.#channel?.close();
    this.#election = this.#channel = this.#claim = undefined;
    this.#leading = false;
  }

  #halt(): void {
    this.#stopPolling();
    this.#leave();
  }

  #stopPolling(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#inflight?.abort();
    this.#inflight = undefined;
  }

  #stop(): void {
    document_()?.removeEventListener('visibilitychange', this.#onVisibility);
    this.#session += 1;
    this.#permission?.removeEventListener('change', this.#resume);
    this.#permission = undefined;
    waiting.delete(this.#resume);
    this.#halt();
    this.#last = undefined;
  }

  #visibilityChanged(): void {
    if (isHidden()) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#leave(); // a hidden tab neither polls nor leads: a visible one takes over
    } else if (this.#listeners.size > 0) {
      this.#proceed();
    }
  }

  async #poll(): Promise<void> {
    this.#timer = undefined;
    const controller = new AbortController();
    this.#inflight = controller;
    let next: PolledStatus;
    try {
      next = this.#heard(await fetchStatus(this.ctx, controller.signal));
      this.#failures = 0;
    } catch (error) {
      if (controller.signal.aborted) return; // stopped while waiting; nobody listens any more
      const unreachable = error instanceof BioIDError && error.code === 'local-service-unreachable';
      next = {
        state: unreachable ? 'unreachable' : 'error',
        message: messageOf(error),
      };
      this.#failures += 1;
    } finally {
      if (this.#inflight === controller) this.#inflight = undefined;
    }
    if (this.#listeners.size === 0) return;
    this.#emit(next);
    const delay = this.#delay();
    if (this.#leading) this.#post(delay);
    if (!isHidden()) this.#timer = setTimeout(() => void this.#poll(), delay);
  }

  /** What a /status answer says: ready with the device a dispatch would name, else no-device. */
  #heard(status: LocalStatus): PolledStatus {
    let deviceId: string | undefined;
    try {
      deviceId = pickTarget(status, this.ctx.localServiceUrl).deviceId;
    } catch {
      // No connected device with a usable id: deviceId stays undefined.
    }
    return {
      state: deviceId ? 'ready' : 'no-device',
      workstationId: status.workstationId,
      deviceId,
      devices: status.devices,
    };
  }

  /** The normal interval (no failure), doubled for each failure in a row up to MAX_BACKOFF_MS. */
  #delay(): number {
    return Math.min(this.intervalMs * 2 ** Math.min(this.#failures, 16), Math.max(MAX_BACKOFF_MS, this.intervalMs));
  }

  /**
   * The target of the last status, when it was ready and was heard within one and a half intervals (the
   * next poll was due by then): a reader dispatches to it without a /status request of its own (spec 9.2:
   * this watcher's polling is the discovery). Else undefined.
   */
  knownTarget(): Pin | undefined {
    const last = this.#last;
    if (last?.state === 'ready' && Date.now() - this.#heardAt <= this.intervalMs * 1.5)
      return { workstationId: last.workstationId!, deviceId: last.deviceId! };
  }

  /**
   * Reports a status of the local service (never pinned: a pin is not polled). `at`: when it was heard
   * (Date.now()), if the leading tab heard it before this one joined; else now.
   */
  #emit(polled: PolledStatus, at?: number): void {
    const status: ReaderStatus = { ...polled, pinned: false };
    this.#heardAt = at ?? Date.now();
    const key = JSON.stringify([status.state, status.workstationId, status.deviceId, status.devices]);
    if (key === this.#lastKey) return; // only changes are reported
    this.#lastKey = key;
    this.#last = status;
    // A throwing listener must not stop the polling for the others.
    for (const listener of [...this.#listeners]) callListener(listener, status);
  }
}

const document_ = (): Document | undefined =>
  typeof document === 'object' && typeof document.addEventListener === 'function' ? document : undefined;

const isHidden = () => document_()?.visibilityState === 'hidden';
