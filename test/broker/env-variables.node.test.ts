/**
 * The tables that declare each environment variable once (src/broker/config/env-variables.ts for the broker,
 * broker/src/serve-env.ts for bioid-broker serve): every entry is read into its option or setting, and
 * every malformed or missing value is an error that names the variable without echoing the value.
 */
import { assert } from 'chai';
import { throwsError } from '../support/expect-error.js';
import { BioIDError } from '../../src/index.js';
import { BROKER_ENV, STORE_ENV, brokerOptionsFromEnv, envBoolean, envMilliseconds, envValue } from '../../src/broker/index.js';
import { BROKER_VARIABLES, type BrokerVariable } from '../../src/broker/config/env-variables.js';
import type { TokenBrokerOptions } from '../../src/broker/config/options.js';
import {
  DEFAULT_HOST,
  DEFAULT_METRICS_HOST,
  DEFAULT_PORT,
  DEFAULT_SHUTDOWN_DELAY_MS,
  SERVE_ENV,
  SERVE_VARIABLES,
  serveSettingsFromEnv,
} from '../../broker/src/serve-env.js';

const configError = (pattern: RegExp) => (e: unknown) => e instanceof BioIDError && e.code === 'config' && pattern.test(e.message);
const HIDDEN = 'not-echoed-7f3a';
/** A config error matching `pattern` whose message does not hold HIDDEN, the value that was set. */
const namedNotEchoed = (pattern: RegExp) => (e: unknown) => configError(pattern)(e) && !(e as Error).message.includes(HIDDEN);

