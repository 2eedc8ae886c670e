/**
 * Spec 5.3 read strictly: a token the middleware refused is never sent again. After the retry also gets
 * 401, the next operation starts from a fresh token (docs/core.md, "Tokens, 401s and timeouts").
 */
import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { BioID } from '../../src/index.js';
import { json } from '../support/fake-network.js';
import { MW, readerOver, standardNetwork } from '../support/sdk-fixtures.js';
import { TokenCache } from '../../src/core/token-cache.js';

const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };
const SEARCH = `${MW}/orchestrator/search`;

/** A middleware that refuses the tokens in `refused` with 401 and serves the others. */
const refusing = (refused: string[]) =>
  standardNetwork().on('POST', SEARCH, (c) =>
    refused.includes(c.headers.get('authorization')!.slice(7))
      ? json({ error: 'invalid_token' }, 401)
      : json({ candidates: [], searchId: 's' }),
  );
const sent = (net: ReturnType<typeof standardNetwork>) => net.callsTo(SEARCH).map((c) => c.headers.get('authorization')!.slice(7));

describe('a refused token is never sent again (spec 5.3)', () => {
  it('spec 5.3: a token rejected twice is dropped; the next operation gets a new token (token-1 → token-2 → token-3)', async () => {
    const net = refusing(['token-1', 'token-2']);
    const { reader, tokensIssued } = readerOver(net, PIN);
    await rejectsWith(reader.search(), { code: 'unauthorized' });
    await reader.search();
    assert.deepStrictEqual(sent(net), ['token-1', 'token-2', 'token-3']);
    assert.strictEqual(tokensIssued(), 3);
  });

  it('spec 5.3: the same holds for a BioID with tokenProvider', async () => {
    const net = refusing(['tok-1', 'tok-2']);
    let issued = 0;
    const bio = new BioID({
      ...PIN,
      middlewareUrl: MW,
      fetchImpl: net.fetch,
      auth: { type: 'tokenProvider', getToken: async () => `tok-${++issued}` },
    });
    await rejectsWith(bio.reader.search(), { code: 'unauthorized' });
    await bio.reader.search();
    assert.deepStrictEqual(sent(net), ['tok-1', 'tok-2', 'tok-3']);
  });

  it('spec 5.3: the token that replaced a refused one is cached as usual', async () => {
    const net = refusing(['token-1', 'token-2']);
    const { reader, tokensIssued } = readerOver(net, PIN);
    await rejectsWith(reader.search(), { code: 'unauthorized' });
    await reader.search();
    await reader.search();
    assert.deepStrictEqual(sent(net), ['token-1', 'token-2', 'token-3', 'token-3']);
    assert.strictEqual(tokensIssued(), 3);
  });

  it('spec 5.3: dropping a refused token leaves a token that already replaced it in the cache', async () => {
    let issued = 0;
    const cache = new TokenCache(async () => ({ accessToken: `t-${++issued}` }));
    assert.strictEqual(await cache.get(), 't-1');
    assert.strictEqual(await cache.refresh('t-1'), 't-2');
    cache.drop('t-1');
    assert.strictEqual(await cache.get(), 't-2');
    cache.drop('t-2');
    assert.strictEqual(await cache.get(), 't-3');
  });
});
