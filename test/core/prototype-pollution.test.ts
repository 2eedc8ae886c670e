/**
 * A polluted Object.prototype (another library on the page) never configures the SDK.
 * Options, pins and page defaults are read from own properties only.
 */
import { assert } from 'chai';
import { createFingerprintReader } from '../../src/index.js';
import { LOCAL, MW, standardNetwork } from '../support/sdk-fixtures.js';

const proto = Object.prototype as Record<string, unknown>;

describe('a polluted Object.prototype', () => {
  afterEach(() => {
    delete proto.workstationId;
    delete proto.deviceId;
    delete proto.timeoutMs;
    delete proto.agentId;
    delete proto.target;
  });

  it('inherited agentId and target do not reach a dispatch', async () => {
    proto.agentId = 'attacker-agent';
    proto.target = { workstationId: 'attacker-ws', deviceId: 'attacker-dev' };
    const net = standardNetwork();
    const reader = createFingerprintReader({ getToken: 't', middlewareUrl: MW, fetchImpl: net.fetch });
    await reader.verify({ subjectId: 'alice' });
    assert.deepStrictEqual(net.callsTo(`${MW}/orchestrator/verify`)[0]!.body, {
      workstationId: 'ws-7',
      deviceId: 'dev-1',
      subjectId: 'alice',
    });
  });

  it('inherited workstationId/deviceId do not pin a reader: it discovers through the local service', async () => {
    proto.workstationId = 'attacker-ws';
    proto.deviceId = 'attacker-dev';
    const net = standardNetwork();
    const reader = createFingerprintReader({ getToken: 't', middlewareUrl: MW, fetchImpl: net.fetch });
    assert.isFalse(reader.pinned);
    await reader.enroll({ subjectId: 'alice' });
    assert.lengthOf(net.callsTo(`${LOCAL}/status`), 1);
    assert.deepInclude(net.callsTo(`${MW}/orchestrator/enroll`)[0]!.body as object, { workstationId: 'ws-7', deviceId: 'dev-1' });
  });

  it('an inherited option is not read (timeoutMs stays the default, no config error from a bad value)', () => {
    proto.timeoutMs = -1;
    assert.doesNotThrow(() => createFingerprintReader({ getToken: 't', middlewareUrl: MW }));
  });
});
