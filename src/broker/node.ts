/**
 * Adapter from Node's `http` request/response pair (Express, Connect, Fastify's raw `req`/`res`, plain
 * `node:http`) to the web-standard broker handler. Typed against `node:http` only: Express stays a
 * choice of the integrator, not a dependency of this package.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createTokenBroker, type TokenBrokerHandler } from './handler.js';
import type { TokenBrokerOptions } from './options.js';

const FORBIDDEN_METHODS = /^(CONNECT|TRACE|TRACK)$/i;

/** `(req, res, next?)`, as Express and Connect call a middleware. */
export type NodeTokenBrokerHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => Promise<void>;

/**
 * Wraps a broker handler for Node servers. The handler's `authorize` and `subjectToken` receive
 * `{ req, res }` as their second argument, so they can read `req.session` or `req.user`.
 */
export function toNodeHandler(handler: TokenBrokerHandler): NodeTokenBrokerHandler {
  return async function nodeTokenBroker(req, res, next) {
    try {
      if (FORBIDDEN_METHODS.test(req.method ?? '')) {
        // The fetch Request cannot even represent these; answer as the handler would for any non-GET.
        res.writeHead(405, { Allow: 'GET, OPTIONS', 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(JSON.stringify({ error: 'Use GET to obtain a token.' }));
        return;
      }
      const response = await handler(toWebRequest(req), { req, res });
      await writeWebResponse(response, res);
    } catch (error) {
      // The handler answers every failure itself; this is a broken socket or a bug in the host.
      if (next) {
        next(error);
      } else if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(JSON.stringify({ error: 'The token broker failed. Try again later.' }));
      } else {
        res.destroy();
      }
    }
  };
}

/** `createTokenBroker(options)` for Node servers: `app.all('/bioid/token', expressTokenBroker(options))`. */
export function expressTokenBroker(options: TokenBrokerOptions): NodeTokenBrokerHandler {
  return toNodeHandler(createTokenBroker(options));
}

function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true;
  // Express rewrites req.url under a mounted router; originalUrl is what the browser asked for.
  const path = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const host = safeHost(req.headers.host);
  // The broker reads no request body (GET only), so none is forwarded; other methods get 405.
  return new Request(`${secure ? 'https' : 'http'}://${host}${path.startsWith('/') ? path : `/${path}`}`, {
    method: req.method ?? 'GET',
    headers,
  });
}

/** The Host header only builds the Request URL; a malformed one must not make the URL unparsable. */
function safeHost(host: string | undefined): string {
  return host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? host : 'localhost';
}

async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  res.writeHead(response.status, headers);
  res.end(body);
}
