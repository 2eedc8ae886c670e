/** The options of `bioid-simulator`: defaults, environment, flags, and errors that name the option. */
import { assert } from 'chai';
import { readSimulatorConfig, UsageError } from '../../simulator/src/config.js';
import { throwsError } from '../support/expect-error.js';

describe('simulator: options', () => {
  it('defaults: the ports of the quick start, the demo integrator, alice enrolled', () => {
    const config = readSimulatorConfig([], {});
    assert.deepInclude(config, {
      idpPort: 18080,
      middlewarePort: 18081,
      localServicePort: 18065,
      brokerPort: 18082,
      clientId: 'demo-integrator',
      realm: 'bioid-demo',
      help: false,
    });
    assert.deepStrictEqual(config.enroll, ['alice']);
    assert.deepStrictEqual(config.captureDelayMs, [600, 1200]);
    assert.isTrue(config.defaulted.has('clientSecret'));
  });

  it('flags win over the environment; port 0 is any free port; --enroll "" enrolls nobody', () => {
    const config = readSimulatorConfig(['--broker-port', '0', '--middleware-port=0', '--enroll', '', '--capture-delay-ms', '30'], {
      BIOID_BROKER_PORT: '9000',
      BIOID_IDP_PORT: '0',
      BIOID_CLIENT_SECRET: 's3cret',
      BIOID_SIM_ENROLL: 'bob',
    });
    assert.deepInclude(config, { brokerPort: 0, middlewarePort: 0, idpPort: 0, clientSecret: 's3cret' });
    assert.deepStrictEqual(config.enroll, []);
    assert.deepStrictEqual(config.captureDelayMs, [30, 30]);
    assert.isFalse(config.defaulted.has('clientSecret'), 'a secret from the environment is never printed');
    assert.deepStrictEqual(readSimulatorConfig([], { BIOID_SIM_ENROLL: 'alice, bob,alice' }).enroll, ['alice', 'bob']);
    assert.isTrue(readSimulatorConfig(['--help'], {}).help);
  });

  it('a wrong option or value is named, with what to do', () => {
    throwsError(() => readSimulatorConfig(['--port', '0'], {}), { name: 'UsageError', message: /Unknown option --port\.\nOptions/ });
    throwsError(() => readSimulatorConfig(['--broker-port'], {}), UsageError);
    throwsError(() => readSimulatorConfig(['18080'], {}), { message: /Unexpected argument "18080"/ });
    throwsError(() => readSimulatorConfig([], { BIOID_BROKER_PORT: '65536' }), {
      message: /BIOID_BROKER_PORT \/ --broker-port must be a port number 0-65535/,
    });
    throwsError(() => readSimulatorConfig(['--capture-delay-ms', 'fast'], {}), {
      message: /--capture-delay-ms must be "600-1200" or "800"/,
    });
    throwsError(() => readSimulatorConfig(['--client-id', ' '], {}), { message: /--client-id must not be empty/ });
    throwsError(() => readSimulatorConfig(['--enroll', 'a\u0007b'], {}), { message: /is not a subject id/ });
  });
});
