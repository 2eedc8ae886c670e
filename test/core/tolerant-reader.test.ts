/**
 * docs/wire-contract.md, "Tolerant reader": against a real middleware whose payloads the spec does not
 * show, the core refuses only what it must act on, accepts any token that is a legal header value, reads
 * `null` pin ids as not supplied, and never turns a subject id into another path.
 */
import { assert } from 'chai';
import { BioIDError, ReaderAuthError, createFingerprintReader } from '../../src/index.js';
import { json } from '../support/fake-network.js';
import { LOCAL, MW, readerOver, standardNetwork } from '../support/sdk-fixtures.js';
import { rejectsWith, throwsError } from '../support/expect-error.js';

const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };

describe('tolerant reader (docs/wire-contract.md)', () => {
  it('a verify without verificationId, an enroll without enrollmentId and a search without searchId are results', async () => {
    const net = standardNetwork()
      .on('POST', `${MW}/orchestrator/verify`, () => json({ match: true }))
      .on('POST', `${MW}/orchestrator/enroll`, () => json({ status: 'stored' }))
      .on('POST', `${MW}/orchestrator/search`, () => json({ hits: 0 }));
    const { reader } = readerOver(net, PIN);
    assert.deepStrictEqual(await reader.verify({ subjectId: 'alice' }), { match: true });
    assert.deepStrictEqual(await reader.enroll({ subjectId: 'alice' }), { status: 'stored' });
    assert.deepStrictEqual(await reader.search(), { hits: 0 }, 'no candidates field: passed through');
  });

  it('enrolled records pass through whatever their shape', async () => {
    const net = standardNetwork().on('GET', `${MW}/biometrics/alice`, () => json({ subjectId: 'alice', records: [{ id: 1 }] }));
    const { reader } = readerOver(net, PIN);
    assert.deepStrictEqual(await reader.fetchEnrolled({ subjectId: 'alice' }), { subjectId: 'alice', records: [{ id: 1 }] });
  });

  it('refuses what it acts on: a match that is not a boolean, candidates that are not a list, a body that is not an object', async () => {
    const net = standardNetwork()
      .on('POST', `${MW}/orchestrator/verify`, () => json({ match: 'true', verificationId: 'v' }))
      .on('POST', `${MW}/orchestrator/search`, () => json({ candidates: 'alice' }))
      .on('POST', `${MW}/orchestrator/enroll`, () => json([1, 2]));
    const { reader } = readerOver(net, PIN);
    await rejectsWith(reader.verify({ subjectId: 'alice' }), { code: 'bad-response', message: /match is not a boolean/ });
    await rejectsWith(reader.search(), { code: 'bad-response', message: /candidates is not a list/ });
    await rejectsWith(reader.enroll({ subjectId: 'alice' }), { code: 'bad-response' });
  });

  it('an answer that echoes the bearer token is refused, and the error does not carry it', async () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const net = standardNetwork()
      .on('POST', `${MW}/orchestrator/enroll`, (call) => json({ enrollmentId: 'e', debug: { auth: call.headers.get('authorization') } }))
      .on('POST', `${MW}/orchestrator/verify`, () => json({ match: true, note: token }));
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: async () => token });
    const error = await rejectsWith(reader.enroll({ subjectId: 'alice' }), { code: 'bad-response', message: /echoed the bearer token/ });
    assert.notInclude(String((error as Error).message), token);
    await rejectsWith(reader.verify({ subjectId: 'alice' }), { code: 'bad-response' }, 'the token as a whole value');
  });

  it('an answer that echoes the bearer token as an object key, or nested deeper than any fixed limit, is refused', async () => {
    const token = 'opaque-token-0123456789abcdef';
    let deep: unknown = { note: `Bearer ${token}` };
    for (let i = 0; i < 1000; i++) deep = { next: deep };
    const net = standardNetwork()
      .on('POST', `${MW}/orchestrator/verify`, () => json({ match: true, subjectId: 'alice', verificationId: 'v', meta: { [token]: 1 } }))
      .on('POST', `${MW}/orchestrator/search`, () => json({ candidates: [], trace: deep }));
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: async () => token });
    await rejectsWith(reader.verify({ subjectId: 'alice' }), { code: 'bad-response', message: /echoed the bearer token/ }, 'as a key');
    await rejectsWith(reader.search(), { code: 'bad-response', message: /echoed the bearer token/ }, '1000 levels deep');
  });

  it('an opaque token echoed in an error message is removed from it, whatever its alphabet', async () => {
    const token = 'opaque|Tok3n=value%3D';
    const net = standardNetwork().on('POST', `${MW}/orchestrator/verify`, (call) =>
      json({ error: 'forbidden', message: `token ${call.headers.get('authorization')!.slice('Bearer '.length)} lacks scope` }, 403),
    );
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: async () => token });
    const error = (await rejectsWith(reader.verify({ subjectId: 'alice' }), { code: 'forbidden' })) as Error;
    assert.notInclude(error.message, token);
    assert.include(error.message, '[redacted]');
  });

  it('a /status device without `connected` counts as connected; other fields pass through', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, () =>
      json({ workstationId: 'ws-9', site: 'front desk', devices: [{ deviceId: 'dev-2', vendor: 'x' }] }),
    );
    const { reader } = readerOver(net);
    assert.deepStrictEqual(await reader.target(), { workstationId: 'ws-9', deviceId: 'dev-2' });
  });

  it('a dispatch id from the local service must be a non-empty printable string of at most 256 characters', async () => {
    for (const deviceId of ['', 'x'.repeat(257), 'a\nb', 42]) {
      const net = standardNetwork().on('GET', `${LOCAL}/status`, () =>
        json({ workstationId: 'ws-9', devices: [{ deviceId, connected: true }] }),
      );
      const { reader } = readerOver(net);
      await rejectsWith(reader.enroll({ subjectId: 'alice' }), { code: 'local-service' }, JSON.stringify(deviceId));
      assert.lengthOf(net.callsTo(`${MW}/orchestrator/enroll`), 0, 'nothing dispatched');
    }
  });

  it('a connected device whose id cannot be named in a dispatch is skipped: the next connected one is the target (docs/wire-contract.md)', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, () =>
      json({
        workstationId: 'ws-9',
        devices: [
          { deviceId: 'a\nb', connected: true },
          { deviceId: 'dev-off', connected: false },
          { deviceId: 'dev-2', connected: true },
        ],
      }),
    );
    const { reader } = readerOver(net);
    assert.deepStrictEqual(await reader.target(), { workstationId: 'ws-9', deviceId: 'dev-2' });
  });

  it("an operation's options set to null count as not supplied: no agentId sent, no signal, target or onPhase", async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, PIN);
    const options = { subjectId: 'alice', agentId: null, signal: null, target: null, onPhase: null };
    assert.strictEqual((await reader.verify(options as unknown as { subjectId: string })).match, true);
    const body = net.callsTo(`${MW}/orchestrator/verify`)[0]!.body as Record<string, unknown>;
    assert.notProperty(body, 'agentId');
    assert.strictEqual(body.workstationId, PIN.workstationId);
  });

  it('server messages end in one period, never two', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/verify`, () =>
      json({ error: 'not_enrolled', message: 'Subject alice has no template; enroll it first.' }, 404),
    );
    const { reader } = readerOver(net, PIN);
    const error = (await rejectsWith(reader.verify({ subjectId: 'alice' }), { code: 'not-found' })) as Error;
    assert.match(error.message, /enroll it first\.$/);
    assert.notMatch(error.message, /\.\.$/);
  });

  it('a redirect from the middleware is never followed: bad-response naming the URL', async () => {
    const net = standardNetwork().on(
      'POST',
      `${MW}/orchestrator/verify`,
      () => new Response(null, { status: 307, headers: { Location: 'https://elsewhere.example/' } }),
    );
    const { reader } = readerOver(net, PIN);
    await rejectsWith(reader.verify({ subjectId: 'alice' }), {
      code: 'bad-response',
      message: /orchestrator\/verify answered with a redirect \(HTTP 307\)/,
    });
    assert.lengthOf(
      net.calls.filter((c) => c.url.startsWith('https://elsewhere.example')),
      0,
    );
  });
});

describe('token alphabet (docs/wire-contract.md, "Tokens")', () => {
  for (const token of ['1|abcdef', 'a=b', 'abc%3D', 'opaque token with spaces']) {
    it(`a token such as ${JSON.stringify(token)} is sent as it is`, async () => {
      const net = standardNetwork();
      const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: async () => token });
      await reader.verify({ subjectId: 'alice' });
      assert.strictEqual(net.callsTo(`${MW}/orchestrator/verify`)[0]!.headers.get('authorization'), `Bearer ${token}`);
    });
  }

  it('a trailing newline (a broker read with .text()) is trimmed, not refused', async () => {
    const net = standardNetwork();
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: async () => 'abc.def\n' });
    await reader.verify({ subjectId: 'alice' });
    assert.strictEqual(net.callsTo(`${MW}/orchestrator/verify`)[0]!.headers.get('authorization'), 'Bearer abc.def');
  });

  for (const bad of ['a\r\nX-Injected: 1', 'a\tb', 'a\u0000b', 'a\u007fb']) {
    it(`a token with a control character (${JSON.stringify(bad)}) is a ReaderAuthError before any request`, async () => {
      const net = standardNetwork();
      const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: async () => bad });
      await rejectsWith(reader.verify({ subjectId: 'alice' }), ReaderAuthError);
      assert.lengthOf(net.calls, 0);
    });
  }
});

describe('pinning with null (spec 9.4)', () => {
  it('spec 9.4: { workstationId: "w", deviceId: null } is the built-in TypeError', () => {
    const error = throwsError(
      () => createFingerprintReader({ getToken: 't', middlewareUrl: MW, workstationId: 'w', deviceId: null as unknown as string }),
      TypeError,
    );
    assert.notInstanceOf(error, BioIDError);
    assert.match(error.message, /deviceId is missing/);
  });

  it('both null is not pinned: the reader discovers through the local service', async () => {
    const net = standardNetwork();
    const reader = createFingerprintReader({
      getToken: 't',
      middlewareUrl: MW,
      fetchImpl: net.fetch,
      workstationId: null as unknown as string,
      deviceId: null as unknown as string,
    });
    assert.isFalse(reader.pinned);
    assert.deepStrictEqual(await reader.target(), { workstationId: 'ws-7', deviceId: 'dev-1' });
  });
});

describe('subject ids that are path segments', () => {
  for (const subjectId of ['.', '..']) {
    it(`a subjectId of "${subjectId}" is a config error and nothing is sent`, async () => {
      const net = standardNetwork();
      const { reader } = readerOver(net, PIN);
      await rejectsWith(reader.fetchEnrolled({ subjectId }), { code: 'config', message: /not "\." or "\.\."/ });
      await rejectsWith(reader.verify({ subjectId }), { code: 'config' });
      assert.lengthOf(net.calls, 0);
    });
  }

  it('an ordinary id with dots is encoded and sent', async () => {
    const net = standardNetwork().on('GET', `${MW}/biometrics/a.b`, () => json({ subjectId: 'a.b', records: [] }));
    const { reader } = readerOver(net, PIN);
    assert.deepStrictEqual(await reader.fetchEnrolled({ subjectId: 'a.b' }), { subjectId: 'a.b', records: [] });
  });
});

describe('the flow in the core: phases and an explicit target', () => {
  it('onPhase reports token, locating and dispatched with the target, in order', async () => {
    const { reader } = readerOver(standardNetwork());
    const phases: unknown[] = [];
    await reader.verify({ subjectId: 'alice', onPhase: (phase, target) => phases.push(target ? [phase, target] : phase) });
    assert.deepStrictEqual(phases, ['token', 'locating', ['dispatched', { workstationId: 'ws-7', deviceId: 'dev-1' }]]);
  });

  it('an explicit target is dispatched to without asking the local service', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net);
    await reader.search({ target: { workstationId: 'ws-x', deviceId: 'dev-x' } });
    assert.lengthOf(net.callsTo(`${LOCAL}/status`), 0);
    assert.deepInclude(net.callsTo(`${MW}/orchestrator/search`)[0]!.body as object, { workstationId: 'ws-x', deviceId: 'dev-x' });
  });

  it('a signed-out user learns it before the local service is asked', async () => {
    const net = standardNetwork();
    const reader = createFingerprintReader({
      middlewareUrl: MW,
      fetchImpl: net.fetch,
      getToken: () => Promise.reject(new Error('signed out')),
    });
    await rejectsWith(reader.enroll({ subjectId: 'alice' }), ReaderAuthError);
    assert.lengthOf(net.calls, 0);
  });

  it('fetchEnrolled has only the token phase', async () => {
    const { reader } = readerOver(standardNetwork(), PIN);
    const phases: string[] = [];
    await reader.fetchEnrolled({ subjectId: 'alice', onPhase: (phase) => phases.push(phase) });
    assert.deepStrictEqual(phases, ['token']);
  });
});
