/**
 * Broker configuration (spec 4.2: client id, client secret and auth base address in server-side
 * configuration): validation at creation naming the option, and the environment variables.
 */
import { assert } from 'chai';
import { throwsError } from '../support/expect-error.js';
import { BioIDError } from '../../src/index.js';
import { BROKER_ENV, brokerOptionsFromEnv, createTokenBroker, type TokenBrokerOptions } from '../../src/broker/index.js';

const valid: TokenBrokerOptions = {
  issuerUrl: 'https://idp.example.com',
  realm: 'acme',
  clientId: 'acme-broker',
  clientSecret: 'top-secret-value',
  authorize: () => true,
};
const configError = (pattern: RegExp) => (e: unknown) => e instanceof BioIDError && e.code === 'config' && pattern.test(e.message);
const withOptions = (patch: Record<string, unknown>) => ({ ...valid, ...patch }) as TokenBrokerOptions;

describe('createTokenBroker options (validated at creation)', () => {
  it('spec 4.2: clientId, clientSecret and issuerUrl are required, each named', () => {
    throwsError(() => createTokenBroker(withOptions({ clientId: undefined })), configError(/createTokenBroker: clientId is required/));
    throwsError(() => createTokenBroker(withOptions({ clientSecret: '' })), configError(/createTokenBroker: clientSecret is required/));
    throwsError(() => createTokenBroker(withOptions({ issuerUrl: undefined })), configError(/createTokenBroker: issuerUrl is required/));
    throwsError(() => createTokenBroker(withOptions({ issuerUrl: 'idp.example.com' })), configError(/issuerUrl .* not an absolute URL/));
  });

  it('spec 4.2: the realm is required unless the issuerUrl names it', () => {
    throwsError(() => createTokenBroker(withOptions({ realm: undefined })), configError(/createTokenBroker: realm is required/));
    assert.doesNotThrow(() => createTokenBroker(withOptions({ realm: undefined, issuerUrl: 'https://idp.example.com/realms/acme' })));
  });

  it('spec 4.1: authorize (the session gate) is required', () => {
    throwsError(() => createTokenBroker(withOptions({ authorize: undefined })), configError(/authorize is required/));
    throwsError(() => createTokenBroker(withOptions({ authorize: true })), configError(/authorize is required/));
  });

  it('a pattern such as https://*.example.com is refused; a plain-http origin outside loopback is logged once', () => {
    throwsError(
      () => createTokenBroker(withOptions({ allowedOrigins: ['https://*.example.com'] })),
      configError(/is a pattern; list each exact origin/),
    );
    const lines: string[] = [];
    createTokenBroker(
      withOptions({
        allowedOrigins: ['http://intranet.example', 'http://127.0.0.1:3000', 'http://localhost:8080', 'https://app.example.com'],
        logger: (l: string) => lines.push(l),
      }),
    );
    assert.strictEqual(lines.length, 1);
    assert.match(lines[0]!, /http:\/\/intranet\.example, a plain-http origin/);
  });

  it('middlewareUrl comes from BIOID_MIDDLEWARE_URL too, and must be an http(s) URL', () => {
    const env = {
      BIOID_CLIENT_ID: 'c',
      BIOID_CLIENT_SECRET: 's',
      BIOID_AUTH_URL: 'https://idp.example.com/realms/r',
      BIOID_MIDDLEWARE_URL: 'https://mw.example.com',
    };
    assert.strictEqual(brokerOptionsFromEnv(env, { authorize: () => true }).middlewareUrl, 'https://mw.example.com');
    throwsError(
      () => createTokenBroker(withOptions({ middlewareUrl: 'mw.example.com' })),
      configError(/middlewareUrl is not an absolute URL/),
    );
  });

  it('issuerUrl and middlewareUrl must be https unless the host is loopback, each named', () => {
    throwsError(
      () => createTokenBroker(withOptions({ issuerUrl: 'http://idp.example.com' })),
      configError(/^createTokenBroker: issuerUrl must be an https URL/),
    );
    throwsError(
      () => createTokenBroker(withOptions({ issuerUrl: 'http://idp.example.com/realms/acme', realm: undefined })),
      configError(/issuerUrl must be an https URL/),
    );
    throwsError(
      () => createTokenBroker(withOptions({ middlewareUrl: 'http://mw.example.com' })),
      configError(/^createTokenBroker: middlewareUrl must be an https URL/),
    );
    const env = { BIOID_CLIENT_ID: 'c', BIOID_CLIENT_SECRET: 's', BIOID_AUTH_URL: 'http://idp.example.com/realms/r' };
    throwsError(
      () => createTokenBroker(brokerOptionsFromEnv(env, { authorize: () => true })),
      configError(/issuerUrl must be an https URL/),
    );
    for (const loopback of ['http://127.0.0.1:18080', 'http://localhost:8080', 'http://[::1]:8080']) {
      assert.doesNotThrow(() => createTokenBroker(withOptions({ issuerUrl: loopback, middlewareUrl: loopback })), loopback);
    }
  });

  it('the package ships an MIT LICENSE, as package.json says', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license: string };
    assert.strictEqual(pkg.license, 'MIT');
    assert.match(readFileSync(new URL('../../LICENSE', import.meta.url), 'utf8'), /^MIT License/);
  });

  it('spec 4.1: allowedOrigins must be exact origins, never *', () => {
    throwsError(
      () => createTokenBroker(withOptions({ allowedOrigins: ['*'] })),
      configError(/allowedOrigins .* "\*" would hand tokens to any site/),
    );
    throwsError(
      () => createTokenBroker(withOptions({ allowedOrigins: 'https://app.example.com' })),
      configError(/allowedOrigins must be an array/),
    );
    throwsError(() => createTokenBroker(withOptions({ allowedOrigins: ['https://app.example.com/login'] })), configError(/origin only/));
    throwsError(() => createTokenBroker(withOptions({ allowedOrigins: ['app.example.com'] })), configError(/allowedOrigins entry/));
    assert.doesNotThrow(() => createTokenBroker(withOptions({ allowedOrigins: ['https://APP.example.com/', 'http://localhost:5173'] })));
  });

  it('tokenExchange needs a subjectToken function and a positive bound', () => {
    throwsError(() => createTokenBroker(withOptions({ tokenExchange: {} })), configError(/tokenExchange.subjectToken is required/));
    throwsError(
      () => createTokenBroker(withOptions({ tokenExchange: { subjectToken: () => 'x', maxCachedUsers: 0 } })),
      configError(/tokenExchange.maxCachedUsers/),
    );
  });

  it('tokenExchange.maxReuseMs is a positive number of milliseconds, named when wrong', () => {
    for (const bad of [0, -1, '60000', Infinity]) {
      throwsError(
        () => createTokenBroker(withOptions({ tokenExchange: { subjectToken: () => 'x', maxReuseMs: bad } })),
        configError(/^createTokenBroker: tokenExchange\.maxReuseMs must be a positive number of milliseconds/),
        String(bad),
      );
    }
    assert.doesNotThrow(() => createTokenBroker(withOptions({ tokenExchange: { subjectToken: () => 'x', maxReuseMs: 5_000 } })));
  });

  it('refusedTokenMinAgeMs, refusedTokenIntervalMs and storeLockWaitMs are positive numbers of milliseconds, named when wrong', () => {
    for (const option of ['refusedTokenMinAgeMs', 'refusedTokenIntervalMs', 'storeLockWaitMs']) {
      for (const bad of [0, -1, '1000', Number.NaN, Infinity]) {
        throwsError(
          () => createTokenBroker(withOptions({ [option]: bad })),
          configError(new RegExp(`^createTokenBroker: ${option} must be a positive number of milliseconds`)),
        );
      }
      assert.doesNotThrow(() => createTokenBroker(withOptions({ [option]: 2_500 })));
    }
  });

  it('timeoutMs, requireCsrfHeader, fetchImpl and logger are type-checked; unknown options suggest the right name', () => {
    throwsError(() => createTokenBroker(withOptions({ timeoutMs: -5 })), configError(/timeoutMs must be a positive number/));
    throwsError(() => createTokenBroker(withOptions({ requireCsrfHeader: 'no' })), configError(/requireCsrfHeader must be true or false/));
    throwsError(() => createTokenBroker(withOptions({ fetchImpl: 'fetch' })), configError(/fetchImpl must be a function/));
    throwsError(() => createTokenBroker(withOptions({ logger: console })), configError(/logger must be a function/));
    throwsError(() => createTokenBroker(withOptions({ clientID: 'x' })), configError(/unknown option "clientID"; did you mean "clientId"/));
  });

  it('spec 5.5: no validation message ever contains the client secret', () => {
    for (const patch of [{ realm: undefined }, { authorize: undefined }, { allowedOrigins: ['*'] }, { timeoutMs: 0 }]) {
      throwsError(
        () => createTokenBroker(withOptions(patch)),
        (e: unknown) => !(e as Error).message.includes(valid.clientSecret),
      );
    }
  });
});

