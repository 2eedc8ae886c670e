import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { BioID, BioIDError, ReaderAuthError, createFingerprintReader } from '../../src/index.js';
import { deferred, json, text } from '../support/fake-network.js';
import { MW, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };

describe('tokenProvider strategy (spec 2.2 A, 5.3)', () => {
  it('spec 5.3: getToken is called on first use, not at construction, and the token is cached', async () => {
    const net = standardNetwork();
    const { reader, tokensIssued } = readerOver(net, PIN);
    assert.strictEqual(tokensIssued(), 0);
    await reader.verify({ subjectId: 'alice' });
    await reader.verify({ subjectId: 'alice' });
    await reader.search();
    assert.strictEqual(tokensIssued(), 1);
    for (const call of net.callsTo(`${MW}/orchestrator/verify`)) {
      assert.strictEqual(call.headers.get('authorization'), 'Bearer token-1');
    }
  });

  it('one in-flight getToken is shared by all concurrent callers', async () => {
    const net = standardNetwork();
    const gate = deferred<string>();
    let calls = 0;
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: () => (calls++, gate.promise) });
    const all = Promise.all(Array.from({ length: 20 }, () => reader.verify({ subjectId: 'alice' })));
    gate.resolve('shared-token');
    await all;
    assert.strictEqual(calls, 1);
  });

  it('a getToken rejection is never cached: the next call asks again', async () => {
    const net = standardNetwork();
    let calls = 0;
    const reader = createFingerprintReader({
      ...PIN,
      middlewareUrl: MW,
      fetchImpl: net.fetch,
      getToken: async () => {
        calls++;
        if (calls === 1) throw new Error('broker down');
        return 'token-ok';
      },
    });
    await rejectsWith(reader.verify({ subjectId: 'alice' }), ReaderAuthError);
    assert.strictEqual((await reader.verify({ subjectId: 'alice' })).match, true);
    assert.strictEqual(calls, 2);
  });

  it('spec 5.7, 7: a throwing getToken of a standalone reader surfaces as ReaderAuthError with the cause kept', async () => {
    const net = standardNetwork();
    const cause = new Error('session expired');
    const reader = createFingerprintReader({
      ...PIN,
      middlewareUrl: MW,
      fetchImpl: net.fetch,
      getToken: () => {
        throw cause;
      },
    });
    const error = await reader.verify({ subjectId: 'alice' }).catch((e: unknown) => e);
    assert.ok(error instanceof ReaderAuthError);
    assert.ok(error instanceof BioIDError);
    assert.strictEqual(error.code, 'auth');
    assert.strictEqual(error.cause, cause);
    assert.strictEqual(net.callsTo(`${MW}/orchestrator/verify`).length, 0, 'no request without a token');
  });

  it('spec 7: a getToken that throws a BioIDError of another class (a timeout of its own) surfaces as ReaderAuthError, retryable as it was', async () => {
    const cause = new BioIDError('timeout', 'the session service did not answer');
    const reader = createFingerprintReader({
      ...PIN,
      middlewareUrl: MW,
      fetchImpl: standardNetwork().fetch,
      getToken: () => Promise.reject(cause),
    });
    const error = await reader.search().catch((e: unknown) => e);
    assert.ok(error instanceof ReaderAuthError, String((error as Error)?.name));
    assert.strictEqual(error.code, 'auth');
    assert.strictEqual(error.cause, cause);
    assert.isTrue(error.retryable);
  });

  it('a getToken that rejects with something whose text cannot even be read is still a ReaderAuthError', async () => {
    const hostile = { toString: 1 };
    const reader = createFingerprintReader({
      ...PIN,
      middlewareUrl: MW,
      fetchImpl: standardNetwork().fetch,
      getToken: () => Promise.reject(hostile),
    });
    const error = await reader.search().catch((e: unknown) => e);
    assert.ok(error instanceof ReaderAuthError, String((error as Error)?.name));
    assert.strictEqual(error.cause, hostile);
  });

  it('a getToken that resolves to an empty or non-string value is a clear ReaderAuthError', async () => {
    for (const [value, message] of [
      ['', /empty string/],
      [undefined, /resolved to undefined/],
      [42, /resolved to number/],
      [{ access_token: 'x', expires_in: 60 }, /broker's JSON response: return its access_token/],
      ['line\nbreak', /cannot be sent in an HTTP header/],
    ] as const) {
      const reader = createFingerprintReader({
        ...PIN,
        middlewareUrl: MW,
        fetchImpl: standardNetwork().fetch,
        getToken: async () => value as unknown as string,
      });
      await rejectsWith(reader.verify({ subjectId: 'alice' }), (e: unknown) => e instanceof ReaderAuthError && message.test(e.message));
    }
  });

  it('spec 2.3: getToken may be the token itself, a string', async () => {
    const net = standardNetwork();
    const reader = createFingerprintReader({ ...PIN, middlewareUrl: MW, fetchImpl: net.fetch, getToken: 'static-token' });
    await reader.search();
    assert.strictEqual(net.calls.at(-1)!.headers.get('authorization'), 'Bearer static-token');
  });

  it('spec 5.3: after a 401 the SDK gets a new token and retries the failed request exactly once', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, (c) =>
      c.headers.get('authorization') === 'Bearer token-1' ? json({ error: 'invalid_token' }, 401) : json({ candidates: [], searchId: 's' }),
    );
    const { reader, tokensIssued } = readerOver(net, PIN);
    const result = await reader.search();
    assert.strictEqual(result.searchId, 's');
    assert.strictEqual(tokensIssued(), 2);
    const attempts = net.callsTo(`${MW}/orchestrator/search`);
    assert.deepStrictEqual(
      attempts.map((c) => c.headers.get('authorization')),
      ['Bearer token-1', 'Bearer token-2'],
    );
  });

  it('spec 5.3: a second 401 surfaces as an unauthorized error after exactly one retry', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, () => json({ error: 'invalid_token' }, 401));
    const { reader, tokensIssued } = readerOver(net, PIN);
    await rejectsWith(
      reader.search(),
      (e: unknown) => e instanceof BioIDError && e.code === 'unauthorized' && e.status === 401 && !e.retryable,
    );
    assert.strictEqual(net.callsTo(`${MW}/orchestrator/search`).length, 2);
    assert.strictEqual(tokensIssued(), 2);
  });

  it('a 403 is not retried and does not refresh the token', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, () => json({ error: 'forbidden' }, 403));
    const { reader, tokensIssued } = readerOver(net, PIN);
    await rejectsWith(reader.search(), (e: unknown) => e instanceof BioIDError && e.code === 'forbidden');
    assert.strictEqual(net.callsTo(`${MW}/orchestrator/search`).length, 1);
    assert.strictEqual(tokensIssued(), 1);
  });

  it('concurrent 401s for one token cause one refresh', async () => {
    const release = deferred();
    const allArrived = deferred();
    let arrived = 0;
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, async (c) => {
      if (c.headers.get('authorization') !== 'Bearer token-1') return json({ candidates: [], searchId: 'ok' });
      if (++arrived === 10) allArrived.resolve();
      await release.promise;
      return json({ error: 'invalid_token' }, 401);
    });
    const { reader, tokensIssued } = readerOver(net, PIN);
    const all = Promise.all(Array.from({ length: 10 }, () => reader.search()));
    await allArrived.promise; // all ten requests carry token-1 before any 401 answers
    release.resolve();
    await all;
    assert.strictEqual(tokensIssued(), 2, 'ten 401s for token-1 caused one refresh');
  });

  it('a 401 answering a token that was already replaced reuses the current token instead of refreshing again', async () => {
    const late = deferred();
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, async (c, i) => {
      if (c.headers.get('authorization') !== 'Bearer token-1') return json({ candidates: [], searchId: c.headers.get('authorization')! });
      if (i === 1) await late.promise; // this 401 arrives after the other request already refreshed
      return json({ error: 'invalid_token' }, 401);
    });
    const { reader, tokensIssued } = readerOver(net, PIN);
    const first = reader.search();
    const second = reader.search();
    assert.strictEqual((await first).searchId, 'Bearer token-2');
    late.resolve();
    assert.strictEqual((await second).searchId, 'Bearer token-2');
    assert.strictEqual(tokensIssued(), 2, 'no third token');
  });

  it('spec 5.3 via BioID: the tokenProvider of a BioID instance follows the same rules', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, (c) =>
      c.headers.get('authorization') === 'Bearer first' ? text('expired', 401) : json({ candidates: [], searchId: 'x' }),
    );
    const answers = ['first', 'second'];
    const bio = new BioID({
      middlewareUrl: MW,
      fetchImpl: net.fetch,
      ...PIN,
      auth: { type: 'tokenProvider', getToken: async () => answers.shift()! },
    });
    assert.strictEqual((await bio.reader.search()).searchId, 'x');
    assert.strictEqual(answers.length, 0);
  });
});
