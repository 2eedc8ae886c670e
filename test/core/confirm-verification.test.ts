import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { BioID, BioIDError } from '../../src/index.js';
import { fakeNetwork, hang, json, text, type Handler } from '../support/fake-network.js';
import { installFakeDate, type FakeClock } from '../support/fake-clock.js';
import { MW } from '../support/sdk-fixtures.js';

const ID = 'ver-42';
const AT = `${MW}/verifications/${ID}`;
const TOKEN = 'opaque-token-0123456789';

/** The middleware's record of a matching verification of alice, made `ageMs` ago. */
const record = (ageMs = 1_000, extra: Record<string, unknown> = {}) => ({
  verificationId: ID,
  subjectId: 'alice',
  match: true,
  score: 0.97,
  createdAt: new Date(Date.now() - ageMs).toISOString(),
  workstationId: 'ws-7',
  deviceId: 'dev-1',
  ...extra,
});

function bioOver(answer: Handler, extra: Record<string, unknown> = {}) {
  const net = fakeNetwork().on('GET', AT, answer);
  let issued = 0;
  const bio = new BioID({
    middlewareUrl: MW,
    fetchImpl: net.fetch,
    auth: { type: 'tokenProvider', getToken: async () => `${TOKEN}-${++issued}` },
    ...extra,
  });
  return { bio, net, tokensIssued: () => issued };
}

const rejectedFor = (why: RegExp) => (e: unknown) =>
  e instanceof BioIDError &&
  e.code === 'verification-rejected' &&
  e.retryable === false &&
  why.test(e.message) &&
  !e.message.includes(TOKEN);

