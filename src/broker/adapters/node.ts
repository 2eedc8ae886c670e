/**
 * Adapter from Node's `http` request/response pair (Express, Connect, Fastify's raw `req`/`res`, plain
 * `node:http`) to the broker. Typed against `node:http` only: Express stays a choice of the integrator,
 * not a dependency of this package.
 *
 * A handler made by `createTokenBroker` is driven through its core: the decision reads `req` directly
 * and the answer is written to `res` as it is, so no web `Response` is built. `authorize` and
 * `subjectToken` still receive a standard `Request`, built on its first read (lazy-request.ts) where the
 * platform's `new Request()` accepts such a one, else when they are called: a gate that reads `req` only
 * (the `bioid-broker` sidecar's) or nothing at all builds none on the cached path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { coreOf, createTokenBroker, type BrokerCore, type BrokerInput, type TokenBrokerHandler } from '../handler.js';
import { lazyRequest, platformAcceptsLazy } from './lazy-request.js';
import type { TokenBrokerOptions } from '../config/options.js';

const FORBIDDEN_METHODS = /^(CONNECT|TRACE|TRACK)$/i;
const INTERNAL_ERROR = JSON.stringify({ error: 'The token broker failed. Try again later.' });
const JSON_NO_STORE = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

/** `(req, res, next?)`, as Express and Connect call a middleware. */
export type NodeTokenBrokerHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => Promise<void>;

export interface NodeHandlerOptions {
  /**
   * Whether the `Request` handed to `authorize` and `subjectToken` is built on its first read, so that a
   * gate reading the Node request (`context.req`) only builds none on the cached path. Default: lazy where
   * the platform's `new Request(it)` accepts a lazy one (Node 20 does), so it behaves as a real one
   * throughout; else built when they are called. `true` makes it lazy on every platform, where
   * `new Request(it)` may then be refused (`it.clone()` gives a real copy); `false` always builds it.
   */
  lazyRequest?: boolean;
  /**
   * Headers added to every answer, made from its request (the `bioid-broker` sidecar's `X-Request-Id`);
   * names the broker does not set itself, since they are sent beside the answer's own.
   * Given here rather than set on `res` before the handler runs: once a header is set that way, Node takes
   * the slow way with every header of the answer (setHeader for each, measured with --cpu-prof).
   */
  responseHeaders?: (req: IncomingMessage) => Record<string, string>;
}

type ResponseHeaders = NodeHandlerOptions['responseHeaders'];

/**
 * Wraps a broker handler for Node servers. The handler's `authorize` and `subjectToken` receive
 * `{ req, res }` as their second argument, so they can read `req.session` or `req.user`.
 */
export function toNodeHandler(handler: TokenBrokerHandler, options: NodeHandlerOptions = {}): NodeTokenBrokerHandler {
  const core = coreOf(handler);
  return core
    ? nodeBroker(core, (options.lazyRequest ?? platformAcceptsLazy()) ? 'on-first-read' : 'when-called', options.responseHeaders)
    : webHandlerOnNode(handler, options.responseHeaders);
}

/** `createTokenBroker(options)` for Node servers: `app.all('/bioid/token', expressTokenBroker(options))`. */
export function expressTokenBroker(options: TokenBrokerOptions): NodeTokenBrokerHandler {
  return toNodeHandler(createTokenBroker(options));
}

/**
 * A broker core on Node. `request`: `'when-called'` builds a real `Request` when `authorize` is called;
 * `'on-first-read'` hands it a lazy one (lazy-request.ts) that is built only if it reads it.
 */
export function nodeBroker(
  core: BrokerCore,
  request: 'when-called' | 'on-first-read',
  responseHeaders?: ResponseHeaders,
): NodeTokenBrokerHandler {
  const Input = request === 'when-called' ? NodeInput : LazyNodeInput;
  return async function nodeTokenBroker(req, res, next) {
    try {
      const answer = await core(new Input(req), { req, res });
      res.writeHead(answer.status, withHeaders(answer.headers, req, responseHeaders));
      res.end(answer.body ?? undefined);
    } catch (error) {
      failed(error, req, res, next, responseHeaders);
    }
  };
}

