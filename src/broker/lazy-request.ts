/**
 * A web `Request` that is built only when someone reads it, the way `@hono/node-server` does it: the
 * object inherits from `Request.prototype` (so `instanceof Request` holds and every property and method is
 * there), and its first use builds the real `Request` and forwards to it. The sidecar's gate reads the
 * Node request directly, so on the cached path no `Request` is ever built.
 *
 * One limit, the same as Hono's without its global patch: `new Request(lazy)` is refused by the platform
 * (it checks an internal slot); `lazy.clone()` gives a real copy.
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

const prototype = Object.create(Request.prototype) as object;
// Every accessor and method of the platform's Request, forwarded: a property added by a later Node
// version is covered without a change here.
for (const key of Reflect.ownKeys(Request.prototype)) {
  if (key === 'constructor' || key === Symbol.toStringTag) continue;
  const descriptor = Object.getOwnPropertyDescriptor(Request.prototype, key)!;
  if (descriptor.get) {
    Object.defineProperty(prototype, key, {
      get(this: Lazy) {
        return (real(this) as unknown as Record<PropertyKey, unknown>)[key];
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

/** A `Request` whose real object `build` makes on first use (at most once). */
export function lazyRequest(build: () => Request): Request {
  const lazy = Object.create(prototype) as Lazy;
  lazy[BUILD] = build;
  return lazy as unknown as Request;
}