describe('confirmVerification (docs/wire-contract.md: confirming a verification)', () => {
  let clock: FakeClock;
  beforeEach(() => {
    clock = installFakeDate(); // Date stands still unless a test moves it; timers stay real
  });
  afterEach(() => clock.uninstall());

  it('docs/wire-contract.md: GET {middlewareUrl}/verifications/{id} with the bearer token resolves to the record, extra fields passed through', async () => {
    const answer = record(1_000, { agentId: 'clerk-7', extra: { kept: true } });
    const { bio, net } = bioOver(() => json(answer), { integratorId: 'tenant-1' });
    const confirmed = await bio.confirmVerification(ID, { subjectId: 'alice' });
    assert.deepStrictEqual<unknown>(confirmed, answer);
    const [call] = net.calls;
    assert.strictEqual(call?.method, 'GET');
    assert.strictEqual(call?.url, AT);
    assert.strictEqual(call?.headers.get('authorization'), `Bearer ${TOKEN}-1`);
    assert.strictEqual(call?.body, undefined);
  });

  it('the id is one encoded path segment', async () => {
    const id = 'a/b ?c#d%';
    const net = fakeNetwork().on('GET', `${MW}/verifications/${encodeURIComponent(id)}`, () => json(record(0, { verificationId: id })));
    const bio = new BioID({ middlewareUrl: MW, fetchImpl: net.fetch, auth: { type: 'tokenProvider', getToken: async () => TOKEN } });
    assert.strictEqual((await bio.confirmVerification(id, { subjectId: 'alice' })).verificationId, id);
    assert.strictEqual(net.calls[0]?.url, `${MW}/verifications/a%2Fb%20%3Fc%23d%25`);
  });

  it('spec 5.3: a 401 gets one new token and one retry, as every middleware call', async () => {
    const { bio, net, tokensIssued } = bioOver(() => json(record()));
    net.on('GET', AT, (_call, index) => (index === 0 ? json({ error: 'invalid_token' }, 401) : json(record())));
    assert.strictEqual((await bio.confirmVerification(ID, { subjectId: 'alice' })).match, true);
    assert.deepStrictEqual(
      net.calls.map((c) => c.headers.get('authorization')),
      [`Bearer ${TOKEN}-1`, `Bearer ${TOKEN}-2`],
    );
    assert.strictEqual(tokensIssued(), 2);
  });

  it('docs/wire-contract.md: an id the middleware does not know (404) is verification-rejected', async () => {
    const { bio } = bioOver(() => json({ error: 'unknown_verification', message: `no such id (token ${TOKEN}-1)` }, 404));
    const error = await rejectsWith(bio.confirmVerification(ID, { subjectId: 'alice' }), rejectedFor(/unknown id/));
    assert.strictEqual((error as BioIDError & { cause: BioIDError }).cause.code, 'not-found');
  });

  it('docs/wire-contract.md: a verification that did not match is rejected (false, missing, or a truthy non-boolean)', async () => {
    for (const match of [false, undefined, 'true', 1]) {
      const { bio } = bioOver(() => json(record(1_000, { match })));
      await rejectsWith(bio.confirmVerification(ID, { subjectId: 'alice' }), rejectedFor(/no match/), String(match));
    }
  });

  it('docs/wire-contract.md: a verification of another subject is rejected, without naming that subject', async () => {
    for (const subjectId of ['mallory', 'Alice', 'alice ', undefined]) {
      const { bio } = bioOver(() => json(record(1_000, { subjectId })));
      const error = await rejectsWith(
        bio.confirmVerification(ID, { subjectId: 'alice' }),
        rejectedFor(/another subject/),
        String(subjectId),
      );
      assert.notInclude((error as Error).message, 'mallory');
    }
  });

  it('docs/security.md claim 19: a record of another spelling of the id is rejected (a middleware that matches ids loosely)', async () => {
    // Such a middleware answers "VER-42", "ver-42 " and "ver-42" with one record: each spelling would
    // otherwise be a new key of the caller's "used" store, and one verification accepted several times.
    for (const asked of ['VER-42', 'ver-42 ', ' ver-42', 'ver-42\u200b']) {
      const net = fakeNetwork().on('GET', `${MW}/verifications/${encodeURIComponent(asked)}`, () => json(record()));
      const bio = new BioID({ middlewareUrl: MW, fetchImpl: net.fetch, auth: { type: 'tokenProvider', getToken: async () => TOKEN } });
      await rejectsWith(bio.confirmVerification(asked, { subjectId: 'alice' }), rejectedFor(/another verification/), JSON.stringify(asked));
    }
    for (const verificationId of [undefined, 42, 'ver-43']) {
      const { bio } = bioOver(() => json(record(1_000, { verificationId })));
      await rejectsWith(bio.confirmVerification(ID, { subjectId: 'alice' }), rejectedFor(/another verification/), String(verificationId));
    }
  });

  it('docs/wire-contract.md: younger than maxAgeMs, 120000 by default: 120 s old passes, a millisecond more is rejected', async () => {
    const answer = record(120_000); // one record: its createdAt stays while the clock moves
    const { bio } = bioOver(() => json(answer));
    assert.strictEqual((await bio.confirmVerification(ID, { subjectId: 'alice' })).match, true);
    clock.tick(1);
    await rejectsWith(bio.confirmVerification(ID, { subjectId: 'alice' }), rejectedFor(/within the last 120000 ms/));
  });

  it('maxAgeMs bounds the age: 2 s old is refused with maxAgeMs 1000 and accepted with 5000', async () => {
    const { bio } = bioOver(() => json(record(2_000)));
    await rejectsWith(bio.confirmVerification(ID, { subjectId: 'alice', maxAgeMs: 1_000 }), rejectedFor(/within the last 1000 ms/));
    assert.strictEqual((await bio.confirmVerification(ID, { subjectId: 'alice', maxAgeMs: 5_000 })).match, true);
  });

  it('a createdAt up to 10 s ahead (clock skew) passes; further in the future is rejected', async () => {
    assert.strictEqual((await bioOver(() => json(record(-10_000))).bio.confirmVerification(ID, { subjectId: 'alice' })).match, true);
    await rejectsWith(bioOver(() => json(record(-10_001))).bio.confirmVerification(ID, { subjectId: 'alice' }), rejectedFor(/createdAt/));
  });

  it('a createdAt that is missing or not an ISO 8601 time with a zone is rejected (its age is unknown)', async () => {
    const now = new Date().toISOString();
    const local = now.slice(0, -1); // no zone: Date.parse would read it as local time
    for (const createdAt of [undefined, null, Date.now(), '', 'yesterday', '1', local, now.slice(0, 10), 'xT10:00Z']) {
      const { bio } = bioOver(() => json(record(0, { createdAt })));
      await rejectsWith(
        bio.confirmVerification(ID, { subjectId: 'alice' }),
        rejectedFor(/createdAt is not an ISO 8601 time with a zone/),
        String(createdAt),
      );
    }
    const offset = new Date(Date.now() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    assert.strictEqual(
      (await bioOver(() => json(record(0, { createdAt: offset }))).bio.confirmVerification(ID, { subjectId: 'alice' })).match,
      true,
    );
  });

  it('an id that cannot be one (empty, "." or "..", over 256 characters, not a string) is rejected and nothing is sent', async () => {
    for (const id of ['', '.', '..', 'x'.repeat(257), undefined, null, 42, ['ver-42']]) {
      const { bio, net } = bioOver(() => json(record()));
      await rejectsWith(bio.confirmVerification(id as string, { subjectId: 'alice' }), rejectedFor(/no usable id/), String(id));
      assert.strictEqual(net.calls.length, 0);
    }
    const longest = 'x'.repeat(256);
    const net = fakeNetwork().on('GET', `${MW}/verifications/${longest}`, () => json(record(0, { verificationId: longest })));
    const bio = new BioID({ middlewareUrl: MW, fetchImpl: net.fetch, auth: { type: 'tokenProvider', getToken: async () => TOKEN } });
    assert.strictEqual((await bio.confirmVerification(longest, { subjectId: 'alice' })).verificationId, longest);
  });

  it("the integrator's own mistakes are config errors naming the field, and nothing is sent", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /confirmVerification options must be an object/],
      [{}, /confirmVerification: subjectId is required/],
      [{ subjectId: '' }, /subjectId is required/],
      [{ subjectId: 7 }, /subjectId is required/],
      [{ subjectId: 'alice', maxAge: 5 }, /unknown option "maxAge"/],
      [{ subjectId: 'alice', maxAgeMs: 0 }, /maxAgeMs must be a positive number/],
      [{ subjectId: 'alice', maxAgeMs: '120000' }, /maxAgeMs must be a positive number/],
    ];
    for (const [options, message] of cases) {
      const { bio, net } = bioOver(() => json(record()));
      await rejectsWith(
        bio.confirmVerification(ID, options as { subjectId: string }),
        { code: 'config', message },
        JSON.stringify(options),
      );
      assert.strictEqual(net.calls.length, 0);
    }
  });

  it('other failures keep their usual codes: 403 forbidden, 500 middleware, an HTML page bad-response, a hang timeout', async () => {
    const cases: Array<[Handler, string]> = [
      [() => json({ error: 'forbidden' }, 403), 'forbidden'],
      [() => json({ error: 'boom' }, 500), 'middleware'],
      [() => text('<!doctype html><p>Sign in', 200, 'text/html'), 'bad-response'],
      [() => json([record()]), 'bad-response'],
      [hang, 'timeout'],
    ];
    for (const [answer, code] of cases) {
      const { bio } = bioOver(answer, { timeoutMs: 50 });
      await rejectsWith(bio.confirmVerification(ID, { subjectId: 'alice' }), { code }, code);
    }
  });
});
