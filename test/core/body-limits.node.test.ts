/**
 * Every answer the SDK reads (middleware, identity provider, local service, token broker)
 * is read up to 1 MiB, a test capture up to 8 MiB, and the stream is cancelled beyond: a huge or endless
 * body is never buffered whole. Real sockets on loopback; the server counts what it could write before the
 * client hung up. That count is the limit plus what the two loopback socket buffers hold (a few MiB on
 * Linux), far below the 64 MiB or endless bodies sent here.
 */
import { assert } from 'chai';
import { BioID, BioIDError, ReaderAuthError, brokerTokenSource, clearBrokerTokens, createFingerprintReader } from '../../src/index.js';
import { rejectsWith } from '../support/expect-error.js';
import { MiB, startFloodServer, type Flood } from '../support/flood-server.js';

const PIN = { workstationId: 'ws-1', deviceId: 'dev-1' };
const HUGE = 64 * MiB;
/** What the kernel may hold between the two ends on top of what the client read. */
const SOCKET_BUFFERS = 16 * MiB;
const STATUS = JSON.stringify({ workstationId: 'ws-1', devices: [{ deviceId: 'dev-1', connected: true }] });

let answers: Record<string, Flood>;
let server: Awaited<ReturnType<typeof startFloodServer>>;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

before(async () => {
  process.on('unhandledRejection', onUnhandled);
  server = await startFloodServer((req) => answers[(req.url ?? '/').split('?')[0]!] ?? { status: 404, size: 0 });
});
after(async () => {
  await server.close();
  process.off('unhandledRejection', onUnhandled);
  assert.deepStrictEqual(unhandled, [], 'no unhandled rejections');
});
beforeEach(() => {
  answers = {};
  clearBrokerTokens();
});

const reader = (extra: Record<string, unknown> = {}) =>
  createFingerprintReader({ getToken: 'token-abc', middlewareUrl: server.url, localServiceUrl: server.url, timeoutMs: 10_000, ...extra });

/** The request to `path` was cut off: the client hung up after reading little more than `limit`. */
async function assertCutOff(path: string, limit: number) {
  const record = await server.settled(path);
  assert.isTrue(record.hungUp, `the client hung up on ${path}`);
  assert.isBelow(
    record.written,
    limit + SOCKET_BUFFERS,
    `${path}: ${(record.written / MiB).toFixed(1)} MiB written before the client hung up`,
  );
}

describe('response bodies are capped (1 MiB; a test capture 8 MiB)', () => {
  it('an endless middleware body is cancelled after 1 MiB: bad-response naming the URL and the limit', async () => {
    answers['/orchestrator/search'] = { prefix: '{"candidates":["' };
    await rejectsWith(reader(PIN).search(), {
      name: 'BioIDError',
      code: 'bad-response',
      message: new RegExp(`^The middleware at ${server.url}/orchestrator/search answered with a body over the 1 MiB limit`),
      retryable: false,
    });
    await assertCutOff('/orchestrator/search', MiB);
  });

  it('a middleware error page of 64 MiB is refused the same way, not read whole', async () => {
    answers['/orchestrator/verify'] = { status: 500, size: HUGE };
    await rejectsWith(reader(PIN).verify({ subjectId: 'alice' }), { code: 'bad-response', message: /over the 1 MiB limit/ });
    await assertCutOff('/orchestrator/verify', MiB);
  });

  it('a Content-Length over the limit is refused before a byte of the body is read', async () => {
    // The body is announced but never sent: a client that waited for it would run into the timeout.
    answers['/biometrics/alice'] = { contentLength: 2 * MiB, size: 0 };
    const started = performance.now();
    await rejectsWith(reader(PIN).fetchEnrolled({ subjectId: 'alice' }), {
      code: 'bad-response',
      message: /biometrics\/alice answered with a body over the 1 MiB limit/,
    });
    assert.isBelow(performance.now() - started, 5_000, 'refused on the header, long before the 10 s timeout');
  });

  it('a body of exactly 1 MiB is read (the limit is inclusive)', async () => {
    const prefix = '{"candidates":[],"pad":"';
    answers['/orchestrator/search'] = { prefix, size: MiB - prefix.length - 2, suffix: '"}' };
    const result = await reader(PIN).search();
    assert.deepStrictEqual(result.candidates, []);
  });

  it('an identity provider answer over 1 MiB (idpClientCredentials) is bad-response naming the token endpoint, without the secret', async () => {
    answers['/realms/r/protocol/openid-connect/token'] = { prefix: '{"access_token":"', size: HUGE };
    const bio = new BioID({
      middlewareUrl: server.url,
      integratorId: 'acme',
      timeoutMs: 10_000,
      ...PIN,
      auth: { type: 'idpClientCredentials', clientId: 'c', clientSecret: 'very-secret-value', issuerUrl: server.url, realm: 'r' },
    });
    const error = await rejectsWith(bio.reader.search(), {
      code: 'bad-response',
      message: /identity provider at .*openid-connect\/token answered with a body over the 1 MiB limit/,
    });
    assert.notInclude(String((error as Error).stack), 'very-secret-value');
    await assertCutOff('/realms/r/protocol/openid-connect/token', MiB);
  });

  it('a local service /status over 1 MiB is a local-service error naming the URL and the limit', async () => {
    answers['/status'] = { prefix: '{"workstationId":"', size: HUGE };
    await rejectsWith(reader().target(), {
      code: 'local-service',
      message: new RegExp(`^The local hardware service at ${server.url}/status answered with a body over the 1 MiB limit`),
    });
    await assertCutOff('/status', MiB);
  });

  it('a test capture may answer up to 8 MiB (its image); beyond, a local-service error naming 8 MiB', async () => {
    const opening = '{"deviceId":"dev-1","quality":80,"image":"data:image/png;base64,';
    answers['/status'] = { prefix: STATUS, size: 0 };
    answers['/test-capture'] = { prefix: opening, size: 3 * MiB, suffix: '"}' };
    const capture = await reader().testCapture();
    assert.strictEqual(capture.image!.length, 'data:image/png;base64,'.length + 3 * MiB);

    answers['/test-capture'] = { prefix: opening, size: HUGE };
    await rejectsWith(reader(PIN).testCapture(), {
      code: 'local-service',
      message: /test-capture answered with a body over the 8 MiB limit/,
    });
    await assertCutOff('/test-capture', 8 * MiB);
  });

  it('a token broker answer over 1 MiB is broker-unavailable naming the URL and the limit', async () => {
    answers['/token'] = { prefix: '{"access_token":"', size: HUGE };
    await rejectsWith(brokerTokenSource(`${server.url}/token`).get(), (e: unknown) => {
      assert.instanceOf(e, ReaderAuthError);
      const error = e as BioIDError;
      assert.strictEqual(error.code, 'broker-unavailable');
      assert.match(error.message, new RegExp(`token broker at ${server.url}/token answered with a body over the 1 MiB limit`));
      return true;
    });
    await assertCutOff('/token', MiB);
  });
});