/** The broker's input read from `req`: methods on a prototype rather than closures made per request. */
class NodeInput implements BrokerInput {
  readonly method: string;
  constructor(protected readonly req: IncomingMessage) {
    this.method = req.method ?? 'GET';
  }
  /** A header as one string (Node joins repeated ones, Cookie with "; "), or null. */
  header(name: string): string | null {
    const value = this.req.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  request(): Request {
    return toWebRequest(this.req);
  }
}

class LazyNodeInput extends NodeInput {
  override request(): Request {
    return lazyRequest(() => toWebRequest(this.req));
  }
}

/** Any `(Request) => Promise<Response>` handler: a web Request in, the web Response copied out. */
function webHandlerOnNode(handler: TokenBrokerHandler, responseHeaders: ResponseHeaders): NodeTokenBrokerHandler {
  return async function nodeTokenBroker(req, res, next) {
    try {
      if (FORBIDDEN_METHODS.test(req.method ?? '')) {
        // The fetch Request cannot even represent these; answer as the broker does for any non-GET.
        res.writeHead(405, withHeaders({ Allow: 'GET, OPTIONS', ...JSON_NO_STORE }, req, responseHeaders));
        res.end(JSON.stringify({ error: 'Use GET to obtain a token.' }));
        return;
      }
      const response = await handler(toWebRequest(req), { req, res });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
      res.writeHead(response.status, withHeaders(headers, req, responseHeaders));
      res.end(body);
    } catch (error) {
      failed(error, req, res, next, responseHeaders);
    }
  };
}

/**
 * An answer's headers with the host's own (`responseHeaders`) added, as the flat name/value list
 * `writeHead` also takes: the broker's shared record is not changed, and a list costs writeHead less than
 * a new object spread from it (which was slower still than setHeader; measured on Node 20).
 */
function withHeaders(
  headers: Record<string, string>,
  req: IncomingMessage,
  responseHeaders: ResponseHeaders,
): Record<string, string> | string[] {
  if (!responseHeaders) return headers;
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name]);
  const added = responseHeaders(req);
  for (const name in added) list.push(name, added[name]);
  return list;
}

/** The broker answers every failure itself; this is a broken socket or a bug in the host. */
function failed(
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: ((error?: unknown) => void) | undefined,
  responseHeaders: ResponseHeaders,
): void {
  if (next) {
    next(error);
  } else if (!res.headersSent) {
    res.writeHead(500, withHeaders(JSON_NO_STORE, req, responseHeaders));
    res.end(INTERNAL_ERROR);
  } else {
    res.destroy();
  }
}

export function toWebRequest(req: IncomingMessage): Request {
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true;
  // Express rewrites req.url under a mounted router; originalUrl is what the browser asked for.
  const path = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const host = safeHost(req.headers.host);
  const scheme = secure ? 'https' : 'http';
  const rest = path.startsWith('/') ? path : `/${path}`;
  // The broker reads no request body (GET only), so none is forwarded; other methods get 405. A method
  // the fetch Request cannot represent (CONNECT, TRACE) never gets here: only GETs reach authorize.
  const init = { method: req.method ?? 'GET', headers: requestHeaders(req) };
  try {
    return new Request(`${scheme}://${host}${rest}`, init);
  } catch (error) {
    // A host of allowed characters the URL parser still refuses (port 99999, "[x]"): as for any other
    // malformed Host, not a failure of the gate that reads the Request.
    if (host === 'localhost') throw error;
    return new Request(`${scheme}://localhost${rest}`, init);
  }
}

/**
 * The request's headers for its web Request. Node has already joined repeated headers into one string
 * each, so its record is usually handed over as it is: the Request reads it in one pass, where a Headers
 * object would be filled and then copied (building the Request is most of toNodeHandler's cached path,
 * measured with --cpu-prof). An array value (Set-Cookie) or an HTTP/2 pseudo-header takes the long way.
 */
function requestHeaders(req: IncomingMessage): HeadersInit {
  const plain = req.headers;
  for (const name in plain) {
    if (typeof plain[name] !== 'string' || name.startsWith(':')) return webHeaders(plain);
  }
  return plain as Record<string, string>;
}

/** Every header but pseudo-headers, an array value as one header per item. */
function webHeaders(record: IncomingMessage['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined || name.startsWith(':')) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/** The Host header only builds the Request URL; a malformed one must not make the URL unparsable. */
function safeHost(host: string | undefined): string {
  return host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? host : 'localhost';
}
