import { assert } from 'chai';
import { TimedTokenCache, TokenCache, cacheLifetimeMs, MAX_CACHE_SECONDS } from '../../src/core/token-cache.js';

describe('TokenCache: the one cache behind every token holder (spec 5.6)', () => {
  it('spec 5.6: a token is cached for a time just under expires_in', () => {
    assert.strictEqual(cacheLifetimeMs(300), 270_000, '30 s leeway for a 5 minute token');
    assert.strictEqual(cacheLifetimeMs(3600), 3_570_000);
  });

  it('the leeway is clamped to the lifetime, so a short token cannot cause a refresh storm', () => {
    assert.strictEqual(cacheLifetimeMs(20), 18_000);
    assert.strictEqual(cacheLifetimeMs(1), 900);
    assert.ok(cacheLifetimeMs(0.5) > 0);
  });

  it('a huge expires_in is bounded', () => {
    assert.strictEqual(cacheLifetimeMs(10 ** 12), cacheLifetimeMs(MAX_CACHE_SECONDS));
  });

  it('hands out the cached token until it is stale, then fetches once', async () => {
    let now = 0;
    let fetched = 0;
    const cache = new TimedTokenCache(
      async () => ({ accessToken: `t${++fetched}`, expiresIn: 100 }),
      () => now,
    );
    assert.strictEqual(await cache.get(), 't1');
    now = 89_999;
    assert.strictEqual(await cache.get(), 't1');
    assert.strictEqual(cache.remainingSeconds(), 0);
    now = 90_000;
    assert.strictEqual(await cache.get(), 't2');
    assert.strictEqual(cache.remainingSeconds(), 90);
  });

  it('a rejection is never cached, and concurrent callers share the one failing flight', async () => {
    let attempts = 0;
    const cache = new TokenCache(async () => {
      attempts++;
      if (attempts === 1) throw new Error('down');
      return { accessToken: 'ok', expiresIn: 60 };
    });
    const results = await Promise.allSettled([cache.get(), cache.get(), cache.get()]);
    assert.deepStrictEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.strictEqual(attempts, 1);
    assert.strictEqual(await cache.get(), 'ok');
  });

  it('clear() drops the token; a flight under way is not stored afterwards', async () => {
    let release!: () => void;
    const cache = new TimedTokenCache(() => new Promise((resolve) => (release = () => resolve({ accessToken: 'late', expiresIn: 60 }))));
    const pending = cache.get();
    cache.clear();
    release();
    assert.strictEqual(await pending, 'late');
    assert.strictEqual(cache.remainingSeconds(), undefined);
  });
});
