/**
 * The RFC 8693 variant of the broker (spec 4.2 "Optional variant", 5.8): the end user's token from the
 * integrator's own IdP is exchanged for a middleware token that says which end user acted, cached per
 * end user. Against the real OpenID provider of simulator/src/idp.ts.
 */
import { assert } from 'chai';
import { installFakeDate } from '../support/fake-clock.js';
import { rejectsWith } from '../support/expect-error.js';
import { SignJWT, generateKeyPair } from 'jose';
import type { TokenBrokerOptions } from '../../src/broker/index.js';
import { UserTokens } from '../../src/broker/user-tokens.js';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { CLIENT, brokerAgainst, brokerRequest, readJson, recordingFetch, turnsUntil, verifyMiddlewareToken } from './support.js';

let idp: RunningIdp;

before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

/** The end user's token travels in the request here; a real app would take it from its server-side session. */
const fromHeader = (request: Request) => request.headers.get('X-User-Token');
const asUser = (token: string) => brokerRequest({ headers: { 'X-User-Token': token } });

const exchangeBroker = (overrides: Partial<TokenBrokerOptions> = {}, maxCachedUsers?: number) =>
  brokerAgainst(idp, { tokenExchange: { subjectToken: fromHeader, ...(maxCachedUsers ? { maxCachedUsers } : {}) }, ...overrides });

