import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { BioIDError, ReaderAuthError, WORKSTATION_OFFLINE_TEXT, createFingerprintReader } from '../../src/index.js';
import { hang, json, refuse, text, tick } from '../support/fake-network.js';
import { installFakeClock } from '../support/fake-clock.js';
import { LOCAL, MW, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };
const code = (expected: string, message?: RegExp) => (e: unknown) =>
  e instanceof BioIDError && e.code === expected && (!message || message.test(e.message));

/** A promise plus what has become of it so far, for checking that it is still pending at a given time. */
function settledState<T>(promise: Promise<T>) {
  const out = { state: 'pending' as 'pending' | 'resolved' | 'rejected', promise };
  promise.then(
    () => (out.state = 'resolved'),
    () => (out.state = 'rejected'),
  );
  return out;
}

describe('middleware calls (spec 4.4, 5.1, 7, 8)', () => {
  it('spec 5.1: every middleware request carries Authorization: Bearer', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { ...PIN, integratorId: 'tenant-1' });
    await reader.enroll({ subjectId: 'alice' });
    await reader.verify({ subjectId: 'alice' });
    await reader.search();
    await reader.fetchEnrolled({ subjectId: 'alice' });
    const middlewareCalls = net.calls.filter((c) => c.url.startsWith(MW));
    assert.strictEqual(middlewareCalls.length, 4);
    for (const call of middlewareCalls) assert.strictEqual(call.headers.get('authorization'), 'Bearer token-1');
  });

  it('spec 4.4: dispatch requests carry X-Integrator-Id when integratorId is set, and only dispatch requests', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { ...PIN, integratorId: 'tenant-1' });
    await reader.verify({ subjectId: 'alice' });
    await reader.fetchEnrolled({ subjectId: 'alice' });
    assert.strictEqual(net.callsTo(`${MW}/orchestrator/verify`)[0]!.headers.get('x-integrator-id'), 'tenant-1');
    assert.strictEqual(net.callsTo(`${MW}/biometrics/alice`)[0]!.headers.get('x-integrator-id'), null);
  });

  it('spec 2.3: without integratorId no X-Integrator-Id header is sent (tenant-scoped tokens)', async () => {
    const net = standardNetwork();
    await readerOver(net, PIN).reader.verify({ subjectId: 'alice' });
    assert.strictEqual(net.callsTo(`${MW}/orchestrator/verify`)[0]!.headers.get('x-integrator-id'), null);
  });

  it('wire contract: dispatch bodies name the workstation, device, subject and agentId; success bodies pass through unchanged', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, PIN);
    const result = await reader.verify({ subjectId: 'alice', agentId: 'clerk-9' });
    assert.deepStrictEqual(net.callsTo(`${MW}/orchestrator/verify`)[0]!.body, {
      workstationId: 'ws-7',
      deviceId: 'dev-1',
      subjectId: 'alice',
      agentId: 'clerk-9',
    });
    assert.deepStrictEqual(result, { subjectId: 'alice', match: true, score: 0.97, verificationId: 'ver-1', extra: 'kept' });
    await reader.search({ agentId: 'clerk-9' });
    assert.deepStrictEqual(net.callsTo(`${MW}/orchestrator/search`)[0]!.body, {
      workstationId: 'ws-7',
      deviceId: 'dev-1',
      agentId: 'clerk-9',
    });
  });

  it('spec 8: every network call is bounded by timeoutMs', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/verify`, hang);
    const { reader } = readerOver(net, { ...PIN, timeoutMs: 50 });
    const clock = installFakeClock();
    try {
      const settled = settledState(reader.verify({ subjectId: 'alice' }));
      await clock.tickAsync(49);
      assert.strictEqual(settled.state, 'pending', 'still waiting at 49 ms');
      await clock.tickAsync(1);
      assert.strictEqual(settled.state, 'rejected', 'rejected at 50 ms');
      await rejectsWith(settled.promise, code('timeout', /did not answer within 50 ms/));
    } finally {
      clock.uninstall();
    }
  });

  it('spec 2.1, 8: without timeoutMs, a call is bounded by the default 15000 ms', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/verify`, hang);
    const { reader } = readerOver(net, PIN);
    const clock = installFakeClock();
    try {
      const settled = settledState(reader.verify({ subjectId: 'alice' }));
      await clock.tickAsync(14_999);
      assert.strictEqual(settled.state, 'pending', 'still waiting at 14,999 ms');
      await clock.tickAsync(1);
      await rejectsWith(settled.promise, code('timeout', /did not answer within 15000 ms/));
    } finally {
      clock.uninstall();
    }
  });

  it('spec 8: a getToken that never settles is bounded by timeoutMs too, as a ReaderAuthError (spec 7: no token)', async () => {
    const reader = createFingerprintReader({
      ...PIN,
      middlewareUrl: MW,
      fetchImpl: standardNetwork().fetch,
      timeoutMs: 50,
      getToken: () => new Promise<string>(() => {}),
    });
    const clock = installFakeClock();
    try {
      const settled = settledState(reader.search());
      await clock.tickAsync(49);
      assert.strictEqual(settled.state, 'pending', 'still waiting at 49 ms');
      await clock.tickAsync(1);
      const error = await rejectsWith(settled.promise, code('timeout', /getToken did not settle within 50 ms/));
      assert.instanceOf(error, ReaderAuthError);
      assert.isTrue((error as ReaderAuthError).retryable);
    } finally {
      clock.uninstall();
    }
  });

  it("a caller's AbortSignal aborts the call with code 'aborted'", async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/verify`, hang);
    const { reader } = readerOver(net, PIN);
    const controller = new AbortController();
    const pending = settledState(reader.verify({ subjectId: 'alice', signal: controller.signal }));
    await tick(10);
    assert.strictEqual(pending.state, 'pending', 'the request hangs until aborted');
    controller.abort();
    await rejectsWith(pending.promise, code('aborted'));
    await rejectsWith(reader.verify({ subjectId: 'alice', signal: AbortSignal.abort() }), code('aborted'));
  });

  it('close() aborts in-flight work, and later calls reject', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/verify`, hang);
    const { reader } = readerOver(net, PIN);
    const pending = settledState(reader.verify({ subjectId: 'alice' }));
    await tick(10);
    assert.strictEqual(pending.state, 'pending', 'the request hangs until close()');
    reader.close();
    await rejectsWith(pending.promise, code('aborted'));
    await rejectsWith(reader.search(), code('aborted', /closed/));
  });

  it(`spec 7: 503 "${WORKSTATION_OFFLINE_TEXT}" has its own code and keeps the text`, async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/verify`, () =>
      json({ error: 'workstation_offline', message: WORKSTATION_OFFLINE_TEXT }, 503),
    );
    const error = await readerOver(net, PIN)
      .reader.verify({ subjectId: 'alice' })
      .catch((e: unknown) => e);
    assert.ok(error instanceof BioIDError);
    assert.strictEqual(error.code, 'workstation-offline');
    assert.strictEqual(error.status, 503);
    assert.strictEqual(error.retryable, true);
    assert.ok(error.message.includes(WORKSTATION_OFFLINE_TEXT));
    // The text also counts when the middleware sends it as plain text.
    const plain = standardNetwork().on('POST', `${MW}/orchestrator/verify`, () => text(WORKSTATION_OFFLINE_TEXT, 503));
    await rejectsWith(readerOver(plain, PIN).reader.verify({ subjectId: 'alice' }), code('workstation-offline'));
  });

  it('other failure statuses map to codes with the status, retryable for 5xx', async () => {
    const cases: [number, string, boolean][] = [
      [500, 'middleware', true],
      [503, 'middleware', true],
      [400, 'middleware', false],
      [404, 'not-found', false],
      [403, 'forbidden', false],
    ];
    for (const [status, expected, retryable] of cases) {
      const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, () => json({ error: 'x', message: 'went wrong' }, status));
      const error = await readerOver(net, PIN)
        .reader.search()
        .catch((e: unknown) => e);
      assert.ok(error instanceof BioIDError);
      assert.deepStrictEqual([error.code, error.status, error.retryable], [expected, status, retryable], `HTTP ${status}`);
      assert.match(error.message, /went wrong/);
    }
  });

  it('a non-JSON or HTML body becomes a clear error, not a JSON parse crash', async () => {
    const html = standardNetwork().on('POST', `${MW}/orchestrator/search`, () =>
      text('<!doctype html><title>Login</title>', 200, 'text/html'),
    );
    await rejectsWith(readerOver(html, PIN).reader.search(), code('bad-response', /HTML page/));
    const truncated = standardNetwork().on('POST', `${MW}/orchestrator/search`, () => text('{"candidates": [', 200, 'application/json'));
    await rejectsWith(readerOver(truncated, PIN).reader.search(), code('bad-response', /not a JSON object/));
    const proxy = standardNetwork().on('POST', `${MW}/orchestrator/search`, () =>
      text('<html><body>502 Bad Gateway</body></html>', 502, 'text/html'),
    );
    await rejectsWith(readerOver(proxy, PIN).reader.search(), code('middleware', /HTML page/));
    const wrongShape = standardNetwork().on('POST', `${MW}/orchestrator/verify`, () => json({ ok: true }));
    await rejectsWith(readerOver(wrongShape, PIN).reader.verify({ subjectId: 'a' }), code('bad-response', /verify answer/));
  });

  it('docs/wire-contract.md: search candidates and enrolled records pass through as sent (the elements render them as text)', async () => {
    const odd = { searchId: 's', candidates: [{ subjectId: { toString: 1 }, score: '0.9' }] };
    const candidates = standardNetwork().on('POST', `${MW}/orchestrator/search`, () => json(odd));
    assert.deepStrictEqual(await readerOver(candidates, PIN).reader.search(), odd as never);
    const records = standardNetwork().on('GET', `${MW}/biometrics/alice`, () => json({ subjectId: 'alice', records: [null] }));
    assert.deepStrictEqual(await readerOver(records, PIN).reader.fetchEnrolled({ subjectId: 'alice' }), {
      subjectId: 'alice',
      records: [null],
    } as never);
    const notAList = standardNetwork().on('POST', `${MW}/orchestrator/search`, () => json({ candidates: { alice: 1 } }));
    await rejectsWith(readerOver(notAList, PIN).reader.search(), code('bad-response', /candidates is not a list/));
  });

  it('a network failure is a network error that names the URL', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, refuse);
    await rejectsWith(
      readerOver(net, PIN).reader.search(),
      code('network', /Could not reach the middleware at https:\/\/mw\.example\.com\/api\/v2\/orchestrator\/search/),
    );
  });

  it('no error message or cause ever contains the token, even when the middleware echoes it', async () => {
    const secretToken = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, (c) =>
      json({ error: 'bad', message: `rejected ${c.headers.get('authorization')} access_token=${secretToken}` }, 400),
    );
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: async () => secretToken });
    const error = await reader.search().catch((e: unknown) => e as BioIDError);
    assert.ok(error instanceof BioIDError);
    assert.ok(!JSON.stringify({ m: error.message, s: error.stack, c: String(error.cause) }).includes(secretToken));
    assert.ok(!error.message.includes('eyJ'));
  });

  it('middlewareUrl with a trailing slash, a bare ? or # or a path prefix joins correctly; ids in paths are URL-encoded', async () => {
    // A bare ? or # is an empty query or fragment, which URL's href keeps: the path must still join after /api/v2.
    for (const base of [
      'https://mw.example.com/api/v2/',
      'https://mw.example.com/api/v2',
      'https://mw.example.com/api/v2?',
      'https://mw.example.com/api/v2#',
      'https://mw.example.com/api/v2/?#',
    ]) {
      const net = standardNetwork().on('GET', `${MW}/biometrics/a%2Fb%20c%3F`, () => json({ subjectId: 'a/b c?', records: [] }));
      const reader = createFingerprintReader({ ...PIN, middlewareUrl: base, fetchImpl: net.fetch, getToken: 't' });
      assert.deepStrictEqual(await reader.fetchEnrolled({ subjectId: 'a/b c?' }), { subjectId: 'a/b c?', records: [] });
      await reader.search();
      assert.strictEqual(net.calls.at(-1)!.url, `${MW}/orchestrator/search`);
    }
  });

  it('spec 9.1: enroll, verify and search never go to the local hardware service', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net); // discovery mode
    await reader.enroll({ subjectId: 'alice' });
    await reader.verify({ subjectId: 'alice' });
    await reader.search();
    const local = net.calls.filter((c) => c.url.startsWith(LOCAL));
    assert.ok(
      local.every((c) => c.method === 'GET' && c.path === '/status'),
      'only discovery reaches the local service',
    );
    assert.strictEqual(net.calls.filter((c) => c.url.startsWith(`${MW}/orchestrator/`)).length, 3);
  });

  it('operation arguments are validated with the field named', async () => {
    const { reader } = readerOver(standardNetwork(), PIN);
    await rejectsWith(reader.verify({ subjectId: '' }), code('config', /verify: subjectId is required/));
    await rejectsWith(reader.enroll(undefined as never), code('config', /enroll: subjectId/));
    await rejectsWith(reader.search({ agentId: 5 as never }), code('config', /agentId/));
  });
});
