/**
 * The one network path of the SDK. Every call (middleware, local service, IdP, broker) goes through
 * `send`: the platform fetch read lazily, the whole exchange (headers and body) bounded by `timeoutMs`,
 * every body by `MAX_BODY_BYTES`, the caller's AbortSignal honoured, and every failure mapped to a
 * `BioIDError` that names the URL.
 */
import { BioIDError, configError, scrubServerText, type BioIDErrorCode, type Secrets } from './errors.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface SendOptions {
  /** Platform fetch when absent, read at call time so polyfills and test harnesses installed later work. */
  fetchImpl?: FetchLike | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Who is being called, for messages: "the middleware", "the local hardware service", … */
  peer: string;
  /** The code of a wrong answer (a body over the limit, a redirect); default `bad-response`. */
  badAnswerCode?: BioIDErrorCode;
  /** Values sent (a token, the client secret) that no message about this call may show (docs/core.md, Errors). */
  secrets?: Secrets;
}

export interface SendRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json) or URLSearchParams (sent as a form). */
  body?: unknown;
  credentials?: RequestCredentials;
  /**
   * Redirects are never followed (a secret or token must not travel on to another address). By default a
   * redirect is a `bad-response` error naming the URL; `true` hands it to the caller as a reply instead
   * (the broker client reads a redirect as "signed out").
   */
  redirectIsReply?: boolean;
  /** Most bytes of body read; default `MAX_BODY_BYTES`. */
  maxBytes?: number;
}

/** A body larger than this is refused, not buffered: a hostile or broken server cannot fill memory. */
export const MAX_BODY_BYTES = 1 << 20;

export interface Reply {
  url: string;
  status: number;
  ok: boolean;
  headers: Headers;
  /** Parsed JSON when the body is JSON, otherwise undefined. */
  json: unknown;
  /** The raw body text. */
  text: string;
  /** True when the body is an HTML page (a login page, a proxy error page). */
  html: boolean;
  redirected: boolean;
  /** 'opaqueredirect' for a redirect not followed (request.redirect 'manual') in a browser. */
  type: ResponseType;
  /** The call's `secrets`, removed by `describeReply`. */
  secrets?: Secrets;
}

export async function send(request: SendRequest, options: SendOptions): Promise<Reply> {
  const { url } = request;
  const who = `${capitalize(options.peer)} at ${url}`;
  const fetchImpl: FetchLike | undefined = options.fetchImpl ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') {
    throw configError('No fetch implementation: this runtime has no global fetch. Pass fetchImpl in the configuration.');
  }
  if (options.signal?.aborted) throw abortedError(options.peer, url, options.signal.reason);

  const controller = new AbortController();
  let timedOut = false;
  let done = false;
  let cutOff!: () => void;
  // Rejects when the call is cut off (timeout or the caller's abort). Each wait below races it, so a
  // fetchImpl that ignores init.signal cannot hold the caller past timeoutMs (docs/core.md, timeouts).
  const stopped = new Promise<never>((_, reject) => {
    cutOff = () => {
      controller.abort();
      // No reason: the catch below names the error from timedOut or the caller's signal, never from this.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      reject();
    };
  });
  const within = <T>(step: Promise<T>) => Promise.race([step, stopped]);
  const timer = setTimeout(() => {
    timedOut = true;
    cutOff();
  }, options.timeoutMs);
  options.signal?.addEventListener('abort', cutOff, { once: true });

  try {
    // Promise.resolve: a fetch stand-in may answer a Response itself rather than a promise of one.
    const fetched = Promise.resolve(
      fetchImpl(url, {
        method: request.method ?? 'GET',
        ...encode(request),
        signal: controller.signal,
        credentials: request.credentials,
        redirect: 'manual',
        cache: 'no-store',
      }),
    );
    // An answer that arrives after the cut-off is dropped, its body cancelled.
    fetched.then((late) => {
      if (done) late.body?.cancel().catch(noop);
    }, noop);
    const response = await within(fetched);
    const refuse = (what: string) =>
      new BioIDError(options.badAnswerCode ?? 'bad-response', `${who} answered with ${what}`, {
        status: response.status || undefined,
        retryable: false,
      });
    const limit = request.maxBytes ?? MAX_BODY_BYTES;
    const text = await readBody(response, limit, within);
    if (text === undefined) {
      controller.abort(); // the rest is not transferred
      throw refuse(`a body over the ${limit >> 20} MiB limit.`);
    }
    const reply = toReply(url, response, text);
    reply.secrets = options.secrets;
    if (isRedirect(reply) && !request.redirectIsReply) {
      throw refuse(`a redirect${reply.status ? ` (HTTP ${reply.status})` : ''}, which is never followed; configure the final address.`);
    }
    return reply;
  } catch (error) {
    if (timedOut) {
      throw new BioIDError('timeout', `${who} did not answer within ${options.timeoutMs} ms.`, { cause: error });
    }
    if (options.signal?.aborted) throw abortedError(options.peer, url, options.signal.reason);
    if (error instanceof BioIDError) throw error;
    throw new BioIDError('network', `Could not reach ${options.peer} at ${url}${describeNetworkError(error, options.secrets)}.`, {
      cause: error,
    });
  } finally {
    done = true;
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', cutOff);
  }
}

