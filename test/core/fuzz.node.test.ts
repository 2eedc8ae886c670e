// Property-based tests over configuration objects and response bodies: whatever comes in, the SDK
// answers with a result or a BioIDError with a known code (or the spec's TypeError for half a pin),
// never an uncaught exception, and never with a token or secret in a message.
import { assert } from 'chai';
import fc from 'fast-check';
import { BioID, BioIDError, createFingerprintReader, type BioIDErrorCode } from '../../src/index.js';
import { fakeNetwork } from '../support/fake-network.js';
import { LOCAL, MW } from '../support/sdk-fixtures.js';

const KNOWN_CODES: BioIDErrorCode[] = [
  'config',
  'auth',
  'unauthorized',
  'forbidden',
  'not-found',
  'workstation-offline',
  'middleware',
  'bad-response',
  'timeout',
  'network',
  'aborted',
  'local-service-unreachable',
  'no-device',
  'local-service',
];
const SECRET = 'SECRETc0ffee';
const TOKEN = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJmdXp6In0.TOKENc0ffee';

function assertWellFormed(error: unknown, allowTypeError = false): void {
  if (allowTypeError && error instanceof TypeError && !(error instanceof BioIDError)) return;
  assert.ok(error instanceof BioIDError, `not a BioIDError: ${String(error)}`);
  assert.ok(KNOWN_CODES.includes(error.code), `unknown code ${error.code}`);
  assert.strictEqual(typeof error.retryable, 'boolean');
  const text = `${error.message} ${error.stack ?? ''}`;
  assert.ok(!text.includes(SECRET) && !text.includes('TOKENc0ffee'), `a secret leaked: ${error.message}`);
}

const anything = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constantFrom(
    'https://mw.example.com',
    'http://localhost:18065/',
    '',
    ' ',
    'ftp://x',
    '/relative',
    'https://u:p@h',
    'https://h/?q=1',
    SECRET,
  ),
  fc.func(fc.constant(Promise.resolve(TOKEN))),
  fc.object({ maxDepth: 1 }),
);

const authArb = fc.oneof(
  fc.record(
    {
      type: fc.constant('tokenProvider'),
      getToken: fc.oneof(
        fc.constant(async () => TOKEN),
        anything,
      ),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('idpClientCredentials'),
      clientId: fc.oneof(fc.constant('client'), anything),
      clientSecret: fc.oneof(fc.constant(SECRET), anything),
      issuerUrl: fc.oneof(fc.constantFrom('https://idp.example.com', 'https://idp.example.com/realms/acme'), anything),
      realm: fc.oneof(fc.constant('acme'), anything),
      audience: anything,
      scope: anything,
      dangerouslyAllowBrowser: anything,
    },
    { requiredKeys: ['type'] },
  ),
  anything,
);

const configArb = fc.record(
  {
    middlewareUrl: fc.oneof(fc.constant(MW), anything),
    auth: authArb,
    integratorId: anything,
    fetchImpl: anything,
    timeoutMs: fc.oneof(fc.integer({ min: -10, max: 100000 }), anything),
    readerServiceUrl: anything,
    workstationId: anything,
    deviceId: anything,
    statusIntervalMs: anything,
  },
  { requiredKeys: [] },
);

const readerConfigArb = fc.record(
  {
    getToken: fc.oneof(
      fc.constant(TOKEN),
      fc.constant(async () => TOKEN),
      anything,
    ),
    middlewareUrl: fc.oneof(fc.constant(MW), anything),
    integratorId: anything,
    localServiceUrl: anything,
    workstationId: anything,
    deviceId: anything,
    fetchImpl: anything,
    timeoutMs: anything,
  },
  { requiredKeys: [] },
);

