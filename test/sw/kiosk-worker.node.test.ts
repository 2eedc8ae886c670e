/**
 * The kiosk service worker script, run in a fake service-worker scope (node:vm): what it precaches,
 * which requests it answers from the cache, which it leaves to the network (tokens, APIs), and the
 * SKIP_WAITING message of workbox-window. The real browser run is in test/e2e/demo.node.test.ts.
 */
import { assert } from 'chai';
import { runInNewContext } from 'node:vm';
import { kioskServiceWorkerScript } from '../../src/sw/kiosk-worker.js';
import { clearKioskCaches } from '../../src/sw/index.js';

const ORIGIN = 'https://kiosk.example';

class FakeCache {
  readonly entries = new Map<string, Response>();
  async addAll(requests: Request[]) {
    for (const r of requests) await this.add(r);
  }
  async add(r: Request) {
    this.entries.set(new URL(r.url, ORIGIN).pathname, new Response(`cached ${new URL(r.url, ORIGIN).pathname}`));
  }
  async match(path: string) {
    return this.entries.get(path)?.clone();
  }
  async keys() {
    return [...this.entries.keys()].map((p) => new Request(`${ORIGIN}${p}`));
  }
}

function load(script: string, options: { offline?: boolean } = {}) {
  let offline = options.offline ?? false;
  const caches = new Map<string, FakeCache>([
    ['bioid-kiosk-old', new FakeCache()],
    ['someone-else', new FakeCache()],
  ]);
  const listeners = new Map<string, (event: unknown) => void>();
  const network: string[] = [];
  let skipped = 0;
  let claimed = 0;
  const scope = {
    location: { origin: ORIGIN },
    caches: {
      open: async (name: string) => {
        if (!caches.has(name)) caches.set(name, new FakeCache());
        return caches.get(name)!;
      },
      keys: async () => [...caches.keys()],
      delete: async (name: string) => caches.delete(name),
    },
    clients: { claim: async () => void (claimed += 1) },
    skipWaiting: async () => void (skipped += 1),
    addEventListener: (type: string, listener: (event: unknown) => void) => listeners.set(type, listener),
  };
  const fetchImpl = async (request: Request | string) => {
    network.push(typeof request === 'string' ? request : request.url);
    if (offline) throw new TypeError('Failed to fetch');
    return new Response(`from network ${new URL(typeof request === 'string' ? request : request.url, ORIGIN).pathname}`);
  };
  // Relative URLs in `new Request('/x')` need a base in Node; the worker's origin is that base.
  class ScopedRequest extends Request {
    constructor(input: string, init?: RequestInit) {
      super(new URL(input, ORIGIN), init);
    }
  }
  runInNewContext(script, { self: scope, fetch: fetchImpl, Request: ScopedRequest, Response, URL, Promise, Set });

  const dispatch = async (type: string, event: Record<string, unknown>) => {
    const waits: Array<Promise<unknown>> = [];
    let responded: Promise<Response> | undefined;
    listeners.get(type)!({
      ...event,
      waitUntil: (p: Promise<unknown>) => waits.push(p),
      respondWith: (r: Promise<Response>) => (responded = r),
    });
    await Promise.all(waits);
    return responded;
  };
  const request = (path: string, init: { method?: string; mode?: string } = {}) => {
    const url = path.startsWith('http') ? path : `${ORIGIN}${path}`;
    return { url, method: init.method ?? 'GET', mode: init.mode ?? 'cors' } as unknown as Request;
  };
  const setOffline = (value: boolean) => void (offline = value);
  return { caches, network, dispatch, request, setOffline, skipped: () => skipped, claimed: () => claimed };
}

const SCRIPT = kioskServiceWorkerScript({
  version: 'v2',
  precache: ['/kiosk/offline', '/bioid-elements.js', '/demo-assets/demo.css'],
  shell: '/kiosk/offline',
});
const cachedPaths = (sw: ReturnType<typeof load>) => [...sw.caches.get('bioid-kiosk-v2')!.entries.keys()];

