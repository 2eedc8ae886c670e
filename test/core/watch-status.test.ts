import { assert } from 'chai';
import type { ReaderStatus } from '../../src/index.js';
import { json, refuse } from '../support/fake-network.js';
import { installFakeClock, type FakeClock } from '../support/fake-clock.js';
import { LOCAL, STATUS, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

const states = (seen: ReaderStatus[]) => seen.map((s) => s.state);

// Fake timers: each poll is at an exact time (the interval, or the back-off delay), so the tests count
// polls exactly after clock.tickAsync(ms), which fires every timer due and lets its fetch settle.
describe('watchStatus: /status polling (spec 9.2, 9.3)', () => {
  let clock: FakeClock;
  beforeEach(() => {
    clock = installFakeClock();
  });
  afterEach(() => {
    clock.uninstall();
  });

  it('reports checking, then ready with the discovered ids, and afterwards only changes', async () => {
    let connected = true;
    const net = standardNetwork().on('GET', `${LOCAL}/status`, () =>
      json({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected }] }),
    );
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const seen: ReaderStatus[] = [];
    const stop = reader.watchStatus((s) => seen.push(s));
    await clock.tickAsync(80); // polls at 0, 10, …, 80
    assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 9);
    assert.deepStrictEqual(states(seen), ['checking', 'ready'], 'unchanged polls emit nothing');
    assert.strictEqual(seen[1]!.workstationId, 'ws-7');
    assert.strictEqual(seen[1]!.deviceId, 'dev-1');
    assert.strictEqual(seen[1]!.pinned, false);
    connected = false; // the device is unplugged between polls
    await clock.tickAsync(5);
    assert.deepStrictEqual(states(seen), ['checking', 'ready'], 'nothing before the next poll');
    await clock.tickAsync(5); // the poll at 90
    assert.deepStrictEqual(states(seen), ['checking', 'ready', 'no-device']);
    await clock.tickAsync(50); // polls at 100, …, 140
    assert.deepStrictEqual(states(seen), ['checking', 'ready', 'no-device'], 'the status flips once, not flapping');
    stop();
    assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 15);
  });

  it('backs off while the local service is unreachable, and says what to do', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, refuse);
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const seen: ReaderStatus[] = [];
    const stop = reader.watchStatus((s) => seen.push(s));
    const polls = () => net.callsTo(`${LOCAL}/status`).length;
    // Without back-off, 300 ms at 10 ms would be 31 polls; the delay doubles with each failure in a row:
    // 20, 40, 80, 160 → polls at 0, 20, 60, 140, 300.
    await clock.tickAsync(0);
    assert.strictEqual(polls(), 1);
    await clock.tickAsync(19);
    assert.strictEqual(polls(), 1, 'no retry before 20 ms');
    await clock.tickAsync(1);
    assert.strictEqual(polls(), 2);
    await clock.tickAsync(39);
    assert.strictEqual(polls(), 2, 'then no retry before 40 ms more');
    await clock.tickAsync(1);
    assert.strictEqual(polls(), 3);
    await clock.tickAsync(80);
    assert.strictEqual(polls(), 4);
    await clock.tickAsync(159);
    assert.strictEqual(polls(), 4);
    await clock.tickAsync(1);
    assert.strictEqual(polls(), 5, 'five polls in 300 ms');
    stop();
    assert.deepStrictEqual(states(seen), ['checking', 'unreachable']);
    assert.match(seen[1]!.message!, /companion application/);
  });

  it('stops polling when the last listener leaves, and on close()', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const stop = reader.watchStatus(() => {});
    await clock.tickAsync(35);
    assert.strictEqual(net.calls.length, 4, 'polls at 0, 10, 20, 30');
    stop();
    await clock.tickAsync(50);
    assert.strictEqual(net.calls.length, 4, 'none after the listener left');
    assert.strictEqual(clock.countTimers(), 0, 'no timer left behind');

    reader.watchStatus(() => {});
    await clock.tickAsync(25);
    assert.strictEqual(net.calls.length, 7, 'polls at 0, 10, 20 of the new loop');
    reader.close();
    await clock.tickAsync(50);
    assert.strictEqual(net.calls.length, 7, 'none after close()');
    assert.strictEqual(clock.countTimers(), 0, 'no timer left behind');
  });

  it('a second listener gets the current status without a second polling loop', async () => {
    const net = standardNetwork();
    const { reader } = readerOver(net, { statusIntervalMs: 20 });
    const first: ReaderStatus[] = [];
    const second: ReaderStatus[] = [];
    const stopFirst = reader.watchStatus((s) => first.push(s));
    await clock.tickAsync(30);
    const stopSecond = reader.watchStatus((s) => second.push(s));
    await clock.tickAsync(0);
    assert.deepStrictEqual(states(second), ['ready'], 'at once, without waiting for a poll');
    const before = net.calls.length;
    assert.strictEqual(before, 2, 'polls at 0 and 20');
    await clock.tickAsync(100);
    const polls = net.calls.length - before;
    assert.strictEqual(polls, 5, `one loop, not two: ${polls} polls in 100 ms at 20 ms (at 40, 60, 80, 100, 120)`);
    stopFirst();
    stopSecond();
  });

  it('a malformed /status is an error state with the reason', async () => {
    const net = standardNetwork().on('GET', `${LOCAL}/status`, () => json({ ...STATUS, workstationId: 7 }));
    const { reader } = readerOver(net, { statusIntervalMs: 10 });
    const seen: ReaderStatus[] = [];
    const stop = reader.watchStatus((s) => seen.push(s));
    await clock.tickAsync(0);
    stop();
    assert.deepStrictEqual(states(seen), ['checking', 'error']);
    assert.strictEqual(seen.at(-1)!.state, 'error');
    assert.match(seen.at(-1)!.message!, /workstationId must be a non-empty string/);
  });
});