describe('the broker variables (src/broker/config/env-variables.ts)', () => {
  const required = {
    BIOID_CLIENT_ID: 'acme-broker',
    BIOID_CLIENT_SECRET: 'env-secret-123',
    BIOID_AUTH_URL: 'https://idp.example.com',
    BIOID_REALM: 'acme',
  };
  /** A value of each kind as an operator writes it, and what the option becomes. */
  const SAMPLES: Record<string, [string, unknown]> = {
    string: ['  some-value ', 'some-value'],
    secret: ['a-secret', 'a-secret'],
    url: ['https://x.example.com', 'https://x.example.com'],
    list: [' https://a.example.com, ,https://b.example.com ', ['https://a.example.com', 'https://b.example.com']],
    milliseconds: ['250', 250],
    boolean: ['No', false],
  };

  it('BROKER_ENV and STORE_ENV are the names the table declares, in its order', () => {
    assert.deepStrictEqual(
      Object.entries(BROKER_ENV),
      Object.entries(BROKER_VARIABLES).map(([key, { env }]) => [key, env]),
    );
    assert.deepStrictEqual(Object.values(STORE_ENV), [
      BROKER_ENV.tokenStoreUrl,
      BROKER_ENV.tokenStoreKey,
      BROKER_ENV.tokenStoreTimeoutMs,
      BROKER_ENV.tokenStoreUsername,
      BROKER_ENV.tokenStorePassword,
      BROKER_ENV.tokenStoreCaFile,
      BROKER_ENV.tokenStoreCertFile,
      BROKER_ENV.tokenStoreKeyFile,
      BROKER_ENV.tokenStoreSentinelUrls,
      BROKER_ENV.tokenStoreSentinelMaster,
      BROKER_ENV.tokenStoreClusterUrls,
    ]);
  });

  it("an entry's kind must give its option's type: tsc refuses one that does not (npm run lint)", () => {
    // @ts-expect-error: milliseconds give a number, and scope is a string
    const wrongKind: BrokerVariable = { env: 'BIOID_X', option: 'scope', kind: 'milliseconds', doc: '' };
    // @ts-expect-error: no variable can set authorize, a function
    const codeOnly: BrokerVariable = { env: 'BIOID_X', option: 'authorize', kind: 'string', doc: '' };
    const fits: BrokerVariable = { env: 'BIOID_X', option: 'storeTimeoutMs', kind: 'milliseconds', doc: '' };
    assert.deepStrictEqual([wrongKind.kind, codeOnly.kind, fits.kind], ['milliseconds', 'string', 'milliseconds']);
  });

  for (const variable of Object.values(BROKER_VARIABLES)) {
    if (variable.kind === 'store') continue;
    it(`${variable.env} (${variable.kind}) sets ${variable.option}, and an override wins without reading it`, () => {
      const [text, value] = SAMPLES[variable.kind]!;
      const options = brokerOptionsFromEnv({ ...required, [variable.env]: text }, { authorize: () => true });
      assert.deepStrictEqual(options[variable.option], value);
      const overridden = brokerOptionsFromEnv({ ...required, [variable.env]: HIDDEN }, { authorize: () => true, [variable.option]: value });
      assert.deepStrictEqual(overridden[variable.option], value);
    });
  }

  it('every option no variable sets is copied from the overrides whatever its name, so a new one cannot be dropped', () => {
    // Every option of TokenBrokerOptions: tsc (npm run lint) refuses this list while one is missing from it.
    const every: Record<keyof TokenBrokerOptions, true> = {
      issuerUrl: true,
      realm: true,
      clientId: true,
      clientSecret: true,
      audience: true,
      scope: true,
      authorize: true,
      tokenExchange: true,
      allowedOrigins: true,
      requireCsrfHeader: true,
      fetchImpl: true,
      timeoutMs: true,
      logger: true,
      middlewareUrl: true,
      onRefusal: true,
      store: true,
      storeTimeoutMs: true,
      onEvent: true,
      refusedTokenMinAgeMs: true,
      refusedTokenIntervalMs: true,
      storeLockWaitMs: true,
    };
    const setByVariables = new Set<string>(Object.values(BROKER_VARIABLES).map((variable) => variable.option));
    const codeOnly = (Object.keys(every) as (keyof TokenBrokerOptions)[]).filter((option) => !setByVariables.has(option));
    assert.includeMembers(codeOnly, ['authorize', 'tokenExchange', 'fetchImpl', 'logger', 'onRefusal', 'onEvent']);
    const given = Object.fromEntries(codeOnly.map((option) => [option, () => option]));
    const options = brokerOptionsFromEnv(required, { authorize: () => true, ...given });
    for (const option of codeOnly) assert.strictEqual(options[option], given[option], `${option} was dropped`);
  });

  it('malformed values name the variable, never the value', () => {
    for (const [name, pattern] of [
      [BROKER_ENV.timeoutMs, /BIOID_TIMEOUT_MS must be a positive whole number of milliseconds\.$/],
      [BROKER_ENV.requireCsrfHeader, /BIOID_REQUIRE_CSRF_HEADER must be true or false\.$/],
    ] as const) {
      throwsError(() => brokerOptionsFromEnv({ ...required, [name]: HIDDEN }, { authorize: () => true }), namedNotEchoed(pattern));
    }
    throwsError(() => brokerOptionsFromEnv({ ...required, BIOID_TIMEOUT_MS: '0' }, { authorize: () => true }), configError(/positive/));
  });
});

describe('the shared readers (envValue, envMilliseconds, envBoolean)', () => {
  it('trim, read blank as unset, and name the variable in their errors', () => {
    assert.strictEqual(envValue({ A: '  x ' }, 'A'), 'x');
    assert.strictEqual(envValue({ A: '   ' }, 'A'), undefined);
    assert.strictEqual(envValue({}, 'A'), undefined);
    assert.strictEqual(envMilliseconds(undefined, 'A', 'w'), undefined);
    assert.strictEqual(envMilliseconds('0', 'A', 'w', { allowZero: true }), 0);
    throwsError(
      () => envMilliseconds('0', 'A', 'w'),
      configError(/^w: environment variable A must be a positive whole number of milliseconds\.$/),
    );
    throwsError(
      () => envMilliseconds('-1', 'A', 'w', { allowZero: true }),
      configError(/^w: environment variable A must be a whole number of milliseconds \(0 or more\)\.$/),
    );
    throwsError(() => envMilliseconds('1.5', 'A', 'w'), configError(/A must be a positive whole number/));
    assert.strictEqual(envBoolean('YES', 'A', 'w'), true);
    assert.strictEqual(envBoolean('0', 'A', 'w'), false);
    assert.strictEqual(envBoolean(undefined, 'A', 'w'), undefined);
    throwsError(() => envBoolean('maybe', 'A', 'w'), configError(/^w: environment variable A must be true or false\.$/));
  });
});