describe('kiosk service worker', () => {
  it('install precaches exactly the listed files; activate deletes older kiosk caches only and claims', async () => {
    const sw = load(SCRIPT);
    await sw.dispatch('install', {});
    assert.deepStrictEqual(cachedPaths(sw), ['/kiosk/offline', '/bioid-elements.js', '/demo-assets/demo.css']);
    await sw.dispatch('activate', {});
    assert.deepStrictEqual([...sw.caches.keys()].sort(), ['bioid-kiosk-v2', 'someone-else']);
    assert.strictEqual(sw.claimed(), 1);
  });

  it('precached files come from the cache; /token, middleware, local service and POSTs are network-only and never cached', async () => {
    const sw = load(SCRIPT);
    await sw.dispatch('install', {});
    const bundle = await sw.dispatch('fetch', { request: sw.request('/bioid-elements.js') });
    assert.strictEqual(await bundle!.text(), 'cached /bioid-elements.js');
    for (const r of [
      sw.request('/token'),
      sw.request('/bioid-elements.js?v=2'),
      sw.request('http://127.0.0.1:18081/orchestrator/verify', { method: 'POST' }),
      sw.request('http://127.0.0.1:18065/status'),
      sw.request('/form', { method: 'POST' }),
    ]) {
      assert.strictEqual(await sw.dispatch('fetch', { request: r }), undefined, `${r.method} ${r.url} is left to the network`);
    }
    assert.deepStrictEqual([...sw.caches.get('bioid-kiosk-v2')!.entries.keys()].includes('/token'), false);
  });

  it('a navigation is network-first and never stored; when the network fails the precached offline page answers', async () => {
    const sw = load(SCRIPT);
    await sw.dispatch('install', {});
    sw.network.length = 0;
    const online = await sw.dispatch('fetch', { request: sw.request('/kiosk/', { mode: 'navigate' }) });
    assert.strictEqual(await online!.text(), 'from network /kiosk/');
    assert.deepStrictEqual(sw.network, [`${ORIGIN}/kiosk/`]);

    const offline = load(SCRIPT, { offline: true });
    await offline.dispatch('install', {});
    const fallback = await offline.dispatch('fetch', { request: offline.request('/kiosk/', { mode: 'navigate' }) });
    assert.strictEqual(await fallback!.text(), 'cached /kiosk/offline');
  });

  it('the signed-in page is never stored: visited online, it is answered offline by the offline page, not by a copy of itself', async () => {
    const sw = load(SCRIPT);
    await sw.dispatch('install', {});
    for (const path of ['/kiosk/', '/kiosk/?next=1', '/kiosk/offline']) {
      await (await sw.dispatch('fetch', { request: sw.request(path, { mode: 'navigate' }) }))!.text();
    }
    assert.deepStrictEqual(cachedPaths(sw), ['/kiosk/offline', '/bioid-elements.js', '/demo-assets/demo.css']);
    sw.setOffline(true);
    const page = await sw.dispatch('fetch', { request: sw.request('/kiosk/', { mode: 'navigate' }) });
    assert.strictEqual(await page!.text(), 'cached /kiosk/offline');
  });

  it('caches cleared at sign-out are filled again after the next navigation that reaches the network', async () => {
    const sw = load(SCRIPT);
    await sw.dispatch('install', {});
    sw.caches.get('bioid-kiosk-v2')!.entries.clear(); // clearKioskCaches() at sign-out
    sw.setOffline(true);
    const offline = await sw.dispatch('fetch', { request: sw.request('/kiosk/', { mode: 'navigate' }) });
    assert.strictEqual(offline!.type, 'error', 'nothing cached, nothing shown');
    assert.deepStrictEqual(cachedPaths(sw), [], 'an offline navigation fills nothing');
    sw.setOffline(false);
    await sw.dispatch('fetch', { request: sw.request('/kiosk/', { mode: 'navigate' }) });
    assert.deepStrictEqual(cachedPaths(sw).sort(), ['/bioid-elements.js', '/demo-assets/demo.css', '/kiosk/offline']);
  });

  it('without a shell, navigations are left to the network', async () => {
    const sw = load(kioskServiceWorkerScript({ version: 'v2', precache: ['/bioid-elements.js'] }));
    await sw.dispatch('install', {});
    assert.strictEqual(await sw.dispatch('fetch', { request: sw.request('/kiosk/', { mode: 'navigate' }) }), undefined);
  });

  it('waits for SKIP_WAITING from the page (workbox-window messageSkipWaiting) before taking over', async () => {
    const sw = load(SCRIPT);
    await sw.dispatch('install', {});
    assert.strictEqual(sw.skipped(), 0);
    await sw.dispatch('message', { data: { type: 'other' } });
    assert.strictEqual(sw.skipped(), 0);
    await sw.dispatch('message', { data: { type: 'SKIP_WAITING' } });
    assert.strictEqual(sw.skipped(), 1);
  });

  it('a new version is a different script (browsers update byte-changed workers)', () => {
    const other = kioskServiceWorkerScript({ version: 'v3', precache: ['/kiosk/'], shell: '/kiosk/' });
    assert.notStrictEqual(other, SCRIPT);
  });

  it('rejects bad options with a message naming the field', () => {
    assert.throws(() => kioskServiceWorkerScript({ version: '', precache: [] }), /version is required/);
    assert.throws(() => kioskServiceWorkerScript({ version: 'x', precache: ['https://cdn.example/x.js'] }), /same-origin absolute paths/);
    assert.throws(() => kioskServiceWorkerScript({ version: 'x', precache: ['/a'], shell: '/b' }), /shell "\/b" must also be listed/);
  });
});

describe('clearKioskCaches (sign-out)', () => {
  it('deletes every version of the kiosk caches and nothing else', async () => {
    const names = new Set(['bioid-kiosk-v1', 'bioid-kiosk-v2', 'app-cache', 'my-kiosk-v1']);
    const g = globalThis as { caches?: unknown };
    g.caches = { keys: async () => [...names], delete: async (name: string) => names.delete(name) };
    try {
      await clearKioskCaches();
      assert.deepStrictEqual([...names], ['app-cache', 'my-kiosk-v1']);
      await clearKioskCaches('my-kiosk');
      assert.deepStrictEqual([...names], ['app-cache']);
    } finally {
      delete g.caches;
    }
    await clearKioskCaches(); // no Cache Storage (an insecure origin): nothing to do
  });
});

describe('bioid-sdk/sw on a server', () => {
  it('the built entry imports in Node (workbox-window is loaded only to register) and serves the worker script', async () => {
    const entry = new URL('../../dist/sw/index.js', import.meta.url).href;
    const sw = (await import(entry)) as typeof import('../../src/sw/index.js');
    const script = sw.kioskServiceWorkerScript({ version: 'v1', precache: ['/bioid-elements.js', '/kiosk/'], shell: '/kiosk/' });
    assert.match(script, /bioid-sdk kiosk service worker, version "v1"/);
    // No navigator.serviceWorker here: registration declines quietly instead of loading workbox-window.
    assert.strictEqual(await sw.registerKioskServiceWorker({ scriptUrl: '/kiosk/sw.js' }), undefined);
  });
});