describe('brokerOptionsFromEnv (spec 4.2: configuration from environment variables)', () => {
  const env = {
    BIOID_CLIENT_ID: 'acme-broker',
    BIOID_CLIENT_SECRET: 'env-secret-123',
    BIOID_AUTH_URL: 'https://idp.example.com',
    BIOID_REALM: 'acme',
  };
  const authorize = () => true;

  it('reads the documented variables', () => {
    const options = brokerOptionsFromEnv(
      {
        ...env,
        BIOID_AUDIENCE: 'mw',
        BIOID_SCOPE: 'biometrics',
        BIOID_ALLOWED_ORIGINS: 'https://a.example.com, https://b.example.com',
        BIOID_TIMEOUT_MS: '5000',
        BIOID_REQUIRE_CSRF_HEADER: 'false',
      },
      { authorize },
    );
    assert.deepStrictEqual(
      { ...options, authorize: undefined },
      {
        issuerUrl: 'https://idp.example.com',
        realm: 'acme',
        clientId: 'acme-broker',
        clientSecret: 'env-secret-123',
        audience: 'mw',
        scope: 'biometrics',
        allowedOrigins: ['https://a.example.com', 'https://b.example.com'],
        timeoutMs: 5000,
        requireCsrfHeader: false,
        authorize: undefined,
      },
    );
    assert.strictEqual(options.authorize, authorize);
    assert.doesNotThrow(() => createTokenBroker(options));
    assert.deepStrictEqual(Object.values(BROKER_ENV).slice(0, 4), [
      'BIOID_CLIENT_ID',
      'BIOID_CLIENT_SECRET',
      'BIOID_AUTH_URL',
      'BIOID_REALM',
    ]);
  });

  it('a missing variable is an error that names it', () => {
    for (const name of Object.keys(env)) {
      const partial: Record<string, string> = { ...env };
      delete partial[name];
      throwsError(() => brokerOptionsFromEnv(partial, { authorize }), configError(new RegExp(`environment variable ${name} is not set`)));
    }
    throwsError(
      () => brokerOptionsFromEnv({ ...env, BIOID_CLIENT_SECRET: '  ' }, { authorize }),
      configError(/BIOID_CLIENT_SECRET is not set/),
    );
  });

  it('BIOID_REALM may be left out when BIOID_AUTH_URL ends in /realms/<realm>', () => {
    const { BIOID_REALM: _, ...rest } = env;
    const options = brokerOptionsFromEnv({ ...rest, BIOID_AUTH_URL: 'https://idp.example.com/realms/acme' }, { authorize });
    assert.strictEqual(options.realm, undefined);
    assert.doesNotThrow(() => createTokenBroker(options));
  });

  it('overrides win over variables and supply what the environment cannot (authorize, tokenExchange)', () => {
    const options = brokerOptionsFromEnv(
      { BIOID_CLIENT_SECRET: 'from-env' },
      {
        authorize,
        issuerUrl: 'https://other.example.com',
        realm: 'r',
        clientId: 'c',
        timeoutMs: 1234,
      },
    );
    assert.strictEqual(options.issuerUrl, 'https://other.example.com');
    assert.strictEqual(options.clientSecret, 'from-env');
    assert.strictEqual(options.timeoutMs, 1234);
    throwsError(() => brokerOptionsFromEnv(env, {} as never), configError(/overrides.authorize is required/));
  });

  it('malformed values are named without echoing them', () => {
    throwsError(
      () => brokerOptionsFromEnv({ ...env, BIOID_TIMEOUT_MS: 'ten' }, { authorize }),
      configError(/BIOID_TIMEOUT_MS must be a positive whole number/),
    );
    throwsError(
      () => brokerOptionsFromEnv({ ...env, BIOID_REQUIRE_CSRF_HEADER: 'maybe' }, { authorize }),
      configError(/BIOID_REQUIRE_CSRF_HEADER must be true or false/),
    );
  });

  it('reads process.env when env is undefined', () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, env);
      assert.strictEqual(brokerOptionsFromEnv(undefined, { authorize }).clientId, 'acme-broker');
    } finally {
      for (const name of Object.keys(env)) if (!(name in saved)) delete process.env[name];
    }
  });
});
