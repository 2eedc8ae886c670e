/**
 * OpenTelemetry for `bioid-broker serve` through `@opentelemetry/api` only: a no-op until the operator
 * registers an OpenTelemetry SDK (docs/operations.md, "Traces"). Spans follow OpenTelemetry's stable
 * semantic conventions:
 *  - the identity provider's token endpoint is an HTTP client call: span `POST` (kind client) with `http.request.method`, `url.full` (without its query), `server.address`,
 *    `server.port`, `http.response.status_code` and `error.type`, and the histogram
 *    `http.client.request.duration` (seconds) with the same attributes but the URL;
 *  - each shared token store call is a database client span named after its Redis command (`GET`,
 *    `SET`, `DEL`, `EVAL`, `PTTL`), with `db.system.name` and `db.operation.name`.
 * No span or attribute carries a header, a body, a key or a value: no cookie, token or secret.
 */
import { SpanKind, SpanStatusCode, context, metrics, propagation, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { TokenStore } from 'bioid-sdk/broker';

const SCOPE = 'bioid-broker';
const tracer = () => trace.getTracer(SCOPE);

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** `fetch` with a client span and the duration histogram per call; `peer` names what is called. */
export function tracedFetch(fetchImpl: Fetch, peer: 'identity-provider'): Fetch {
  const histogram = metrics.getMeter(SCOPE).createHistogram('http.client.request.duration', {
    unit: 's',
    description: 'Duration of HTTP client requests.',
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] },
  });
  return async (input, init = {}) => {
    const url = new URL(input);
    const method = (init.method ?? 'GET').toUpperCase();
    const common: Attributes = {
      'http.request.method': method,
      'server.address': url.hostname,
      'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    };
    const span = tracer().startSpan(method, {
      kind: SpanKind.CLIENT,
      attributes: { ...common, 'url.full': `${url.origin}${url.pathname}`, 'bioid.broker.peer': peer },
    });
    // The trace context travels to the IdP (W3C traceparent), when a propagator is set.
    const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
    propagation.inject(trace.setSpan(context.active(), span), headers);
    const started = performance.now();
    const finish = (attributes: Attributes, failed: boolean) => {
      span.setAttributes(attributes);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      histogram.record((performance.now() - started) / 1000, { ...common, ...attributes });
    };
    try {
      const response = await fetchImpl(input, { ...init, headers });
      const failed = response.status >= 400;
      finish({ 'http.response.status_code': response.status, ...(failed ? { 'error.type': String(response.status) } : {}) }, failed);
      return response;
    } catch (error) {
      finish({ 'error.type': errorType(error) }, true);
      throw error;
    }
  };
}

/** What went wrong, as a low-cardinality word: `timeout` for an abort, else the error's name. */
function errorType(error: unknown): string {
  if (error instanceof Error) return error.name === 'AbortError' || error.name === 'TimeoutError' ? 'timeout' : error.name || '_OTHER';
  return '_OTHER';
}

/** Redis commands of `redisTokenStore`, by store method. */
const COMMANDS = { get: 'GET', set: 'SET', delete: 'DEL', setIfAbsent: 'SET', compareAndDelete: 'EVAL', remainingMs: 'PTTL' } as const;

/** The store with a database client span around each call; `where` gives `server.address`/`server.port`. */
export function tracedStore(store: TokenStore, where: { address?: string; port?: number }): TokenStore {
  const server: Attributes = {
    ...(where.address ? { 'server.address': where.address } : {}),
    ...(where.port ? { 'server.port': where.port } : {}),
  };
  const around = <T>(method: keyof typeof COMMANDS, call: () => Promise<T>): Promise<T> => {
    const command = COMMANDS[method];
    return tracer().startActiveSpan(
      command,
      {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': 'redis', 'db.operation.name': command, 'bioid.broker.store.method': method, ...server },
      },
      async (span: Span) => {
        try {
          return await call();
        } catch (error) {
          span.setAttribute('error.type', error instanceof Error ? error.name || '_OTHER' : '_OTHER');
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  };
  return {
    get: (key) => around('get', () => store.get(key)),
    set: (key, value, ttlMs) => around('set', () => store.set(key, value, ttlMs)),
    delete: (key) => around('delete', () => store.delete(key)),
    setIfAbsent: (key, value, ttlMs) => around('setIfAbsent', () => store.setIfAbsent(key, value, ttlMs)),
    compareAndDelete: (key, value) => around('compareAndDelete', () => store.compareAndDelete(key, value)),
    // Optional in a TokenStore: kept optional, so the broker sees the store as it is.
    ...(typeof store.remainingMs === 'function' && {
      remainingMs: (key: string) => around('remainingMs', () => store.remainingMs!(key)),
    }),
  };
}