describe("bioid-broker serve's variables (broker/src/serve-env.ts)", () => {
  const check = { BIOID_SESSION_CHECK_URL: 'http://127.0.0.1:8080/session-check?x=1' };

  it('SERVE_ENV and the defaults come from the table; unset variables take them', () => {
    assert.deepStrictEqual(
      Object.entries(SERVE_ENV),
      Object.entries(SERVE_VARIABLES).map(([key, { env }]) => [key, env]),
    );
    assert.deepStrictEqual(serveSettingsFromEnv(check), {
      sessionCheckUrl: 'http://127.0.0.1:8080/session-check?x=1',
      port: DEFAULT_PORT,
      host: DEFAULT_HOST,
      tokenExchange: false,
      metricsPort: undefined,
      metricsHost: DEFAULT_METRICS_HOST,
      logLevel: 'info',
      shutdownDelayMs: DEFAULT_SHUTDOWN_DELAY_MS,
    });
    assert.deepStrictEqual(
      [DEFAULT_PORT, DEFAULT_HOST, DEFAULT_METRICS_HOST, DEFAULT_SHUTDOWN_DELAY_MS],
      [8787, '127.0.0.1', '127.0.0.1', 3000],
    );
  });

  it('reads each variable of the table', () => {
    const settings = serveSettingsFromEnv({
      ...check,
      BIOID_PORT: '0',
      BIOID_HOST: ' 0.0.0.0 ',
      BIOID_TOKEN_EXCHANGE: 'true',
      BIOID_METRICS_PORT: '9464',
      BIOID_METRICS_HOST: '::1',
      BIOID_LOG_LEVEL: 'WARN',
      BIOID_SHUTDOWN_DELAY_MS: '0',
    });
    assert.deepInclude(settings, {
      port: 0,
      host: '0.0.0.0',
      tokenExchange: true,
      metricsPort: 9464,
      metricsHost: '::1',
      logLevel: 'warn',
      shutdownDelayMs: 0,
    });
  });

  it('a missing or malformed variable is an error naming it, never echoing the value', () => {
    throwsError(
      () => serveSettingsFromEnv({}),
      configError(/^bioid-broker serve: environment variable BIOID_SESSION_CHECK_URL is not set: the URL/),
    );
    const cases: [Record<string, string>, RegExp][] = [
      [{ BIOID_SESSION_CHECK_URL: `/${HIDDEN}` }, /BIOID_SESSION_CHECK_URL is not an absolute URL/],
      [{ BIOID_SESSION_CHECK_URL: `ftp://${HIDDEN}.example.com/` }, /BIOID_SESSION_CHECK_URL must be an http or https URL, not ftp:/],
      [{ BIOID_SESSION_CHECK_URL: `https://user:${HIDDEN}@example.com/` }, /BIOID_SESSION_CHECK_URL must not carry credentials/],
      [{ ...check, BIOID_PORT: '65536' }, /BIOID_PORT must be a port number \(0 to 65535; 0 picks a free one\)\.$/],
      [{ ...check, BIOID_METRICS_PORT: HIDDEN }, /BIOID_METRICS_PORT must be a port number/],
      [{ ...check, BIOID_TOKEN_EXCHANGE: HIDDEN }, /BIOID_TOKEN_EXCHANGE must be true or false\.$/],
      [{ ...check, BIOID_LOG_LEVEL: HIDDEN }, /BIOID_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent\.$/],
      [{ ...check, BIOID_SHUTDOWN_DELAY_MS: HIDDEN }, /BIOID_SHUTDOWN_DELAY_MS must be a whole number of milliseconds \(0 or more\)\.$/],
    ];
    for (const [env, pattern] of cases) {
      throwsError(() => serveSettingsFromEnv(env), namedNotEchoed(pattern));
    }
  });
});
