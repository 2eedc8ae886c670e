import { assert } from 'chai';
import { throwsError, rejectsWith } from '../support/expect-error.js';
import { installFakeClock } from '../support/fake-clock.js';
import { BioID, BioIDError, createFingerprintReader } from '../../src/index.js';
import { hang, json, refuse, text } from '../support/fake-network.js';
import { LOCAL, MW, STATUS, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

const code = (expected: string, message?: RegExp) => (e: unknown) =>
  e instanceof BioIDError && e.code === expected && (!message || message.test(e.message));

describe('discovery through the local hardware service (spec 4.3, 9.2)', () => {
  it('spec 9.2: without pinning the reader asks /status and names the first connected device', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net);
    assert.strictEqual(reader.pinned, false);
    assert.deepStrictEqual(await reader.target(), { workstationId: 'ws-7', deviceId: 'dev-1' });
    await reader.verify({ subjectId: 'alice' });
    assert.deepStrictEqual(net.callsTo(`${MW}/orchestrator/verify`)[0]!.body, {
      workstationId: 'ws-7',
      deviceId: 'dev-1',
      subjectId: 'alice',
    });
  });

  it('spec 9.2: a reader whose status watch heard a ready reader lately dispatches to it without a /status of its own', async () => {
    const clock = installFakeClock();
    try {
      const net = standardNetwork();
      const { reader } = readerOver(net);
      const stop = reader.watchStatus(() => {});
      await clock.tickAsync(0);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 1);
      await reader.verify({ subjectId: 'alice' });
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 1, "the watch's poll was the discovery");
      assert.deepInclude(net.callsTo(`${MW}/orchestrator/verify`)[0]!.body, { workstationId: 'ws-7', deviceId: 'dev-1' });
      stop();
      await reader.verify({ subjectId: 'alice' });
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 2, 'a watch that stopped knows nothing: the reader asks');
    } finally {
      clock.uninstall();
    }
  });

  it('spec 9.2: a status heard more than one and a half intervals ago is not used: the reader asks /status itself', async () => {
    const clock = installFakeClock();
    try {
      const net = standardNetwork().on('GET', `${LOCAL}/status`, (call, i) => (i === 0 ? json(STATUS) : hang(call, i)));
      const { reader } = readerOver(net);
      reader.watchStatus(() => {});
      await clock.tickAsync(4_400); // heard at 0; the poll due at 3000 hangs
      const statusCalls = net.callsTo(`${LOCAL}/status`).length;
      await clock.tickAsync(200);
      const verified = reader.verify({ subjectId: 'alice' });
      await clock.tickAsync(0);
      assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, statusCalls + 1, 'the reader asked for itself');
      reader.close();
      await verified.catch(() => {});
    } finally {
      clock.uninstall();
    }
  });

  it('spec 2.1: the local service defaults to http://localhost:18065; readerServiceUrl changes it for bio.reader', async () => {
    const net = standardNetwork().on('GET', 'http://127.0.0.1:9999/status', () => json({ ...STATUS, workstationId: 'other' }));
    const bio = new BioID({ middlewareUrl: MW, fetchImpl: net.fetch, auth: { type: 'tokenProvider', getToken: async () => 't' } });
    assert.strictEqual((await bio.reader.target()).workstationId, 'ws-7');
    const moved = new BioID({
      middlewareUrl: MW,
      fetchImpl: net.fetch,
      readerServiceUrl: 'http://127.0.0.1:9999',
      auth: { type: 'tokenProvider', getToken: async () => 't' },
    });
    assert.strictEqual((await moved.reader.target()).workstationId, 'other');
    assert.strictEqual(net.calls[0]!.url, `${LOCAL}/status`);
  });

  it('an unreachable local service says to start the companion application or pin the ids', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, refuse);
    const { reader } = readerOver(net);
    await rejectsWith(
      reader.verify({ subjectId: 'alice' }),
      code('local-service-unreachable', /localhost:18065.*Start the companion application.*pin workstationId and deviceId/),
    );
    assert.strictEqual(net.callsTo(`${MW}/orchestrator/verify`).length, 0);
  });

  it('a local service that hangs is unreachable after timeoutMs', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, hang);
    await rejectsWith(readerOver(net, { timeoutMs: 40 }).reader.target(), code('local-service-unreachable', /did not answer within 40 ms/));
  });

  it('no connected device is its own error', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, () =>
      json({ workstationId: 'ws-7', devices: [{ deviceId: 'd', connected: false }] }),
    );
    await rejectsWith(
      readerOver(net).reader.enroll({ subjectId: 'alice' }),
      code('no-device', /No fingerprint reader is connected to workstation ws-7/),
    );
  });

  it('malformed /status payloads are clear local-service errors', async () => {
    const payloads = [
      text('<html>router login</html>', 200, 'text/html'),
      json({ devices: [] }),
      json({ workstationId: 'ws', devices: 'dev-1' }),
      json([1, 2]),
    ];
    for (const payload of payloads) {
      const net = standardNetwork().on('GET', `${LOCAL}/status`, () => payload.clone());
      await rejectsWith(readerOver(net).reader.target(), code('local-service', /unexpected payload/));
    }
    // A connected device without a usable id cannot be named in a dispatch (docs/wire-contract.md).
    const noId = standardNetwork().on('GET', `${LOCAL}/status`, () => json({ workstationId: 'ws', devices: [{ id: 'dev-1' }] }));
    await rejectsWith(readerOver(noId).reader.target(), code('local-service', /deviceId is not a non-empty string/));
    const failing = standardNetwork().on('GET', `${LOCAL}/status`, () => json({ error: 'driver crashed' }, 500));
    await rejectsWith(readerOver(failing).reader.target(), code('local-service', /HTTP 500: driver crashed/));
  });

  it('testCapture posts the device to the local service test-capture endpoint', async () => {
    const net = standardNetwork();
    const result = await readerOver(net).reader.testCapture();
    assert.deepStrictEqual(result, { deviceId: 'dev-1', quality: 87, image: 'data:image/png;base64,AAAA' });
    assert.deepStrictEqual(net.callsTo(`${LOCAL}/test-capture`)[0]!.body, { deviceId: 'dev-1' });
    const bad = standardNetwork().on('POST', `${LOCAL}/test-capture`, () =>
      json({ deviceId: 'dev-1', quality: 5, image: 'javascript:alert(1)' }),
    );
    await rejectsWith(readerOver(bad).reader.testCapture(), code('local-service', /image must be a data:image/));
  });

  it('fetchEnrolled reads the middleware biometrics endpoint', async () => {
    const net = standardNetwork();
    const records = await readerOver(net).reader.fetchEnrolled({ subjectId: 'alice' });
    assert.strictEqual(records.records?.length, 1);
    assert.strictEqual(net.calls.filter((c) => c.url.startsWith(LOCAL)).length, 0, 'no discovery needed to read records');
  });
});

