import { assert } from 'chai';
import { throwsError, rejectsWith } from '../support/expect-error.js';
import { BioID, BioIDError, ReaderAuthError } from '../../src/index.js';
import { json, text } from '../support/fake-network.js';
import { installFakeClock } from '../support/fake-clock.js';
import { cacheLifetimeMs } from '../../src/core/token-cache.js';
import { MW, standardNetwork } from '../support/sdk-fixtures.js';

const IDP = 'https://idp.example.com';
const TOKEN_PATH = `${IDP}/realms/acme/protocol/openid-connect/token`;
const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };
const SECRET = 's3cr3t-value-never-shown';
const idpAuth = (extra: Record<string, unknown> = {}) => ({
  type: 'idpClientCredentials' as const,
  clientId: 'integrator-app',
  clientSecret: SECRET,
  issuerUrl: IDP,
  realm: 'acme',
  ...extra,
});
const inBrowser = typeof window === 'object' && typeof document === 'object';

/** Runs `fn` as if in a browser page, also under Node (a real browser needs no pretending). */
function asBrowser<T>(fn: () => T): T {
  if (inBrowser) return fn();
  const g = globalThis as Record<string, unknown>;
  g.window = {};
  g.document = {};
  try {
    return fn();
  } finally {
    delete g.window;
    delete g.document;
  }
}

function idpNetwork(
  answer: () => Response = () =>
    json({ access_token: `jwt-${Math.random().toString(36).slice(2)}`, expires_in: 300, token_type: 'Bearer' }),
) {
  return standardNetwork().on('POST', TOKEN_PATH, answer);
}

const bioWith = (net: ReturnType<typeof idpNetwork>, extra: Record<string, unknown> = {}, auth = idpAuth()) =>
  asBrowser(
    () =>
      new BioID({
        middlewareUrl: MW,
        integratorId: 'tenant-1',
        fetchImpl: net.fetch,
        ...PIN,
        ...extra,
        auth: { ...auth, dangerouslyAllowBrowser: true },
      }),
  );

