/**
 * `GET /metrics` of `bioid-broker serve` (docs/operations.md): Prometheus text from prom-client on a
 * listener of its own (BIOID_METRICS_PORT, BIOID_METRICS_HOST), fed by the broker's events only
 * (`createTokenBroker({ onEvent })`), plus prom-client's process metrics. Labels are the events' closed
 * sets of words (outcome, grant, result, operation): nothing a caller sends becomes a label, not even
 * the X-Refused-Token it sends (only what the broker made of it).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrokerEvent, ExchangeEvent, RefusedTokenResult, RequestOutcome, StoreOperation } from 'bioid-sdk/broker';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const OUTCOMES: RequestOutcome[] = [
  'token',
  'preflight',
  'origin-not-allowed',
  'method',
  'csrf',
  'no-session',
  'no-cookie',
  'no-subject-token',
  'exchange-failed',
  'internal',
];
const GRANTS: ExchangeEvent['grant'][] = ['client_credentials', 'token-exchange'];
const RESULTS: ExchangeEvent['result'][] = ['ok', 'refused', 'failed'];
const OPERATIONS: StoreOperation[] = ['get', 'set', 'delete', 'lock'];
const HINT_RESULTS: RefusedTokenResult[] = ['honoured', 'not-held', 'too-young', 'too-soon'];
/**
 * An IdP round trip: a few milliseconds on the same network, a few hundred across the internet, up to
 * the exchange timeout (BIOID_TIMEOUT_MS, default 10 s).
 */
export const EXCHANGE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface BrokerMetrics {
  registry: Registry;
  /** The broker's `onEvent` listener that counts. */
  record(event: BrokerEvent): void;
}

export function brokerMetrics(): BrokerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  /**
   * Requests answered since the last scrape, by outcome: counted here as plain numbers and added to the
   * counter when it is read, since prom-client's `inc` hashes and checks the labels each time (a few
   * percent of a cached token request of the sidecar, measured with --cpu-prof).
   */
  const unreported = new Map<RequestOutcome, number>(OUTCOMES.map((outcome) => [outcome, 0]));
  const requests = new Counter({
    name: 'bioid_broker_requests_total',
    help: 'Token requests answered, by outcome: token, preflight, a refusal reason, exchange-failed (502) or internal (500).',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      for (const [outcome, count] of unreported) {
        if (count === 0) continue;
        byOutcome.get(outcome)!.inc(count);
        unreported.set(outcome, 0);
      }
    },
  });
  const exchanges = new Counter({
    name: 'bioid_broker_idp_exchanges_total',
    help: 'Exchanges with the identity provider, by grant and result (ok, refused: the IdP answered 4xx, failed: 5xx, timeout or network).',
    labelNames: ['grant', 'result'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'bioid_broker_idp_exchange_duration_seconds',
    help: 'Duration of the exchanges with the identity provider, by grant and result.',
    labelNames: ['grant', 'result'] as const,
    buckets: EXCHANGE_BUCKETS,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'bioid_broker_store_errors_total',
    help: 'Shared token store operations that failed or timed out, or locks not waited for (the request was served without the store).',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const hints = new Counter({
    name: 'bioid_broker_refused_token_hints_total',
    help: 'Requests that named a refused token (X-Refused-Token), by result: honoured (replaced), or ignored: not-held, too-young, too-soon.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  // Every series exists from the start at 0, so a rate or a ratio has a value before the first event;
  // the children are looked up once, not per event.
  const byOutcome = new Map(OUTCOMES.map((outcome) => [outcome, requests.labels(outcome)]));
  const byExchange = new Map(
    GRANTS.flatMap((grant) =>
      RESULTS.map(
        (result) => [`${grant} ${result}`, { count: exchanges.labels(grant, result), time: duration.labels(grant, result) }] as const,
      ),
    ),
  );
  const byOperation = new Map(OPERATIONS.map((operation) => [operation, storeErrors.labels(operation)]));
  const byHint = new Map(HINT_RESULTS.map((result) => [result, hints.labels(result)]));
  for (const child of [...byOutcome.values(), ...byOperation.values(), ...byHint.values()]) child.inc(0);
  for (const { count } of byExchange.values()) count.inc(0);

  return {
    registry,
    record(event) {
      if (event.type === 'request') {
        const count = unreported.get(event.outcome);
        if (count !== undefined) unreported.set(event.outcome, count + 1);
      } else if (event.type === 'exchange') {
        const child = byExchange.get(`${event.grant} ${event.result}`);
        child?.count.inc();
        child?.time.observe(event.durationMs / 1000);
      } else if (event.type === 'store-error') {
        byOperation.get(event.operation)?.inc();
      } else if (event.type === 'refused-token') {
        byHint.get(event.result)?.inc();
      }
    },
  };
}

export interface MetricsListener {
  url: string;
  server: Server;
}

/** The metrics listener: `GET /metrics` (and HEAD), 404 for any other path. */
export async function listenMetrics(registry: Registry, port: number, host: string): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at /metrics.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return { server, url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics` };
}
