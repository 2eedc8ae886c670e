/**
 * `bioid-broker serve`: the reference broker as a process beside a backend in any language. Configured by
 * environment (docs/broker.md's BIOID_* variables, plus BIOID_SESSION_CHECK_URL, BIOID_PORT, BIOID_HOST and
 * BIOID_TOKEN_EXCHANGE), gated by forward-auth (forward-auth.ts), with `/healthz`, a graceful stop on
 * SIGTERM and one JSON log line per event: listening, each refused request (its reason, status, method
 * and Origin), each failure. No line holds a cookie, a token or the secret.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BioIDError } from 'bioid-sdk';
import {
  DEFAULT_BROKER_TIMEOUT_MS,
  brokerOptionsFromEnv,
  createTokenBroker,
  forwardAuth,
  toNodeHandler,
  tokenStoreFromEnv,
  type BrokerRefusal,
  type EnvLike,
  type ForwardAuthGate,
} from 'bioid-sdk/broker';
import { connectTokenStore, type ConnectedStore } from './serve-store.js';
import { throttled } from './throttle.js';

/** The variables `serve` reads besides the broker's own (env.ts). */
export const SERVE_ENV = {
  sessionCheckUrl: 'BIOID_SESSION_CHECK_URL',
  port: 'BIOID_PORT',
  host: 'BIOID_HOST',
  tokenExchange: 'BIOID_TOKEN_EXCHANGE',
} as const;

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
export const HEALTH_PATH = '/healthz';
/** How long a stop waits for requests in flight before it closes their connections. */
const DRAIN_MS = 10_000;

export interface ServeOptions {
  env: EnvLike;
  /** Where the JSON lines go; default stdout. */
  write?: (line: string) => void;
  /** Loads the `redis` package when BIOID_TOKEN_STORE_URL is set; tests replace it. */
  loadRedis?: () => Promise<unknown>;
}

export interface RunningBroker {
  url: string;
  port: number;
  server: Server;
  /** Stops accepting, lets requests in flight finish (at most 10 s), then resolves. */
  close(): Promise<void>;
}

