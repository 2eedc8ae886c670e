/**
 * An in-memory network for runtime-neutral tests (Node and Chromium): a `fetch` that routes by method
 * and path to handlers, records every call, and honours AbortSignal like the real one.
 */
export interface RecordedCall {
  method: string;
  url: string;
  path: string;
  headers: Headers;
  /** Parsed JSON body, or the form as an object, or undefined. */
  body: unknown;
  rawBody: string | undefined;
}

export type Handler = (call: RecordedCall, index: number) => Response | Promise<Response>;

/**
 * A Response whose body reads settle within microtasks, as in Node: Chromium reads even an in-memory
 * body in a task of its own, which fake timers (test/support/fake-clock.ts) cannot wait for. The SDK reads
 * `body` chunk by chunk (its size limit), so `body` is a stream made in script, whose reads settle in
 * microtasks in every engine; `text()` and `json()` serve other readers.
 */
function inMemory(response: Response, body: string): Response {
  const bytes = new TextEncoder().encode(body);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length) controller.enqueue(bytes);
      controller.close();
    },
  });
  let used = false;
  const read = () => {
    if (used) return Promise.reject(new TypeError('Body has already been consumed.'));
    used = true;
    return Promise.resolve(body);
  };
  Object.defineProperties(response, {
    body: { value: stream },
    text: { value: read },
    json: { value: () => read().then((t) => JSON.parse(t) as unknown) },
  });
  return response;
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) => {
  const raw = JSON.stringify(body);
  return inMemory(new Response(raw, { status, headers: { 'content-type': 'application/json', ...headers } }), raw);
};

export const text = (body: string, status = 200, contentType = 'text/plain') =>
  inMemory(new Response(body, { status, headers: { 'content-type': contentType } }), body);

/** A handler that never answers (until the caller aborts). */
export const hang: Handler = () => new Promise<Response>(() => {});

/** A handler that fails like a refused connection. */
export const refuse: Handler = () => Promise.reject(new TypeError('fetch failed'));

export function fakeNetwork() {
  const routes: { method: string; path: string; handler: Handler; hits: number }[] = [];
  const calls: RecordedCall[] = [];

  const fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input);
    const method = (init.method ?? 'GET').toUpperCase();
    const rawBody = typeof init.body === 'string' ? init.body : undefined;
    const headers = new Headers(init.headers);
    let body: unknown;
    if (rawBody !== undefined) {
      body = headers.get('content-type')?.includes('json') ? JSON.parse(rawBody) : Object.fromEntries(new URLSearchParams(rawBody));
    }
    const call: RecordedCall = { method, url: url.href, path: url.pathname, headers, body, rawBody };
    calls.push(call);
    const route = routes.find((r) => r.method === method && (r.path === url.pathname || r.path === url.href));
    if (!route) return text(`no route for ${method} ${url.pathname}`, 404);
    const index = route.hits++;
    const signal = init.signal;
    if (signal?.aborted) throw signal.reason ?? new DOMException('Aborted', 'AbortError');
    return new Promise<Response>((resolve, reject) => {
      const onAbort = () => reject(signal?.reason ?? new DOMException('Aborted', 'AbortError'));
      signal?.addEventListener('abort', onAbort, { once: true });
      Promise.resolve()
        .then(() => route.handler(call, index))
        .then(resolve, reject)
        .finally(() => signal?.removeEventListener('abort', onAbort));
    });
  };

  return {
    fetch,
    calls,
    /** Routes `METHOD path` (a pathname or a full URL) to a handler; a later route for the same call wins. */
    on(method: string, path: string, handler: Handler) {
      routes.unshift({ method: method.toUpperCase(), path, handler, hits: 0 });
      return this;
    },
    callsTo(path: string) {
      return calls.filter((c) => c.path === path || c.url === path);
    },
  };
}

/** A promise plus its resolve, for handlers that answer when the test says so. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