describe('token broker, RFC 8693 token exchange (spec 4.2 variant, 5.8)', () => {
  it('spec 4.2: sends the RFC 8693 form and returns a middleware token whose sub is the end user', async () => {
    const { forms, fetchImpl } = recordingFetch();
    const { broker } = exchangeBroker({ fetchImpl });
    const userToken = await idp.userToken('alice');
    const response = await broker(asUser(userToken));
    assert.strictEqual(response.status, 200);
    const body = await readJson(response);
    assert.deepStrictEqual(Object.keys(body).sort(), ['access_token', 'expires_in']);
    const claims = await verifyMiddlewareToken(idp, body.access_token as string);
    assert.strictEqual(claims.sub, 'alice');
    assert.strictEqual(claims.azp, CLIENT.clientId, 'the token records the acting client');
    assert.deepStrictEqual(claims.act, { sub: CLIENT.clientId });
    const form = forms[0]!;
    assert.strictEqual(form.get('grant_type'), 'urn:ietf:params:oauth:grant-type:token-exchange');
    assert.strictEqual(form.get('subject_token'), userToken);
    assert.strictEqual(form.get('subject_token_type'), 'urn:ietf:params:oauth:token-type:access_token');
    assert.strictEqual(form.get('requested_token_type'), 'urn:ietf:params:oauth:token-type:access_token');
    assert.strictEqual(form.get('audience'), 'biometrics-middleware');
    assert.strictEqual(form.get('client_id'), CLIENT.clientId);
  });

  it("spec 5.8: two users asking concurrently never receive each other's token; one exchange per user", async () => {
    const { broker } = exchangeBroker();
    const users = ['alice', 'bob', 'carol'];
    const tokens = Object.fromEntries(await Promise.all(users.map(async (u) => [u, await idp.userToken(u)] as const)));
    const before = idp.tokenRequests;
    const asks = Array.from({ length: 60 }, (_, i) => users[i % users.length]!);
    const answers = await Promise.all(asks.map(async (user) => ({ user, body: await readJson(await broker(asUser(tokens[user]!))) })));
    assert.strictEqual(idp.tokenRequests - before, users.length, 'single flight per user');
    const byUser = new Map<string, Set<unknown>>();
    for (const { user, body } of answers) {
      const claims = await verifyMiddlewareToken(idp, body.access_token as string);
      assert.strictEqual(claims.sub, user);
      byUser.set(user, (byUser.get(user) ?? new Set()).add(body.access_token));
    }
    for (const user of users) assert.strictEqual(byUser.get(user)!.size, 1, `${user} got one cached token`);
  });

  it("spec 5.6: each user's token is cached: repeated requests do not call the IdP again", async () => {
    const { broker } = exchangeBroker();
    const alice = await idp.userToken('alice');
    const before = idp.tokenRequests;
    const first = await readJson(await broker(asUser(alice)));
    const second = await readJson(await broker(asUser(alice)));
    assert.strictEqual(second.access_token, first.access_token);
    assert.ok((second.expires_in as number) <= (first.expires_in as number));
    assert.strictEqual(idp.tokenRequests - before, 1);
  });

  it('spec 4.1: without an end-user token the broker answers 401 and does not call the IdP', async () => {
    for (const subjectToken of [() => undefined, () => null, () => '', async () => '  ']) {
      const { broker } = exchangeBroker({ tokenExchange: { subjectToken } });
      const before = idp.tokenRequests;
      const response = await broker(brokerRequest());
      assert.strictEqual(response.status, 401);
      const body = await readJson(response);
      assert.strictEqual(body.access_token, undefined);
      assert.match(body.error as string, /end-user token/);
      assert.strictEqual(idp.tokenRequests, before);
    }
  });

  it('spec 4.1: the session gate runs first: no session, no exchange, even with a user token', async () => {
    const { broker } = exchangeBroker({ authorize: () => false });
    const before = idp.tokenRequests;
    assert.strictEqual((await broker(asUser(await idp.userToken('alice')))).status, 401);
    assert.strictEqual(idp.tokenRequests, before);
  });

  it('spec 7: a subject token the IdP rejects gives 502 { error }; the token is in neither body nor log', async () => {
    const { broker, log } = exchangeBroker();
    // Signed by a key the IdP does not trust: a forged end-user token.
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setSubject('mallory')
      .setExpirationTime('5m')
      .sign(privateKey);
    const response = await broker(asUser(forged));
    assert.strictEqual(response.status, 502);
    const text = await response.text();
    assert.deepStrictEqual(Object.keys(JSON.parse(text)), ['error']);
    assert.match(JSON.parse(text).error, /end user's token/);
    for (const leak of [forged, 'invalid_grant', CLIENT.clientSecret]) {
      assert.ok(!text.includes(leak), `body leaks ${leak.slice(0, 12)}`);
      assert.ok(!log.text().includes(leak), `log leaks ${leak.slice(0, 12)}`);
    }
    assert.match(log.text(), /token exchange \(RFC 8693\) .* refused it with HTTP 400/);
  });

  it('spec 4.1: a rejection is not cached: the same user with a valid token is served right after', async () => {
    const { broker } = exchangeBroker();
    const before = idp.tokenRequests;
    assert.strictEqual((await broker(asUser('not-a-jwt'))).status, 502);
    assert.strictEqual((await broker(asUser('not-a-jwt'))).status, 502);
    assert.strictEqual(idp.tokenRequests - before, 2);
    const ok = await broker(asUser(await idp.userToken('alice')));
    assert.strictEqual(ok.status, 200);
  });

  it('a subjectToken callback that throws answers 500 and logs only the kind of error', async () => {
    const { broker, log } = exchangeBroker({
      tokenExchange: {
        subjectToken: () => {
          throw new TypeError('session blob {"refresh":"rt-123"}');
        },
      },
    });
    assert.strictEqual((await broker(brokerRequest())).status, 500);
    assert.match(log.text(), /subjectToken threw \(TypeError\)/);
    assert.notMatch(log.text(), /rt-123/);
  });

  it("a user's token is reused at most 60 s by default (expires_in says so), then the subject token is exchanged again", async () => {
    const clock = installFakeDate();
    try {
      const { broker } = exchangeBroker();
      const alice = await idp.userToken('alice');
      const before = idp.tokenRequests;
      const first = await readJson(await broker(asUser(alice)));
      assert.isAtMost(first.expires_in as number, 60, 'the browser is told to come back within the bound too');
      clock.tick(50_000);
      const cached = await readJson(await broker(asUser(alice)));
      assert.strictEqual(cached.access_token, first.access_token);
      assert.strictEqual(idp.tokenRequests - before, 1);
      clock.tick(10_000);
      const renewed = await readJson(await broker(asUser(alice)));
      assert.notStrictEqual(renewed.access_token, first.access_token);
      assert.strictEqual(idp.tokenRequests - before, 2, 'the IdP was asked again about the same subject token');
    } finally {
      clock.uninstall();
    }
  });

  it('tokenExchange.maxReuseMs sets the bound', async () => {
    const clock = installFakeDate();
    try {
      const { broker } = exchangeBroker({ tokenExchange: { subjectToken: fromHeader, maxReuseMs: 10_000 } });
      const alice = await idp.userToken('alice');
      const before = idp.tokenRequests;
      assert.isAtMost((await readJson(await broker(asUser(alice)))).expires_in as number, 10);
      clock.tick(10_000);
      await broker(asUser(alice));
      assert.strictEqual(idp.tokenRequests - before, 2);
    } finally {
      clock.uninstall();
    }
  });

  it("when a user's subject token changes, nothing cached for the earlier one is served again", async () => {
    const { broker } = exchangeBroker();
    const [older, newer] = [await idp.userToken('alice'), await idp.userToken('alice')];
    assert.notStrictEqual(older, newer);
    const bob = await idp.userToken('bob');
    const before = idp.tokenRequests;
    const fromOlder = await readJson(await broker(asUser(older)));
    const fromBob = await readJson(await broker(asUser(bob)));
    await broker(asUser(newer)); // alice's session now holds a new subject token
    const olderAgain = await readJson(await broker(asUser(older)));
    assert.notStrictEqual(
      olderAgain.access_token,
      fromOlder.access_token,
      'the older subject token is exchanged again, not served from the cache',
    );
    assert.strictEqual(idp.tokenRequests - before, 4);
    assert.strictEqual((await readJson(await broker(asUser(bob)))).access_token, fromBob.access_token, 'other users keep their tokens');
  });

  it('the per-user cache is bounded: beyond maxCachedUsers the oldest user is evicted (and exchanges again)', async () => {
    const { broker } = exchangeBroker({}, 1);
    const [alice, bob] = [await idp.userToken('alice'), await idp.userToken('bob')];
    const before = idp.tokenRequests;
    for (const token of [alice, bob, alice]) assert.strictEqual((await broker(asUser(token))).status, 200);
    assert.strictEqual(idp.tokenRequests - before, 3);

    const roomy = exchangeBroker({}, 10).broker;
    const start = idp.tokenRequests;
    for (const token of [alice, bob, alice]) assert.strictEqual((await roomy(asUser(token))).status, 200);
    assert.strictEqual(idp.tokenRequests - start, 2);
  });
});

describe('per-user token map (privacy and memory bounds)', () => {
  const exchangeCount = (expiresIn = 60) => {
    let calls = 0;
    const exchange = async (subject: string) => {
      calls += 1;
      return { accessToken: `mw-for-${subject.length}-${calls}`, expiresIn };
    };
    return { exchange, calls: () => calls };
  };
  const keysOf = (tokens: UserTokens) => [...(tokens as unknown as { entries: Map<string, unknown> }).entries.keys()];

  it('keys are SHA-256 hashes, never the subject token itself', async () => {
    const tokens = new UserTokens(exchangeCount().exchange, 10);
    const subject = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln';
    await tokens.get(subject);
    const keys = keysOf(tokens);
    assert.strictEqual(keys.length, 1);
    assert.ok(!keys[0]!.includes(subject) && !keys[0]!.includes('alice'));
    assert.match(keys[0]!, /^[\w-]{43}$/);
  });

  it('the raw subject token is not kept once its exchange settled', async () => {
    const tokens = new UserTokens(exchangeCount().exchange, 10);
    await tokens.get('subject-token-abc');
    const held = JSON.stringify(
      [...(tokens as unknown as { entries: Map<string, { subjectToken?: string }> }).entries.values()].map((e) => e.subjectToken ?? null),
    );
    assert.strictEqual(held, '[null]');
  });

  it('a stream of distinct users never grows the map beyond its bound', async () => {
    const tokens = new UserTokens(exchangeCount().exchange, 25);
    for (let i = 0; i < 500; i++) await tokens.get(`user-token-${i}`);
    assert.ok(tokens.size <= 25, `size ${tokens.size}`);
  });

  it('a burst of concurrent distinct users against a slow identity provider never holds more entries than the bound, and each user gets its own token', async () => {
    const limit = 100;
    let largest = 0;
    // The fake identity provider answers after 30 ms, so every exchange of the burst is in flight at once.
    const slowIdp = async (subject: string) => {
      largest = Math.max(largest, tokens.size);
      await new Promise((resolve) => setTimeout(resolve, 30));
      largest = Math.max(largest, tokens.size);
      return { accessToken: `mw-for-${subject}`, expiresIn: 60 };
    };
    const tokens = new UserTokens(slowIdp, limit);
    const subjects = Array.from({ length: 10_000 }, (_, i) => `burst-user-${i}`);
    const results = await Promise.all(subjects.map((subject) => tokens.get(subject)));
    assert.isAtMost(largest, limit, 'entries held while exchanges were in flight');
    assert.isAtMost(tokens.size, limit);
    assert.deepStrictEqual(
      results.map((r) => r.accessToken),
      subjects.map((subject) => `mw-for-${subject}`),
    );
  });

  it('once a burst settled, new users evict the oldest settled entries and are cached again', async () => {
    const { exchange, calls } = exchangeCount();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    const tokens = new UserTokens(async (subject) => {
      waiting += 1;
      await gate;
      return exchange(subject);
    }, 3);
    const burst = Promise.all(['a', 'b', 'c', 'd', 'e'].map((s) => tokens.get(`burst-${s}`)));
    // Until all five exchanges are under way (each key is hashed first, off the main thread), not a time.
    while (waiting < 5) await new Promise((resolve) => setImmediate(resolve));
    assert.strictEqual(tokens.size, 3, 'two of the five were answered without being stored');
    release();
    await burst;
    assert.strictEqual(calls(), 5);
    await tokens.get('later-user');
    assert.strictEqual(tokens.size, 3);
    const before = calls();
    await tokens.get('later-user');
    assert.strictEqual(calls(), before, 'the new user was cached');
  });

  it('expired entries are swept when new users arrive', async () => {
    const clock = installFakeDate(); // Date stands still until clock.tick
    try {
      const tokens = new UserTokens(exchangeCount(2).exchange, 1000);
      for (let i = 0; i < 20; i++) await tokens.get(`old-${i}`);
      await tokens.get('old-0'); // still cached: no new entry
      assert.strictEqual(tokens.size, 20);
      // 2 s tokens are cached for 1.8 s; with under a second left an entry counts as expired.
      clock.tick(800);
      await tokens.get('newcomer');
      assert.strictEqual(tokens.size, 21, 'a second left: not yet expired');
      clock.tick(1);
      await tokens.get('second-newcomer');
      assert.strictEqual(tokens.size, 2, 'the twenty old entries are swept, the newcomers stay');
    } finally {
      clock.uninstall();
    }
  });

  it('once the IdP refuses a subject token, nothing cached for it is served again (within the 60 s bound)', async () => {
    const clock = installFakeDate();
    try {
      const revoked = new Set<string>();
      let calls = 0;
      const tokens = new UserTokens(async (subject) => {
        calls += 1;
        if (revoked.has(subject)) throw new Error('invalid_grant');
        return { accessToken: `mw-${calls}`, expiresIn: 3600 };
      }, 10);
      assert.strictEqual((await tokens.get('alice-session')).accessToken, 'mw-1');
      revoked.add('alice-session'); // the user is signed out or disabled at the identity provider
      clock.tick(59_000);
      await rejectsWith(tokens.get('alice-session'), /invalid_grant/);
      await rejectsWith(tokens.get('alice-session'), /invalid_grant/, 'a refusal is final for the cached token, not only for one request');
      assert.strictEqual(tokens.size, 0);
      assert.strictEqual(calls, 3);
    } finally {
      clock.uninstall();
    }
  });

  it("a changed subject token drops the earlier one's entry at once; opaque tokens fall back to the time bound", async () => {
    const jwtFor = (sub: string, n: number) => `h.${btoa(JSON.stringify({ sub, n })).replace(/=+$/, '')}.s`;
    let calls = 0;
    const refused = new Set<string>();
    const tokens = new UserTokens(async (subject) => {
      calls += 1;
      if (refused.has(subject)) throw new Error('invalid_grant');
      return { accessToken: subject.startsWith('opaque') ? `opaque-mw-${calls}` : jwtFor(subject.split(':')[0]!, calls), expiresIn: 3600 };
    }, 10);
    const first = (await tokens.get('alice:1')).accessToken;
    await tokens.get('bob:1');
    await tokens.get('alice:2');
    assert.strictEqual(tokens.size, 2, 'alice:1 was dropped when alice:2 was exchanged');
    refused.add('alice:1');
    const refusal = await rejectsWith(tokens.get('alice:1'), /invalid_grant/, `not ${first.slice(0, 8)}… from the cache`);
    assert.ok(refusal && calls === 4, 'the IdP was asked about alice:1 again');
    await tokens.get('opaque-1');
    await tokens.get('opaque-2');
    assert.strictEqual(tokens.size, 4, 'opaque tokens name no user: nothing to link');
  });

  it("an exchange answered without being cached (the cache full of exchanges in flight) still drops the user's earlier subject token", async () => {
    const jwtFor = (sub: string) => `h.${btoa(JSON.stringify({ sub })).replace(/=+$/, '')}.s`;
    const gates = new Map<string, () => void>();
    let calls = 0;
    const tokens = new UserTokens(async (subject) => {
      calls += 1;
      await new Promise<void>((resolve) => gates.set(subject, resolve));
      return { accessToken: jwtFor(subject.split(':')[0]!), expiresIn: 3600 };
    }, 2);
    // Until `count` exchanges have begun, or `settled` says the call ended without one: a request hashes
    // its token (WebCrypto, off the event loop) before it exchanges, which takes a loaded machine a while.
    const begun = (count: number, settled = () => false) => turnsUntil(() => calls >= count || settled());
    const older = tokens.get('alice:1');
    const bob = tokens.get('bob:1');
    await begun(2);
    const newer = tokens.get('alice:2'); // both entries are in flight: alice:2 is answered, not cached
    await begun(3);
    assert.strictEqual(tokens.size, 2);
    gates.get('alice:1')!();
    await older;
    gates.get('alice:2')!();
    await newer;
    assert.strictEqual(tokens.size, 1, 'alice:1 was dropped when alice:2 was exchanged');
    let answered = false;
    const again = tokens.get('alice:1').finally(() => (answered = true));
    await begun(4, () => answered);
    assert.strictEqual(calls, 4, 'the IdP is asked about alice:1 again, not the cache');
    gates.get('alice:1')!();
    gates.get('bob:1')!();
    await Promise.all([again, bob]);
  });

  it('a failed exchange leaves no entry behind', async () => {
    const tokens = new UserTokens(async () => {
      throw new Error('refused');
    }, 10);
    await rejectsWith(tokens.get('x'));
    assert.strictEqual(tokens.size, 0);
  });
});
