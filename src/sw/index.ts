/**
 * `bioid-sdk/sw`: the kiosk service worker and its registration (workbox-window).
 *
 * On the server, serve `kioskServiceWorkerScript({ version, precache, shell })` (see kiosk-worker.ts) at
 * a path such as `/kiosk/sw.js`. On the kiosk page:
 *
 * ```js
 * import { registerKioskServiceWorker } from 'bioid-sdk/sw';
 * registerKioskServiceWorker({ scriptUrl: '/kiosk/sw.js', scope: '/kiosk/' });
 * ```
 *
 * The worker precaches the element bundle and an offline page (never a signed-in page) and never caches
 * tokens or API responses. At sign-out, call `clearKioskCaches()` before leaving the page.
 * When a new version is deployed, a banner "A new version is available — reload" appears (or your own
 * `onUpdateAvailable` runs); reloading activates the new worker and reloads the page once.
 */
// workbox-window is loaded only when registering (a browser): a server importing this entry for
// kioskServiceWorkerScript must not load it (in Node it resolves to a CommonJS build).
import type { Workbox } from 'workbox-window';

import { DEFAULT_KIOSK_CACHE_NAME } from './kiosk-worker.js';

export { DEFAULT_KIOSK_CACHE_NAME, kioskServiceWorkerScript, type KioskWorkerOptions } from './kiosk-worker.js';

export interface UpdateAvailable {
  /** Activates the waiting worker, then reloads the page once it controls the page. */
  reload(): void;
}

export interface KioskServiceWorkerOptions {
  /** URL of the worker script served with `kioskServiceWorkerScript`. */
  scriptUrl: string;
  /** Registration scope; default the script's directory. */
  scope?: string;
  /** Called when a new version is waiting. Default: `showUpdateBanner(update)`. */
  onUpdateAvailable?: (update: UpdateAvailable) => void;
}

export interface KioskRegistration {
  workbox: Workbox;
  registration: ServiceWorkerRegistration | undefined;
  /** Checks the server for a new version of the worker now (kiosks also check on each navigation). */
  update(): Promise<void>;
}

/**
 * Registers the kiosk worker. Resolves to `undefined` where service workers are unavailable (an insecure
 * origin, a private window of some browsers): the kiosk then simply works online-only.
 */
export async function registerKioskServiceWorker(options: KioskServiceWorkerOptions): Promise<KioskRegistration | undefined> {
  if (!options || typeof options.scriptUrl !== 'string' || options.scriptUrl === '') {
    throw new TypeError('registerKioskServiceWorker: scriptUrl is required (the URL your server serves the kiosk worker at).');
  }
  if (typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return undefined;
  const { Workbox } = await import('workbox-window');
  const workbox = new Workbox(options.scriptUrl, options.scope ? { scope: options.scope } : undefined);
  const onUpdate = options.onUpdateAvailable ?? showUpdateBanner;
  workbox.addEventListener('waiting', () => {
    onUpdate({
      reload() {
        workbox.addEventListener('controlling', () => window.location.reload());
        workbox.messageSkipWaiting();
      },
    });
  });
  const registration = await workbox.register();
  return { workbox, registration, update: () => workbox.update() };
}

/**
 * Deletes the kiosk worker's caches (every version), for sign-out: Cache Storage outlives a session, so
 * whatever a kiosk cached is gone before the next person walks up. The worker fills them again after the
 * next page that reaches the network. `cacheName`: the worker's, if it set one. Nothing to do where the
 * page has no Cache Storage (an insecure origin).
 */
export async function clearKioskCaches(cacheName = DEFAULT_KIOSK_CACHE_NAME): Promise<void> {
  if (typeof caches === 'undefined') return;
  const names = await caches.keys();
  await Promise.all(names.filter((name) => name.startsWith(`${cacheName}-`)).map((name) => caches.delete(name)));
}

/** The default "a new version is available — reload" banner (`role="alert"`, a real button). */
export function showUpdateBanner(update: UpdateAvailable): HTMLElement {
  const existing = document.querySelector<HTMLElement>('[data-bioid-update-banner]');
  if (existing) return existing;
  const banner = document.createElement('div');
  banner.setAttribute('role', 'alert');
  banner.dataset.bioidUpdateBanner = '';
  banner.className = 'bioid-update-banner';
  const text = document.createElement('span');
  text.textContent = 'A new version is available — ';
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Reload';
  button.addEventListener('click', () => {
    button.disabled = true;
    update.reload();
  });
  banner.append(text, button);
  document.body.prepend(banner);
  return banner;
}