describe('dispatch pinning (spec 9)', () => {
  it('spec 9.3: with both ids the reader never contacts the local service and uses the ids unchanged on every dispatch', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { workstationId: 'ws-pinned', deviceId: 'dev-pinned' });
    assert.strictEqual(reader.pinned, true);
    await reader.enroll({ subjectId: 'alice' });
    await reader.verify({ subjectId: 'alice' });
    await reader.search();
    assert.strictEqual(net.calls.filter((c) => c.url.startsWith(LOCAL)).length, 0);
    for (const call of net.calls) {
      const body = call.body as { workstationId: string; deviceId: string };
      assert.strictEqual(body.workstationId, 'ws-pinned');
      assert.strictEqual(body.deviceId, 'dev-pinned');
    }
  });

  it("an operation's own target is the caller's choice for that dispatch, a pinned reader's too; the next dispatch names the pin again", async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { workstationId: 'ws-pinned', deviceId: 'dev-pinned' });
    await reader.verify({ subjectId: 'alice', target: { workstationId: 'ws-other', deviceId: 'dev-other' } });
    await reader.verify({ subjectId: 'alice' });
    const bodies = net.callsTo(`${MW}/orchestrator/verify`).map((c) => c.body as { workstationId: string; deviceId: string });
    assert.deepStrictEqual(
      bodies.map((b) => [b.workstationId, b.deviceId]),
      [
        ['ws-other', 'dev-other'],
        ['ws-pinned', 'dev-pinned'],
      ],
    );
    assert.strictEqual(net.calls.filter((c) => c.url.startsWith(LOCAL)).length, 0);
  });

  it('spec 9.3: a pinned reader starts no /status polling', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { workstationId: 'ws-pinned', deviceId: 'dev-pinned', statusIntervalMs: 5 });
    const seen: unknown[] = [];
    const clock = installFakeClock();
    try {
      const stop = reader.watchStatus((s) => seen.push(s));
      await clock.tickAsync(1000); // 200 intervals
      assert.strictEqual(clock.countTimers(), 0, 'no poll scheduled');
      stop();
    } finally {
      clock.uninstall();
    }
    assert.deepStrictEqual(seen, [{ state: 'pinned', pinned: true, workstationId: 'ws-pinned', deviceId: 'dev-pinned' }]);
    assert.strictEqual(net.calls.length, 0);
  });

  it('spec 9.4: half a pin throws TypeError from createFingerprintReader itself', () => {
    for (const half of [{ workstationId: 'ws' }, { deviceId: 'dev' }]) {
      throwsError(
        () => createFingerprintReader({ middlewareUrl: MW, getToken: 't', ...half }),
        (e: unknown) => e instanceof TypeError && !(e instanceof BioIDError) && /workstationId and deviceId/.test((e as Error).message),
      );
    }
  });

  it('spec 9.4: half a pin on a BioID instance throws the same TypeError', () => {
    assert.throws(
      () => new BioID({ middlewareUrl: MW, workstationId: 'ws', auth: { type: 'tokenProvider', getToken: async () => 't' } }),
      TypeError,
    );
  });

  it('spec 9.5: pinning is not a no-hardware mode: an offline pinned workstation is the 503 error', async () => {
    const net = standardNetwork().on('POST', `${MW}/orchestrator/enroll`, () =>
      json({ error: 'workstation_offline', message: 'Target workstation is not currently live.' }, 503),
    );
    await rejectsWith(
      readerOver(net, { workstationId: 'ws-off', deviceId: 'd' }).reader.enroll({ subjectId: 'a' }),
      code('workstation-offline'),
    );
  });
});

describe('reader configuration (spec 2.3)', () => {
  it('spec 2.3: getToken and middlewareUrl are required, errors name the field', () => {
    throwsError(() => createFingerprintReader({ middlewareUrl: MW } as never), code('config', /getToken is required/));
    throwsError(() => createFingerprintReader({ getToken: 't' } as never), code('config', /middlewareUrl is required/));
    throwsError(
      () => createFingerprintReader({ getToken: 't', middlewareUrl: MW, localServiceUrl: 'localhost:18065' }),
      code('config', /localServiceUrl/),
    );
    throwsError(() => createFingerprintReader({ getToken: 't', middlewareUrl: MW, timeoutMs: -1 }), code('config', /timeoutMs/));
    throwsError(() => createFingerprintReader(null as never), code('config', /createFingerprintReader\(config\) must be an object/));
  });
});
