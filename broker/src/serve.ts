/**
 * `bioid-broker serve`: the reference broker as a process beside a backend in any language. Configured by
 * environment (docs/broker.md's BIOID_* variables, plus those of SERVE_ENV; docs/operations.md lists them
 * all), gated by forward-auth (bioid-sdk/broker's `forwardAuth`), with `/healthz` and `/readyz`, a drain on
 * SIGTERM, Prometheus metrics on a listener of their own, one JSON log line per request and OpenTelemetry
 * spans. Data flows one way: the broker's events feed the metrics and the request lines. No line, metric
 * or span holds a cookie, a token or the secret.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DEFAULT_BROKER_TIMEOUT_MS,
  brokerOptionsFromEnv,
  createTokenBroker,
  forwardAuth,
  toNodeHandler,
  tokenStoreFromEnv,
  type BrokerContext,
  type BrokerEvent,
  type EnvLike,
  type ForwardAuthGate,
  type SessionCheckProbe,
} from 'bioid-sdk/broker';
import type { Logger } from 'pino';
import { createLog, logRequest, requestIdOf } from './logs.js';
import { brokerMetrics, listenMetrics, type MetricsListener } from './metrics.js';
import { SERVE_ENV, serveSettingsFromEnv } from './serve-env.js';
import { connectTokenStore, type ConnectedStore } from './serve-store.js';
import { throttled } from './throttle.js';
import { tracedFetch } from './tracing.js';

export { DEFAULT_HOST, DEFAULT_METRICS_HOST, DEFAULT_PORT, DEFAULT_SHUTDOWN_DELAY_MS, SERVE_ENV } from './serve-env.js';
export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
/** How long a stop waits for requests in flight before it closes their connections. */
const DRAIN_MS = 10_000;
/** How long a stop waits for the log lines already on their way (a stdout nobody reads holds it no longer). */
const STOP_LOG_WAIT_MS = 1_000;

export interface ServeOptions {
  env: EnvLike;
  /** Where the JSON lines go, one per call; default stdout. */
  write?: (line: string) => void;
  /** Loads the `redis` package when BIOID_TOKEN_STORE_URL is set; tests replace it. */
  loadRedis?: () => Promise<unknown>;
  /** A file descriptor for the JSON lines instead of stdout (the bench writes them to /dev/null). */
  logFd?: number;
  /** Replaces forward-auth, and with it the session check's probe (the bench measures the sidecar with a gate that answers at once). */
  gate?: Pick<ForwardAuthGate, 'authorize' | 'tokenExchange'>;
  /** How long `/readyz` waits for a store that does not answer (STORE_READY_WAIT_MS); tests shorten it. */
  storeReadyWaitMs?: number;
  /** How often the session check is probed again while it has not refused a made-up cookie (SESSION_PROBE_INTERVAL_MS); tests shorten it. */
  sessionProbeIntervalMs?: number;
}

/**
 * How long a new instance stays unready for a store that has not answered yet: it then shares the other
 * instances' tokens from its first request. A store that is down does not keep it out longer, or every
 * instance restarted during a store outage would stay out of the load balancer.
 */
export const STORE_READY_WAIT_MS = 10_000;

/**
 * How often the session check is asked again with a made-up cookie while it has not refused one (it
 * signed it in, or did not answer): so a fixed check makes `/readyz` 200 again without a restart, and one
 * that was down at start-up is judged once it answers.
 */
export const SESSION_PROBE_INTERVAL_MS = 5_000;

export interface RunningBroker {
  url: string;
  port: number;
  server: Server;
  /** `http://host:port/metrics` when BIOID_METRICS_PORT is set. */
  metricsUrl: string | undefined;
  /**
   * Drains and stops: /readyz answers 503 at once, requests are still served for `delayMs` (default 0),
   * then it stops accepting, lets requests in flight finish (at most 10 s), and resolves.
   */
  close(options?: { delayMs?: number }): Promise<void>;
  /** Cuts short the delay of a close under way (a second SIGTERM). */
  hurry(): void;
  /** The configured BIOID_SHUTDOWN_DELAY_MS. */
  shutdownDelayMs: number;
  /** Writes log lines still pending (before the process exits). */
  flush(): void;
}