export async function serve({ env, write = (line) => process.stdout.write(`${line}\n`), loadRedis }: ServeOptions): Promise<RunningBroker> {
  const emit = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>) => {
    write(JSON.stringify({ time: new Date().toISOString(), level, ...fields }));
  };
  const read = (name: string) => (env[name]?.trim() ? env[name]!.trim() : undefined);
  const where = 'bioid-broker serve';

  const check = read(SERVE_ENV.sessionCheckUrl);
  if (!check) {
    throw new BioIDError('config', `${where}: environment variable ${SERVE_ENV.sessionCheckUrl} is not set: the URL of your backend's session check (GET with the user's Cookie; it answers 204, or 200 with a JSON object, when signed in).`);
  }
  // A query is allowed (`/wp-admin/admin-ajax.php?action=session_check`).
  const sessionCheckUrl = requireEndpointUrl(check, SERVE_ENV.sessionCheckUrl);
  const port = readPort(read(SERVE_ENV.port));
  const host = read(SERVE_ENV.host) ?? DEFAULT_HOST;
  const exchange = readSwitch(read(SERVE_ENV.tokenExchange), SERVE_ENV.tokenExchange);
  const logFailure = (message: string) => emit('error', { event: 'failure', message });
  // The gate needs the broker's validated timeout, and the broker needs the gate: the options come
  // first, with the gate reached through `gate` once it exists.
  let gate: ForwardAuthGate | undefined;
  // The shared token store (BIOID_TOKEN_STORE_URL/KEY): checked, then connected in the background.
  const storeSettings = tokenStoreFromEnv(env, where);
  let connected: ConnectedStore | undefined;
  if (storeSettings) connected = await connectTokenStore(storeSettings, (fields) => emit('warn', fields), loadRedis);
  // Store failures are served around (fail-open); the log says so at most once a minute.
  let lastStoreError = '';
  const storeErrorLine = throttled((suppressed) => emit('warn', { event: 'store-error', failure: lastStoreError, ...(suppressed ? { suppressed } : {}) }));
  let options: ReturnType<typeof brokerOptionsFromEnv>;
  let handler: ReturnType<typeof createTokenBroker>;
  try {
    options = brokerOptionsFromEnv(env, {
      ...(connected ? { store: connected.store } : {}),
      onEvent: (event) => {
        if (event.type !== 'store-error') return;
        lastStoreError = `${event.operation} ${event.kind}`;
        storeErrorLine();
      },
      authorize: (request, context) => gate!.authorize(request, context),
      ...(exchange ? { tokenExchange: { subjectToken: (request, context) => gate!.tokenExchange!.subjectToken(request, context) } } : {}),
      logger: (line) => logFailure(line.replace(/^bioid token broker: /, '')),
      onRefusal: (refusal) => write(refusalLine(refusal, { time: new Date().toISOString(), level: 'warn' })),
    });
    handler = createTokenBroker(options);
  } catch (error) {
    // A configuration error after connecting must not leave the client keeping the process alive.
    connected?.close();
    throw error;
  }
  gate = forwardAuth({ sessionCheckUrl, timeoutMs: options.timeoutMs ?? DEFAULT_BROKER_TIMEOUT_MS, exchange, log: logFailure });
  // The sidecar's gate reads the Node request, so its Request is built only if something reads it.
  const broker = toNodeHandler(handler, { lazyRequest: true });

  const server = createServer((req, res) => {
    if (pathOf(req) === HEALTH_PATH) health(req, res);
    else void broker(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      connected?.close();
      reject(error);
    });
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const check_ = new URL(sessionCheckUrl);
  emit('info', {
    event: 'listening',
    url,
    health: `${url}${HEALTH_PATH}`,
    mode: exchange ? 'token-exchange (RFC 8693)' : 'client_credentials',
    // Origin and path only: a query could carry something the operator did not mean to log.
    sessionCheck: `${check_.origin}${check_.pathname}`,
    allowedOrigins: options.allowedOrigins ?? [],
    ...(connected ? { store: connected.where } : {}),
  });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      emit('info', { event: 'stopping' });
      const force = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      force.unref();
      // A keep-alive connection whose request finishes after the stop began turns idle only then.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      idle.unref();
      server.close(() => {
        clearTimeout(force);
        clearInterval(idle);
        connected?.close();
        emit('info', { event: 'stopped' });
        resolve();
      });
      server.closeIdleConnections();
    }));
  return { url, port: address.port, server, close };
}

function health(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Cache-Control': 'no-store' }).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : '{"status":"ok"}');
}

const pathOf = (req: IncomingMessage) => {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};

/** An absolute http(s) URL without credentials (a query is allowed); the value is never echoed. */
function requireEndpointUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BioIDError('config', `bioid-broker serve: environment variable ${name} is not an absolute URL; give the full http(s) address.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BioIDError('config', `bioid-broker serve: environment variable ${name} must be an http or https URL, not ${url.protocol}.`);
  }
  if (url.username || url.password) throw new BioIDError('config', `bioid-broker serve: environment variable ${name} must not carry credentials in the URL.`);
  return url.href;
}

/** One refused request as a JSON line; the fix is said for the one reason an operator can fix. */
function refusalLine(refusal: BrokerRefusal, extra: Record<string, unknown>): string {
  const fix = refusal.reason === 'origin-not-allowed' ? { fix: 'add this exact origin to BIOID_ALLOWED_ORIGINS if its pages should get tokens' } : {};
  return JSON.stringify({ ...extra, event: 'refused', ...refusal, ...fix });
}

function readPort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new BioIDError('config', `bioid-broker serve: environment variable ${SERVE_ENV.port} must be a port number (0 to 65535; 0 picks a free one).`);
  }
  return port;
}

function readSwitch(value: string | undefined, name: string): boolean {
  if (value === undefined || /^(false|0|no)$/i.test(value)) return false;
  if (/^(true|1|yes)$/i.test(value)) return true;
  throw new BioIDError('config', `bioid-broker serve: environment variable ${name} must be true or false.`);
}