/** The request's headers and body: URLSearchParams sent as a form, any other value as JSON. */
function encode(request: SendRequest): { headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = { ...request.headers };
  const { body } = request;
  if (body === undefined) return { headers };
  const form = body instanceof URLSearchParams;
  headers['Content-Type'] = form ? 'application/x-www-form-urlencoded' : 'application/json';
  return { headers, body: form ? body.toString() : JSON.stringify(body) };
}

/**
 * The body as text, or undefined once it passes `limit` bytes: read chunk by chunk, so an endless or huge
 * answer is never held whole. Content-Length may announce the excess before a byte is read; it may also
 * be absent or wrong (chunked, compressed), so the bytes are counted too.
 */
async function readBody(response: Response, limit: number, within: <T>(step: Promise<T>) => Promise<T>): Promise<string | undefined> {
  if (Number(response.headers.get('content-length')) > limit) return undefined;
  // A body drained through a reader ends in Chromium's network log (DevTools) as net::ERR_ABORTED about
  // half the time, a successful request shown as failed; once the response is cloned it ends as finished.
  // The copy is cancelled at once, so nothing is held twice (test/e2e/no-aborted-requests.node.test.ts).
  response.clone?.().body?.cancel().catch(noop);
  const reader = response.body?.getReader?.();
  // No body, or a fetch stand-in without web streams.
  if (!reader) return within(response.text());
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let size = 0, chunk; !(chunk = await within(reader.read())).done;) {
      if ((size += chunk.value.length) > limit) return undefined;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    // Over the limit or cut off: the rest is not read, whatever the fetch does with the signal.
    reader.cancel().catch(noop);
  }
  return text + decoder.decode();
}

const noop = () => {};

/** A redirect not followed: 'opaqueredirect' in a browser, the 3xx itself elsewhere, `redirected` if a fetch stand-in followed it anyway. */
export function isRedirect(reply: Reply): boolean {
  return reply.type === 'opaqueredirect' || (reply.status >= 300 && reply.status < 400) || (reply.redirected && reply.status < 500);
}

function toReply(url: string, response: Response, text: string): Reply {
  const contentType = response.headers.get('content-type') ?? '';
  const trimmed = text.trimStart();
  let json: unknown;
  if (/\bjson\b/i.test(contentType) || /^[[{]/.test(trimmed)) {
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON after all: json stays undefined.
    }
  }
  const html = /html/i.test(contentType) || /^<(!doctype|html|head|body)\b/i.test(trimmed);
  return {
    url,
    status: response.status,
    ok: response.ok,
    headers: response.headers,
    json,
    text,
    html,
    redirected: response.redirected,
    type: response.type,
  };
}

function abortedError(peer: string, url: string, reason: unknown): BioIDError {
  // Not retryable: 'aborted' never is by default.
  return new BioIDError('aborted', `The call to ${peer} at ${url} was aborted.`, { cause: reason });
}

function describeNetworkError(error: unknown, secrets?: Secrets): string {
  if (!(error instanceof Error)) return '';
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  const detail = code || error.message;
  return detail ? ` (${scrubServerText(detail, 120, secrets)})` : '';
}

const capitalize = (s: string) => s[0].toUpperCase() + s.slice(1);

/** What the server said, for an error message: its `error`/`message` fields, or its text, scrubbed (of the call's `secrets` too). */
export function describeReply(reply: Reply): string {
  const scrub = (text: string) => scrubServerText(text, 200, reply.secrets);
  if (reply.json && typeof reply.json === 'object') {
    const { error, message, error_description } = reply.json as Record<string, unknown>;
    const parts = [error, error_description, message].filter((p): p is string => typeof p === 'string' && p.length > 0);
    if (parts.length) return scrub(parts.join(': '));
  }
  if (reply.html) return 'an HTML page, not JSON (a login page or a proxy error?)';
  if (!reply.text.trim()) return 'an empty body';
  return scrub(reply.text);
}

/** What a body that is not the JSON object expected is, for an error message: an HTML page, an empty body, or other text. */
export const notJsonObject = (reply: Reply): string =>
  reply.html || !reply.text.trim() ? describeReply(reply) : 'a body that is not a JSON object';

/** Joins a base URL and a fixed path such as `orchestrator/verify` (no encoding: the path is ours). */
export function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
