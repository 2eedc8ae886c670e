/**
 * The kiosk service worker, as a script your server serves (`kioskServiceWorkerScript(options)`).
 *
 * What it does, and why:
 *  - install: precaches exactly the listed URLs (the element bundle, scripts, styles and an offline page)
 *    in a cache named after `version`, so a kiosk on a flaky network still starts. List only what holds
 *    no user data: Cache Storage outlives a session, so a signed-in page ("Signed in as …") must never be
 *    listed; the offline page (`shell`) is a page that is the same for everyone;
 *  - fetch: a GET for a precached URL is answered cache-first; a navigation is network-first and never
 *    stored, with the precached `shell` as the answer when the network fails; EVERY other request (the
 *    token broker, the middleware, the local hardware service, any API) is left to the network untouched:
 *    network-only, never stored. Tokens, API responses and signed-in pages therefore never reach a cache;
 *  - after a navigation that reached the network, precached URLs missing from the cache are fetched again,
 *    so a kiosk whose caches were cleared at sign-out (`clearKioskCaches()`) is offline-ready again after
 *    the next sign-in;
 *  - activate: deletes the caches of older versions;
 *  - an update waits until the page says `{ type: 'SKIP_WAITING' }` (workbox-window's
 *    `messageSkipWaiting()`), so the page can offer "a new version is available — reload".
 *
 * The worker is a self-contained function serialised into the script: no imports, no build step, and
 * it is type-checked here like any other code.
 */

export interface KioskWorkerOptions {
  /** Changes whenever a precached file changes (a content hash): a new value makes browsers update the worker. */
  version: string;
  /**
   * Same-origin absolute paths to precache: the bundle (`/bioid-elements.js`), CSS, scripts and the offline
   * page. Only what holds no user data: never a signed-in page.
   */
  precache: string[];
  /**
   * The offline page (one of `precache`, the same for everyone) served when a navigation fails. Without
   * it, navigations are left to the network.
   */
  shell?: string;
  /** Prefix of the cache names; default `bioid-kiosk`. */
  cacheName?: string;
}

/** Prefix of the kiosk worker's cache names unless `cacheName` says otherwise. */
export const DEFAULT_KIOSK_CACHE_NAME = 'bioid-kiosk';

/** The JavaScript source of the service worker for `options`. Serve it with `Content-Type: text/javascript`. */
export function kioskServiceWorkerScript(options: KioskWorkerOptions): string {
  if (!options || typeof options.version !== 'string' || options.version === '') {
    throw new TypeError('kioskServiceWorkerScript: version is required (a content hash of the precached files).');
  }
  if (!Array.isArray(options.precache) || options.precache.some((p) => typeof p !== 'string' || !p.startsWith('/'))) {
    throw new TypeError('kioskServiceWorkerScript: precache must be a list of same-origin absolute paths ("/bioid-elements.js").');
  }
  if (options.shell !== undefined && !options.precache.includes(options.shell)) {
    throw new TypeError(`kioskServiceWorkerScript: shell "${options.shell}" must also be listed in precache.`);
  }
  const config = {
    version: options.version,
    precache: options.precache,
    shell: options.shell ?? null,
    cacheName: options.cacheName ?? DEFAULT_KIOSK_CACHE_NAME,
  };
  // `__name`: some transpilers (esbuild keepNames, as tsx uses) wrap named functions in that helper; the
  // worker is serialised from source, so it gets a no-op stand-in.
  return `/* bioid-sdk kiosk service worker, version ${JSON.stringify(config.version)} */\nvar __name = function (target) { return target; };\n(${kioskWorker.toString()})(self, ${JSON.stringify(config)});\n`;
}

// Minimal shapes of the service-worker globals used below (the project's lib is DOM, not WebWorker).
interface WorkerEvent {
  waitUntil(promise: Promise<unknown>): void;
}
interface WorkerFetchEvent extends WorkerEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface WorkerMessageEvent {
  data: unknown;
}
interface WorkerScope {
  location: { origin: string };
  caches: CacheStorage;
  clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: WorkerEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: WorkerFetchEvent) => void): void;
  addEventListener(type: 'message', listener: (event: WorkerMessageEvent) => void): void;
}
interface WorkerConfig {
  version: string;
  precache: string[];
  shell: string | null;
  cacheName: string;
}

/** Runs inside the service worker. Must stay self-contained: it is serialised with `toString()`. */
function kioskWorker(scope: WorkerScope, config: WorkerConfig): void {
  const current = `${config.cacheName}-${config.version}`;
  const precached = new Set(config.precache);
  // cache: 'reload' bypasses the HTTP cache, so a new version never precaches stale files.
  const fresh = (path: string) => new Request(path, { cache: 'reload', credentials: 'same-origin' });
  const cached = (path: string) => scope.caches.open(current).then((cache) => cache.match(path));

  scope.addEventListener('install', (event) => {
    event.waitUntil(scope.caches.open(current).then((cache) => cache.addAll(config.precache.map(fresh))));
  });

  /** Fetches again the precached URLs missing from the cache (cleared at sign-out); failures wait for the next time. */
  const refill = () =>
    scope.caches
      .open(current)
      .then((cache) =>
        Promise.all(config.precache.map((path) => cache.match(path).then((hit) => (hit ? undefined : cache.add(fresh(path)))))),
      )
      .catch(() => undefined);

  scope.addEventListener('activate', (event) => {
    event.waitUntil(
      scope.caches
        .keys()
        .then((names) =>
          Promise.all(names.filter((n) => n.startsWith(`${config.cacheName}-`) && n !== current).map((n) => scope.caches.delete(n))),
        )
        .then(() => scope.clients.claim()),
    );
  });

  scope.addEventListener('message', (event) => {
    const data = event.data as { type?: unknown } | null;
    if (data && data.type === 'SKIP_WAITING') void scope.skipWaiting();
  });

  scope.addEventListener('fetch', (event) => {
    const request = event.request;
    if (request.method !== 'GET') return; // network-only
    const shell = config.shell;
    if (request.mode === 'navigate') {
      if (!shell) return;
      // Pages are network-first and never stored (a signed-in page holds user data); when the network
      // fails, the offline page answers, which is the same for everyone.
      const online = fetch(request);
      event.respondWith(online.catch(() => cached(shell).then((hit) => hit ?? Response.error())));
      event.waitUntil(online.then(refill, () => undefined));
      return;
    }
    const url = new URL(request.url);
    if (url.origin !== scope.location.origin || url.search !== '' || !precached.has(url.pathname)) {
      return; // broker, middleware, local service, APIs: network-only, never cached
    }
    event.respondWith(cached(url.pathname).then((hit) => hit ?? fetch(request)));
  });
}