describe('idpClientCredentials strategy (spec 2.2 B, 4.2, 5.4)', () => {
  it('spec 4.2: POSTs a form with grant_type, client_id, client_secret and audience to {issuerUrl}/realms/{realm}/protocol/openid-connect/token', async () => {
    const net = idpNetwork();
    await bioWith(net).reader.search();
    const [exchange] = net.callsTo(TOKEN_PATH);
    assert.ok(exchange);
    assert.strictEqual(exchange.method, 'POST');
    assert.strictEqual(exchange.headers.get('content-type'), 'application/x-www-form-urlencoded');
    assert.deepStrictEqual(exchange.body, {
      grant_type: 'client_credentials',
      client_id: 'integrator-app',
      client_secret: SECRET,
      audience: 'biometrics-middleware',
    });
  });

  it('spec 2.2 B: audience and scope are sent when set', async () => {
    const net = idpNetwork();
    await bioWith(net, {}, idpAuth({ audience: 'mw-staging', scope: 'biometrics' })).reader.search();
    const body = net.callsTo(TOKEN_PATH)[0]!.body as Record<string, string>;
    assert.strictEqual(body.audience, 'mw-staging');
    assert.strictEqual(body.scope, 'biometrics');
  });

  it('an issuerUrl that ends in /realms/<realm> supplies the realm', async () => {
    const net = idpNetwork();
    await bioWith(net, {}, idpAuth({ issuerUrl: `${IDP}/realms/acme/`, realm: undefined })).reader.search();
    assert.strictEqual(net.callsTo(TOKEN_PATH).length, 1);
  });

  it('spec 5.6: the token is cached until just under expires_in, then fetched again', async () => {
    const clock = installFakeClock();
    try {
      const net = idpNetwork(() => json({ access_token: 'five-minutes', expires_in: 300 }));
      const bio = bioWith(net);
      await bio.reader.search();
      await bio.reader.search();
      assert.strictEqual(net.callsTo(TOKEN_PATH).length, 1, 'cached within its life');
      await clock.tickAsync(cacheLifetimeMs(300) - 1);
      await bio.reader.search();
      assert.strictEqual(net.callsTo(TOKEN_PATH).length, 1, 'still cached 1 ms before the end of its cached life');
      await clock.tickAsync(1);
      await bio.reader.search();
      assert.strictEqual(net.callsTo(TOKEN_PATH).length, 2, 'fetched again once the cached life is over');
      await bio.reader.search();
      assert.strictEqual(net.callsTo(TOKEN_PATH).length, 2, 'and the new token is cached');
    } finally {
      clock.uninstall();
    }
  });

  it('concurrent first uses share one exchange', async () => {
    const net = idpNetwork();
    const bio = bioWith(net);
    await Promise.all(Array.from({ length: 25 }, () => bio.reader.search()));
    assert.strictEqual(net.callsTo(TOKEN_PATH).length, 1);
  });

  it('spec 2.4: expires_in is validated (missing, zero, negative, not a number)', async () => {
    for (const expires_in of [undefined, 0, -5, '300', null]) {
      const net = idpNetwork(() => json({ access_token: 'x', expires_in }));
      await rejectsWith(bioWith(net).reader.search(), (e: unknown) => e instanceof ReaderAuthError && /expires_in/.test(e.message));
    }
  });

  it('IdP refusals and garbage are ReaderAuthErrors that name the endpoint and never the secret', async () => {
    const answers = [
      () => json({ error: 'invalid_client', error_description: 'bad secret' }, 401),
      () => text('<html><body>Sign in</body></html>', 200, 'text/html'),
      () => json({ token_type: 'Bearer' }),
      () => text('{"access_token": "trunc', 200, 'application/json'),
    ];
    for (const answer of answers) {
      const net = idpNetwork(answer);
      const error = await bioWith(net)
        .reader.search()
        .catch((e: unknown) => e);
      assert.ok(error instanceof ReaderAuthError, String(error));
      assert.match(error.message, /realms\/acme\/protocol\/openid-connect\/token/);
      assert.notMatch(error.message + String((error as Error).stack), new RegExp(SECRET));
    }
  });

  it('a failed exchange is not cached: the next call exchanges again', async () => {
    let n = 0;
    const net = idpNetwork(() =>
      ++n === 1 ? json({ error: 'temporarily_unavailable' }, 503) : json({ access_token: 'good', expires_in: 60 }),
    );
    const bio = bioWith(net);
    await rejectsWith(bio.reader.search(), (e: unknown) => e instanceof ReaderAuthError && e.retryable === true);
    await bio.reader.search();
    assert.strictEqual(n, 2);
  });

  it('spec 5.4: integratorId is required at construction', () => {
    throwsError(
      () => asBrowser(() => new BioID({ middlewareUrl: MW, auth: { ...idpAuth(), dangerouslyAllowBrowser: true } })),
      (e: unknown) => e instanceof BioIDError && e.code === 'config' && /integratorId is required/.test(e.message),
    );
  });

  it('the default issuer is not published: issuerUrl is required with an error that says so', () => {
    throwsError(
      () => bioWith(idpNetwork(), {}, idpAuth({ issuerUrl: undefined })),
      (e: unknown) =>
        e instanceof BioIDError && /auth\.issuerUrl is required: the operator's default identity issuer is not published/.test(e.message),
    );
    throwsError(
      () => bioWith(idpNetwork(), {}, idpAuth({ realm: undefined })),
      (e: unknown) => e instanceof BioIDError && /auth\.realm is required/.test(e.message),
    );
    for (const field of ['clientId', 'clientSecret']) {
      throwsError(
        () => bioWith(idpNetwork(), {}, idpAuth({ [field]: '' })),
        (e: unknown) => e instanceof BioIDError && e.message.includes(`auth.${field}`),
      );
    }
  });

  it('spec 5.4, 5.5: refuses to construct in a browser unless dangerouslyAllowBrowser is true', () => {
    throwsError(
      () => asBrowser(() => new BioID({ middlewareUrl: MW, integratorId: 't', auth: idpAuth() })),
      (e: unknown) =>
        e instanceof BioIDError && e.code === 'config' && /must not run in a browser/.test(e.message) && !e.message.includes(SECRET),
    );
    assert.ok(asBrowser(() => new BioID({ middlewareUrl: MW, integratorId: 't', auth: { ...idpAuth(), dangerouslyAllowBrowser: true } })));
  });

  it('spec 4.4: dispatch carries X-Integrator-Id and the IdP token as bearer', async () => {
    const net = idpNetwork(() => json({ access_token: 'idp-jwt', expires_in: 60 }));
    await bioWith(net).reader.verify({ subjectId: 'alice' });
    const call = net.callsTo(`${MW}/orchestrator/verify`)[0]!;
    assert.strictEqual(call.headers.get('authorization'), 'Bearer idp-jwt');
    assert.strictEqual(call.headers.get('x-integrator-id'), 'tenant-1');
  });
});
