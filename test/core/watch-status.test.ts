import { assert } from 'chai';
import type { ReaderStatus } from '../../src/index.js';
import { json, refuse, tick } from '../support/fake-network.js';
import { LOCAL, STATUS, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

const states = (seen: ReaderStatus[]) => seen.map((s) => s.state);

describe('watchStatus: /status polling (spec 9.2, 9.3)', () => {
  it('reports checking, then ready with the discovered ids, and afterwards only changes', async () => {
    let connected = true;
    const net = standardNetwork().on('GET', `${LOCAL}/status`, () =>
      json({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected }] }),
    );
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const seen: ReaderStatus[] = [];
    const stop = reader.watchStatus((s) => seen.push(s));
    await tick(80);
    assert.deepStrictEqual(states(seen), ['checking', 'ready'], 'unchanged polls emit nothing');
    assert.strictEqual(seen[1]!.workstationId, 'ws-7');
    assert.strictEqual(seen[1]!.deviceId, 'dev-1');
    assert.strictEqual(seen[1]!.pinned, false);
    connected = false; // the device is unplugged between polls
    await tick(60);
    assert.deepStrictEqual(states(seen), ['checking', 'ready', 'no-device'], 'the status flips once, not flapping');
    stop();
    assert.ok(net.callsTo(`${LOCAL}/status`).length >= 5);
  });

  it('backs off while the local service is unreachable, and says what to do', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, refuse);
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const seen: ReaderStatus[] = [];
    const stop = reader.watchStatus((s) => seen.push(s));
    await tick(300);
    stop();
    const polls = net.callsTo(`${LOCAL}/status`).length;
    // Without back-off, 300 ms at 10 ms would be ~30 polls; doubling gives 10, 20, 40, 80, 160 → about 5.
    assert.ok(polls >= 3 && polls <= 7, `polled ${polls} times`);
    assert.deepStrictEqual(states(seen), ['checking', 'unreachable']);
    assert.match(seen[1]!.message!, /companion application/);
  });

  it('stops polling when the last listener leaves, and on close()', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const stop = reader.watchStatus(() => {});
    await tick(35);
    stop();
    const afterStop = net.calls.length;
    await tick(50);
    assert.strictEqual(net.calls.length, afterStop);

    reader.watchStatus(() => {});
    await tick(25);
    reader.close();
    const afterClose = net.calls.length;
    await tick(50);
    assert.strictEqual(net.calls.length, afterClose);
  });

  it('a second listener gets the current status without a second polling loop', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { statusIntervalMs: 20 });
    const first: ReaderStatus[] = [];
    const second: ReaderStatus[] = [];
    const stopFirst = reader.watchStatus((s) => first.push(s));
    await tick(30);
    const stopSecond = reader.watchStatus((s) => second.push(s));
    await tick(5);
    assert.strictEqual(second[0]!.state, 'ready');
    const before = net.calls.length;
    await tick(100);
    const polls = net.calls.length - before;
    assert.ok(polls <= 6, `one loop, not two: ${polls} polls in 100 ms at 20 ms`);
    stopFirst();
    stopSecond();
  });

  it('a malformed /status is an error state with the reason', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, () => json({ ...STATUS, workstationId: 7 }));
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const seen: ReaderStatus[] = [];
    const stop = reader.watchStatus((s) => seen.push(s));
    await tick(30);
    stop();
    assert.strictEqual(seen.at(-1)!.state, 'error');
    assert.match(seen.at(-1)!.message!, /workstationId must be a non-empty string/);
  });
});
