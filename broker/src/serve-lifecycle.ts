/**
 * The life of a running `bioid-broker serve` after it listens: readiness (`/readyz`: the store answered,
 * the session check refuses a made-up cookie, not stopping), the session check's probe, and the stop:
 * an optional delay with `/readyz` at 503, then a drain of the requests in flight, then close.
 */
import type { Server } from 'node:http';
import type { ForwardAuthGate, SessionCheckProbe } from 'bioid-sdk/broker';
import type { Logger } from 'pino';
import type { MetricsListener } from './metrics.js';
import { SERVE_ENV } from './serve-env.js';
import type { ConnectedStore } from './serve-store.js';

/** How long a stop waits for requests in flight before it closes their connections. */
const DRAIN_MS = 10_000;
/** How long a stop waits for the log lines already on their way (a stdout nobody reads holds it no longer). */
const STOP_LOG_WAIT_MS = 1_000;

/** The `/readyz` reason while the session check signs in a made-up cookie. */
export const SIGNS_IN_ANYONE = 'session-check-signs-in-anyone';

export interface LifecycleParts {
  server: Server;
  log: Logger;
  connected: ConnectedStore | undefined;
  /** How long `/readyz` waits for a store that has not answered yet. */
  storeReadyWaitMs: number;
  /** Waits (at most `ms`) for the log lines on their way; flush writes what is pending. */
  settle: (ms: number) => Promise<void>;
  flush: () => void;
}

export class Lifecycle {
  /** The metrics listener, once it listens: closed with the server. */
  metricsListener: MetricsListener | undefined;
  private draining = false;
  /** The last probe's finding: the session check signed in a made-up cookie (it would sign in anyone). */
  private signsInAnyone = false;
  private readonly startedAt = performance.now();
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  private lastProbe = '';
  private closing: Promise<void> | undefined;
  private cutDelay = () => {};

  constructor(private readonly parts: LifecycleParts) {}

  /** Why `/readyz` answers 503, or undefined when ready. */
  readiness(): string | undefined {
    if (this.draining) return 'stopping';
    if (this.signsInAnyone) return SIGNS_IN_ANYONE;
    // Unready until the store answered, for storeReadyWaitMs at most; for as long as it refuses this
    // instance's credentials, since that is this instance's configuration, which a rollout must not take live.
    const { connected, storeReadyWaitMs } = this.parts;
    const waiting = performance.now() - this.startedAt < storeReadyWaitMs;
    if (connected && !connected.answered() && (waiting || connected.refused())) return 'store-not-answered';
    return undefined;
  }

  /**
   * The session check asked with a made-up cookie, now and while it has not refused one (forward-auth asks
   * it too before trusting any "signed in", so no token is at stake here: this is for /readyz and the log).
   */
  async probeSessionCheck(forward: Pick<ForwardAuthGate, 'probe'>, sessionCheck: string, intervalMs: number): Promise<void> {
    const probed = await forward.probe();
    if (this.draining) return;
    this.signsInAnyone = probed.result === 'signed-in';
    // One line per finding, not one per retry.
    const finding = `${probed.result} ${probed.answer}`;
    if (finding !== this.lastProbe) {
      this.lastProbe = finding;
      logProbe(this.parts.log, probed, sessionCheck, intervalMs);
    }
    if (probed.result !== 'refused') {
      this.probeTimer = setTimeout(() => void this.probeSessionCheck(forward, sessionCheck, intervalMs), intervalMs);
      this.probeTimer.unref();
    }
  }

  /** Cuts short the delay of a close under way (a second SIGTERM). */
  hurry(): void {
    this.cutDelay();
  }

  /**
   * Drains and stops: /readyz answers 503 at once, requests are still served for `delayMs`, then it stops
   * accepting, lets requests in flight finish (at most DRAIN_MS), and resolves. Once, however often called.
   */
  close({ delayMs = 0 }: { delayMs?: number } = {}): Promise<void> {
    return (this.closing ??= this.stop(delayMs));
  }

  private async stop(delayMs: number): Promise<void> {
    const { log, connected, settle, flush } = this.parts;
    this.draining = true;
    clearTimeout(this.probeTimer);
    log.info({ event: 'stopping', ...(delayMs ? { delayMs } : {}) });
    if (delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        this.cutDelay = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    await this.drain();
    connected?.close();
    // The lines still on their way go out before "stopped", which is written at once (the process exits next).
    await settle(STOP_LOG_WAIT_MS);
    log.info({ event: 'stopped' });
    flush();
  }

  /** Stops accepting and waits for the requests in flight, closing what is left after DRAIN_MS. */
  private drain(): Promise<void> {
    const { server } = this.parts;
    return new Promise<void>((resolve) => {
      const force = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      force.unref();
      // A keep-alive connection whose request finishes after the stop began turns idle only then.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      idle.unref();
      server.close(() => {
        clearTimeout(force);
        clearInterval(idle);
        resolve();
      });
      server.closeIdleConnections();
      this.metricsListener?.server.close();
      this.metricsListener?.server.closeAllConnections();
    });
  }
}

/**
 * The probe's line: info when the check refused the made-up cookie as docs/backends.md says; warn with a
 * fix when it refused it with another answer (it will refuse signed-in users too) or did not answer;
 * error with a fix when it signed it in. The answer is in words (status, content type): no cookie, no body.
 */
function logProbe(log: Logger, probed: SessionCheckProbe, sessionCheck: string, intervalMs: number): void {
  const line = { event: 'session-check-probe', result: probed.result, answer: probed.answer, sessionCheck };
  const variable = SERVE_ENV.sessionCheckUrl;
  if (probed.result === 'signed-in') {
    log.error({
      ...line,
      fix: `${variable} signed in a request with a made-up cookie, so it would sign in anyone: every token request is answered 500 and /readyz 503 (${SIGNS_IN_ANYONE}) until it answers a request without a session with 401 (or 200 {"signed_in": false}). A "who am I" endpoint that answers 200 to signed-out users is not a session check: see docs/backends.md in bioid-sdk.`,
    });
  } else if (probed.result === 'no-answer') {
    log.warn({ ...line, fix: `no token is served until ${variable} answers; it is asked again every ${intervalMs / 1000} s.` });
  } else if (!probed.documented) {
    log.warn({
      ...line,
      fix: `${variable} answered a request without a session with ${probed.answer}: not signed in, but not an answer docs/backends.md names, so it will likely refuse signed-in users too. It must answer 204 or 200 {"signed_in": true} when signed in, 401 otherwise.`,
    });
  } else {
    log.info(line);
  }
}