export async function serve({
  env,
  write,
  loadRedis,
  logFd,
  gate: givenGate,
  storeReadyWaitMs = STORE_READY_WAIT_MS,
  sessionProbeIntervalMs = SESSION_PROBE_INTERVAL_MS,
}: ServeOptions): Promise<RunningBroker> {
  const where = 'bioid-broker serve';
  // The sidecar's own variables (serve-env.ts): checked before anything starts.
  const {
    sessionCheckUrl,
    port,
    host,
    tokenExchange: exchange,
    metricsPort,
    metricsHost,
    logLevel,
    shutdownDelayMs,
  } = serveSettingsFromEnv(env);
  const { log, flush, settle, writeLine } = createLog(logLevel, write, logFd);
  const logFailure = (message: string) => log.error({ event: 'failure', message });
  // The gate needs the broker's validated timeout, and the broker needs the gate: the options come
  // first, with the gate reached through `gate` once it exists.
  // eslint-disable-next-line prefer-const -- assigned once, below, from options that need the broker's
  let gate: Pick<ForwardAuthGate, 'authorize' | 'tokenExchange'> | undefined;
  // The shared token store (BIOID_TOKEN_STORE_URL/KEY): checked, then connected in the background.
  const storeSettings = tokenStoreFromEnv(env, where);
  let connected: ConnectedStore | undefined;
  if (storeSettings) connected = await connectTokenStore(storeSettings, (fields) => log.warn(fields), loadRedis);
  // Store failures are served around (fail-open); the log says so at most once a minute.
  let lastStoreError = '';
  const storeErrorLine = throttled((suppressed) =>
    log.warn({ event: 'store-error', failure: lastStoreError, ...(suppressed ? { suppressed } : {}) }),
  );
  const metrics = metricsPort === undefined ? undefined : brokerMetrics();
  const debug = log.isLevelEnabled('debug');
  // One way for data to flow: the handler's events feed the metrics and the log.
  const onEvent = (event: BrokerEvent, context?: BrokerContext) => {
    metrics?.record(event);
    if (event.type === 'request') {
      logRequest(log, event, context, writeLine);
    } else if (event.type === 'store-error') {
      lastStoreError = `${event.operation} ${event.kind}`;
      storeErrorLine();
      if (debug) log.debug({ event: 'store-error', operation: event.operation, kind: event.kind });
    } else if (debug && event.type === 'refused-token') {
      // The result only: the hint is the hash of a token, which no line holds either.
      log.debug({ event: 'refused-token', result: event.result });
    } else if (debug && event.type === 'exchange') {
      log.debug({
        event: 'exchange',
        grant: event.grant,
        result: event.result,
        ...(event.status === undefined ? {} : { status: event.status }),
        durationMs: Math.round(event.durationMs * 100) / 100,
      });
    }
  };
  let options: ReturnType<typeof brokerOptionsFromEnv>;
  let handler: ReturnType<typeof createTokenBroker>;
  try {
    options = brokerOptionsFromEnv(env, {
      ...(connected ? { store: connected.store } : {}),
      onEvent,
      fetchImpl: tracedFetch((input, init) => fetch(input, init), 'identity-provider'),
      authorize: (request, context) => gate!.authorize(request, context),
      ...(exchange ? { tokenExchange: { subjectToken: (request, context) => gate!.tokenExchange!.subjectToken(request, context) } } : {}),
      logger: (line) => logFailure(line.replace(/^bioid token broker: /, '')),
      // Each request's line says why it was refused (logs.ts); nothing more to write here.
      onRefusal: () => {},
    });
    handler = createTokenBroker(options);
  } catch (error) {
    // A configuration error after connecting must not leave the client keeping the process alive.
    connected?.close();
    throw error;
  }
  const forward = givenGate
    ? undefined
    : forwardAuth({
        sessionCheckUrl,
        timeoutMs: options.timeoutMs ?? DEFAULT_BROKER_TIMEOUT_MS,
        exchange,
        log: logFailure,
      });
  gate = givenGate ?? forward;
  // The sidecar's gate reads the Node request, so its Request is built only if something reads it. The
  // request id goes out with the answer's own headers (see responseHeaders).
  const broker = toNodeHandler(handler, { lazyRequest: true, responseHeaders: (req) => ({ 'X-Request-Id': requestIdOf(req) }) });

  let draining = false;
  /** The last probe's finding: the session check signed in a made-up cookie (it would sign in anyone). */
  let signsInAnyone = false;
  const startedAt = performance.now();
  const readiness = (): string | undefined => {
    if (draining) return 'stopping';
    if (signsInAnyone) return SIGNS_IN_ANYONE;
    // Unready until the store answered, for STORE_READY_WAIT_MS at most; for as long as it refuses this
    // instance's credentials, since that is this instance's configuration, which a rollout must not take live.
    const waiting = performance.now() - startedAt < storeReadyWaitMs;
    if (connected && !connected.answered() && (waiting || connected.refused())) return 'store-not-answered';
    return undefined;
  };
  const server = createServer((req, res) => {
    const path = pathOf(req);
    if (path === HEALTH_PATH) return probe(req, res, undefined);
    if (path === READY_PATH) return probe(req, res, readiness());
    void broker(req, res);
  });
  let metricsListener: MetricsListener | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    if (metrics) metricsListener = await listenMetrics(metrics.registry, metricsPort!, metricsHost);
  } catch (error) {
    server.close();
    connected?.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const check_ = new URL(sessionCheckUrl);
  // Origin and path only: a query could carry something the operator did not mean to log.
  const sessionCheck = `${check_.origin}${check_.pathname}`;
  log.info({
    event: 'listening',
    url,
    health: `${url}${HEALTH_PATH}`,
    ready: `${url}${READY_PATH}`,
    ...(metricsListener ? { metrics: metricsListener.url } : {}),
    mode: exchange ? 'token-exchange (RFC 8693)' : 'client_credentials',
    sessionCheck,
    allowedOrigins: options.allowedOrigins ?? [],
    ...(connected ? { store: connected.where } : {}),
  });
  // The session check asked with a made-up cookie, now and while it has not refused one (forward-auth
  // asks it too before trusting any "signed in", so no token is at stake here: this is for /readyz and the log).
  let probeTimer: ReturnType<typeof setTimeout> | undefined;
  let lastProbe = '';
  const probeSessionCheck = async () => {
    const probed = await forward!.probe();
    if (draining) return;
    signsInAnyone = probed.result === 'signed-in';
    // One line per finding, not one per retry.
    const finding = `${probed.result} ${probed.answer}`;
    if (finding !== lastProbe) {
      lastProbe = finding;
      logProbe(log, probed, sessionCheck, sessionProbeIntervalMs);
    }
    if (probed.result !== 'refused') {
      probeTimer = setTimeout(() => void probeSessionCheck(), sessionProbeIntervalMs);
      probeTimer.unref();
    }
  };
  if (forward) void probeSessionCheck();

  let closing: Promise<void> | undefined;
  let hurry = () => {};
  const close = ({ delayMs = 0 }: { delayMs?: number } = {}) =>
    (closing ??= (async () => {
      draining = true;
      clearTimeout(probeTimer);
      log.info({ event: 'stopping', ...(delayMs ? { delayMs } : {}) });
      if (delayMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          hurry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await new Promise<void>((resolve) => {
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
        metricsListener?.server.close();
        metricsListener?.server.closeAllConnections();
      });
      connected?.close();
      // The lines still on their way go out before "stopped", which is written at once (the process exits next).
      await settle(STOP_LOG_WAIT_MS);
      log.info({ event: 'stopped' });
      flush();
    })());
  return { url, port: address.port, server, metricsUrl: metricsListener?.url, close, hurry: () => hurry(), shutdownDelayMs, flush };
}

/** The `/readyz` reason while the session check signs in a made-up cookie. */
export const SIGNS_IN_ANYONE = 'session-check-signs-in-anyone';

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

/** `/healthz` (always 200 while the process serves) and `/readyz` (503 with the reason when not ready). */
function probe(req: IncomingMessage, res: ServerResponse, unready: string | undefined): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Cache-Control': 'no-store' }).end();
    return;
  }
  res.writeHead(unready ? 503 : 200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : unready ? JSON.stringify({ status: 'unready', reason: unready }) : '{"status":"ok"}');
}

const pathOf = (req: IncomingMessage) => {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};
