/**
 * The SDK's idpClientCredentials strategy (spec 2.2 B, 5.4) end to end against the real OpenID provider:
 * the same exchange code as the broker, its token cached across calls, and accepted by a middleware that
 * verifies it against the IdP's JWKS.
 */
import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { BioID, ReaderAuthError } from '../../src/index.js';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { CLIENT, startMiddlewareStub, type MiddlewareStub } from './support.js';

let idp: RunningIdp;
let middleware: MiddlewareStub;

before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
  middleware = await startMiddlewareStub(idp);
});
after(async () => {
  await middleware.close();
  await idp.close();
});

const sdk = (clientSecret = CLIENT.clientSecret) =>
  new BioID({
    middlewareUrl: middleware.url,
    integratorId: 'acme',
    // Pinned (spec 9.3): no local hardware service is needed for the dispatch.
    workstationId: 'ws-1',
    deviceId: 'dev-1',
    auth: { type: 'idpClientCredentials', clientId: CLIENT.clientId, clientSecret, issuerUrl: idp.baseUrl, realm: idp.realm },
  });

describe('SDK idpClientCredentials against a real OpenID provider (spec 2.2 B, 5.4)', () => {
  it('spec 5.4: the SDK exchanges once and reuses the token for several calls', async () => {
    const bio = sdk();
    try {
      const before = idp.tokenRequests;
      const calls = middleware.calls.length;
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await bio.reader.verify({ subjectId: `subject-${i}` }));
      results.push(...(await Promise.all([bio.reader.verify({ subjectId: 'a' }), bio.reader.verify({ subjectId: 'b' })])));
      assert.strictEqual(idp.tokenRequests - before, 1, 'one exchange for five calls');
      assert.deepStrictEqual(
        results.map((r) => r.match),
        [true, true, true, true, true],
      );
      const seen = middleware.calls.slice(calls);
      assert.strictEqual(seen.length, 5);
      for (const call of seen) {
        assert.strictEqual(call.authorized, true, 'bearer verified against the JWKS with issuer and audience');
        assert.strictEqual(call.sub, CLIENT.clientId);
        assert.strictEqual(call.integratorId, 'acme');
        assert.strictEqual(call.path, '/orchestrator/verify');
        assert.deepStrictEqual(Object.keys(call.body as object).sort(), ['deviceId', 'subjectId', 'workstationId']);
      }
    } finally {
      bio.close();
    }
  });

  it('spec 5.5, 7: a wrong secret surfaces as ReaderAuthError naming the endpoint, without the secret', async () => {
    const wrong = 'wrong-secret-for-sdk-42';
    const bio = sdk(wrong);
    try {
      await rejectsWith(bio.reader.verify({ subjectId: 's' }), (e: unknown) => {
        assert.ok(e instanceof ReaderAuthError);
        assert.match(e.message, /protocol\/openid-connect\/token/);
        assert.strictEqual(e.status, 401);
        assert.ok(!e.message.includes(wrong));
        return true;
      });
      assert.strictEqual(middleware.calls.filter((c) => !c.authorized).length, 0, 'no call reached the middleware without a token');
    } finally {
      bio.close();
    }
  });
});