/** A response as a hostile or broken server might send it. */
const bodyArb = fc.oneof(
  fc.json().map((j) => ({ body: j, type: 'application/json' })),
  fc.anything({ maxDepth: 2 }).map((v) => ({ body: JSON.stringify(v) ?? 'undefined', type: 'application/json' })),
  fc.string().map((s) => ({ body: s, type: 'text/plain' })),
  fc.string().map((s) => ({ body: `<!doctype html><p>${s}`, type: 'text/html' })),
  fc.json().map((j) => ({ body: j.slice(0, Math.max(0, j.length - 1)), type: 'application/json' })),
  fc.constantFrom(
    {
      body: JSON.stringify({ candidates: [{ subjectId: '<img src=x onerror=alert(1)>', score: 1 }], searchId: 's' }),
      type: 'application/json',
    },
    { body: JSON.stringify({ error: 'x', message: `Bearer ${TOKEN}` }), type: 'application/json' },
    { body: JSON.stringify({ workstationId: 'w', devices: [{ deviceId: 'd', connected: true }] }), type: 'application/json' },
    { body: JSON.stringify({ subjectId: 'a', match: true, score: 1, verificationId: 'v' }), type: 'application/json' },
    { body: 'Target workstation is not currently live.', type: 'text/plain' },
  ),
);
const statusArb = fc.oneof(fc.constantFrom(200, 201, 204, 400, 401, 403, 404, 409, 500, 502, 503), fc.integer({ min: 200, max: 599 }));

describe('fuzzing (fast-check)', function () {
  // Hundreds of runs each: seconds on an idle machine, far more on a loaded one.
  this.timeout(90_000);
  it('any BioID configuration constructs or throws a config BioIDError (or the spec 9.4 TypeError) without leaking the secret', () => {
    fc.assert(
      fc.property(configArb, (config) => {
        try {
          new BioID(config as never).close();
        } catch (error) {
          assertWellFormed(error, true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('any reader configuration constructs or throws a config BioIDError (or the spec 9.4 TypeError)', () => {
    fc.assert(
      fc.property(readerConfigArb, (config) => {
        try {
          createFingerprintReader(config as never).close();
        } catch (error) {
          assertWellFormed(error, true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('any middleware and local service answer gives a result or a BioIDError with a known code, never the token', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          status: statusArb,
          reply: bodyArb,
          statusReply: bodyArb,
          statusCode: statusArb,
          op: fc.constantFrom('enroll', 'verify', 'search', 'fetchEnrolled', 'testCapture', 'target'),
        }),
        async ({ status, reply, statusReply, statusCode, op }) => {
          const answer = (s: number, r: { body: string; type: string }) => () =>
            new Response([101, 204, 205, 304].includes(s) ? null : r.body, { status: s, headers: { 'content-type': r.type } });
          const net = fakeNetwork()
            .on('GET', `${LOCAL}/status`, answer(statusCode, statusReply))
            .on('POST', `${LOCAL}/test-capture`, answer(status, reply));
          for (const path of ['orchestrator/enroll', 'orchestrator/verify', 'orchestrator/search', 'biometrics/alice']) {
            net.on(path.startsWith('bio') ? 'GET' : 'POST', `${MW}/${path}`, answer(status, reply));
          }
          const reader = createFingerprintReader({ getToken: async () => TOKEN, middlewareUrl: MW, fetchImpl: net.fetch, timeoutMs: 1000 });
          try {
            const run = {
              enroll: () => reader.enroll({ subjectId: 'alice' }),
              verify: () => reader.verify({ subjectId: 'alice' }),
              search: () => reader.search(),
              fetchEnrolled: () => reader.fetchEnrolled({ subjectId: 'alice' }),
              testCapture: () => reader.testCapture(),
              target: () => reader.target(),
            }[op];
            const result = await run();
            assert.strictEqual(typeof result, 'object');
          } catch (error) {
            assertWellFormed(error);
          } finally {
            reader.close();
          }
        },
      ),
      { numRuns: 4000 },
    );
  });

  it('any identity provider answer gives a token or a BioIDError, never the client secret', async () => {
    const endpoint = 'https://idp.example.com/realms/acme/protocol/openid-connect/token';
    await fc.assert(
      fc.asyncProperty(statusArb, bodyArb, async (status, reply) => {
        const net = fakeNetwork()
          .on(
            'POST',
            endpoint,
            () => new Response([204, 205, 304].includes(status) ? null : reply.body, { status, headers: { 'content-type': reply.type } }),
          )
          .on('POST', `${MW}/orchestrator/search`, () => Response.json({ candidates: [], searchId: 's' }));
        const bio = new BioID({
          middlewareUrl: MW,
          integratorId: 't',
          fetchImpl: net.fetch,
          workstationId: 'w',
          deviceId: 'd',
          auth: { type: 'idpClientCredentials', clientId: 'c', clientSecret: SECRET, issuerUrl: 'https://idp.example.com', realm: 'acme' },
        });
        try {
          await bio.reader.search();
        } catch (error) {
          assertWellFormed(error);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
