/**
 * `bioid-broker serve`: the reference broker as a process beside a backend in any language. Configured by
 * environment (docs/broker.md's BIOID_* variables, plus those of SERVE_ENV; docs/operations.md lists them
 * all), gated by forward-auth (bioid-sdk/broker's `forwardAuth`), with `/healthz` and `/readyz`, a drain on
 * SIGTERM, Prometheus metrics on a listener of their own, one JSON log line per request and OpenTelemetry
 * spans. Data flows one way: the broker's events feed the metrics and the request lines. No line, metric
 * or span holds a cookie, a token or the secret. `serve` reads as its three parts: the settings
 * (`configure`), listening (`listen`), and the life after it (serve-lifecycle.ts: readiness, drain, close).
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
} from 'bioid-sdk/broker';
import type { Logger } from 'pino';
import { createLog, logRequest, requestIdOf } from './logs.js';
import { brokerMetrics, listenMetrics, type BrokerMetrics, type MetricsListener } from './metrics.js';
import { serveSettingsFromEnv, type ServeSettings } from './serve-env.js';
import { Lifecycle } from './serve-lifecycle.js';
import { connectTokenStore, type ConnectedStore } from './serve-store.js';
import { throttled } from './throttle.js';
import { tracedFetch } from './tracing.js';

export { DEFAULT_HOST, DEFAULT_METRICS_HOST, DEFAULT_PORT, DEFAULT_SHUTDOWN_DELAY_MS, SERVE_ENV } from './serve-env.js';
export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export { SIGNS_IN_ANYONE } from './serve-lifecycle.js';

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

export async function serve(options: ServeOptions): Promise<RunningBroker> {
  const setup = await configure(options);
  const { settings, log, connected, forward } = setup;
  // The sidecar's gate reads the Node request, so its Request is built only if something reads it. The
  // request id goes out with the answer's own headers (see responseHeaders).
  const broker = toNodeHandler(setup.handler, { lazyRequest: true, responseHeaders: (req) => ({ 'X-Request-Id': requestIdOf(req) }) });
  const server = createServer((req, res) => {
    const path = pathOf(req);
    if (path === HEALTH_PATH) return probe(req, res, undefined);
    if (path === READY_PATH) return probe(req, res, life.readiness());
    void broker(req, res);
  });
  const life = new Lifecycle({
    server,
    log,
    connected,
    storeReadyWaitMs: options.storeReadyWaitMs ?? STORE_READY_WAIT_MS,
    settle: setup.settle,
    flush: setup.flush,
  });
  life.metricsListener = await listen(server, settings, setup.metrics, connected);
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const check = new URL(settings.sessionCheckUrl);
  // Origin and path only: a query could carry something the operator did not mean to log.
  const sessionCheck = `${check.origin}${check.pathname}`;
  log.info({
    event: 'listening',
    url,
    health: `${url}${HEALTH_PATH}`,
    ready: `${url}${READY_PATH}`,
    ...(life.metricsListener ? { metrics: life.metricsListener.url } : {}),
    mode: settings.tokenExchange ? 'token-exchange (RFC 8693)' : 'client_credentials',
    sessionCheck,
    allowedOrigins: setup.options.allowedOrigins ?? [],
    ...(connected ? { store: connected.where } : {}),
  });
  if (forward) void life.probeSessionCheck(forward, sessionCheck, options.sessionProbeIntervalMs ?? SESSION_PROBE_INTERVAL_MS);
  return {
    url,
    port: address.port,
    server,
    metricsUrl: life.metricsListener?.url,
    close: (closeOptions) => life.close(closeOptions),
    hurry: () => life.hurry(),
    shutdownDelayMs: settings.shutdownDelayMs,
    flush: setup.flush,
  };
}

const WHERE = 'bioid-broker serve';

/**
 * The settings: the sidecar's variables (serve-env.ts) checked before anything starts, the log, the shared
 * store (checked, then connected in the background), the metrics, the broker made from the broker's
 * variables, and its gate (forward-auth, unless one is given).
 */
async function configure({ env, write, loadRedis, logFd, gate: givenGate }: ServeOptions) {
  const settings = serveSettingsFromEnv(env);
  const { log, flush, settle, writeLine } = createLog(settings.logLevel, write, logFd);
  const logFailure = (message: string) => log.error({ event: 'failure', message });
  const storeSettings = tokenStoreFromEnv(env, WHERE);
  const connected = storeSettings ? await connectTokenStore(storeSettings, (fields) => log.warn(fields), loadRedis) : undefined;
  const metrics = settings.metricsPort === undefined ? undefined : brokerMetrics();
  // The gate needs the broker's validated timeout, and the broker needs the gate: the options come
  // first, with the gate reached through `gate` once it exists.
  // eslint-disable-next-line prefer-const -- assigned once, below, from options that need the broker's
  let gate: Pick<ForwardAuthGate, 'authorize' | 'tokenExchange'> | undefined;
  let options: ReturnType<typeof brokerOptionsFromEnv>;
  let handler: ReturnType<typeof createTokenBroker>;
  try {
    options = brokerOptionsFromEnv(env, {
      ...(connected ? { store: connected.store } : {}),
      onEvent: eventSink(log, metrics, writeLine),
      fetchImpl: tracedFetch((input, init) => fetch(input, init), 'identity-provider'),
      authorize: (request, context) => gate!.authorize(request, context),
      ...(settings.tokenExchange
        ? { tokenExchange: { subjectToken: (request, context) => gate!.tokenExchange!.subjectToken(request, context) } }
        : {}),
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
  const { sessionCheckUrl, tokenExchange: exchange } = settings;
  const timeoutMs = options.timeoutMs ?? DEFAULT_BROKER_TIMEOUT_MS;
  const forward = givenGate ? undefined : forwardAuth({ sessionCheckUrl, timeoutMs, exchange, log: logFailure });
  gate = givenGate ?? forward;
  return { settings, log, flush, settle, connected, metrics, options, handler, forward };
}

/** One way for data to flow: the handler's events feed the metrics and the log. */
function eventSink(log: Logger, metrics: BrokerMetrics | undefined, writeLine: (line: string) => void) {
  // Store failures are served around (fail-open); the log says so at most once a minute.
  let lastStoreError = '';
  const storeErrorLine = throttled((suppressed) =>
    log.warn({ event: 'store-error', failure: lastStoreError, ...(suppressed ? { suppressed } : {}) }),
  );
  const debug = log.isLevelEnabled('debug');
  return (event: BrokerEvent, context?: BrokerContext) => {
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
}

/** Listening: the token endpoint, then the metrics listener if asked for; a failure closes what was opened. */
async function listen(
  server: Server,
  { port, host, metricsPort, metricsHost }: ServeSettings,
  metrics: BrokerMetrics | undefined,
  connected: ConnectedStore | undefined,
): Promise<MetricsListener | undefined> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    return metrics ? await listenMetrics(metrics.registry, metricsPort!, metricsHost) : undefined;
  } catch (error) {
    server.close();
    connected?.close();
    throw error;
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
