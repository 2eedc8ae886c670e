/**
 * A web `Request` that is built only when someone reads it, the way `@hono/node-server` does it: the
 * object inherits from `Request.prototype` (so `instanceof Request` holds and every property and method is
 * there), and its first use builds the real `Request` and forwards to it. A gate that reads the Node
 * request only (the sidecar's, or one that ignores its argument) then builds no `Request` on the cached
 * path, where building one (its URL, its headers and the AbortSignal every platform Request makes) was
 * the largest cost of a cached token request through toNodeHandler (measured with --cpu-prof).
 *
 * `new Request(lazy)`, `fetch(lazy)` and the platform's own methods called on it read the Request's
 * internal slots. Where the platform keeps them as symbol-keyed properties (Node 20 does), those are
 * forwarded to the real one too, so all of them work; where it keeps them private (`platformAcceptsLazy`
 * is false), `new Request(lazy)` is refused, the same limit as Hono's without its global patch, and
 * `lazy.clone()` gives a real copy.
 */
const BUILD = Symbol('build');
const REAL = Symbol('real');

interface Lazy {
  [BUILD]: () => Request;
  [REAL]?: Request;
}

function real(lazy: Lazy): Request {
  return (lazy[REAL] ??= lazy[BUILD]());
}

type Slots = Record<PropertyKey, unknown>;

let lazyPrototype: object | undefined;

/** Made on first use, not at import: a runtime that never calls toNodeHandler builds no Request for it. */
function prototypeOfLazy(): object {
  if (lazyPrototype) return lazyPrototype;
  const prototype = Object.create(Request.prototype) as object;
  // Every accessor and method of the platform's Request, forwarded: a property added by a later Node
  // version is covered without a change here.
  for (const key of Reflect.ownKeys(Request.prototype)) {
    if (key === 'constructor' || key === Symbol.toStringTag) continue;
    const descriptor = Object.getOwnPropertyDescriptor(Request.prototype, key)!;
    if (descriptor.get) {
      Object.defineProperty(prototype, key, {
        get(this: Lazy) {
          return (real(this) as unknown as Slots)[key];
        },
        configurable: true,
      });
    } else if (typeof descriptor.value === 'function') {
      Object.defineProperty(prototype, key, {
        value(this: Lazy, ...args: unknown[]) {
          const request = real(this) as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>;
          return request[key](...args);
        },
        configurable: true,
        writable: true,
      });
    }
  }
  // The internal slots a platform Request keeps as own symbol-keyed properties (undici's state, headers,
  // signal and dispatcher on Node 20; none where they are private fields), read and written on the
  // real one.
  for (const key of Object.getOwnPropertySymbols(new Request('http://localhost/'))) {
    Object.defineProperty(prototype, key, {
      get(this: Lazy) {
        return (real(this) as unknown as Slots)[key];
      },
      set(this: Lazy, value: unknown) {
        (real(this) as unknown as Slots)[key] = value;
      },
      configurable: true,
    });
  }
  return (lazyPrototype = prototype);
}

/** A `Request` whose real object `build` makes on first use (at most once). */
export function lazyRequest(build: () => Request): Request {
  const lazy = Object.create(prototypeOfLazy()) as Lazy;
  lazy[BUILD] = build;
  return lazy as unknown as Request;
}

let acceptsLazy: boolean | undefined;

/**
 * Whether this platform's `new Request(lazy)` accepts a lazy Request and copies the real one (method,
 * URL, headers): then a lazy Request keeps the whole contract of the real one, and toNodeHandler hands
 * one to `authorize` by default. Checked once, on this platform, rather than assumed from a version.
 */
export function platformAcceptsLazy(): boolean {
  if (acceptsLazy === undefined) {
    try {
      const lazy = lazyRequest(() => new Request('http://localhost/probe', { method: 'PUT', headers: { 'X-Probe': '1' } }));
      const copy = new Request(lazy);
      acceptsLazy = copy.method === 'PUT' && copy.url === 'http://localhost/probe' && copy.headers.get('x-probe') === '1';
    } catch {
      acceptsLazy = false;
    }
  }
  return acceptsLazy;
}
