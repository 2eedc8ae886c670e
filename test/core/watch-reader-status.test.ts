/**
 * watchReaderStatus: the reader status without a middleware or a token, one page-wide poller per local
 * service (docs/core.md, "The reader"). Timers are fake: counts are exact.
 */
import { assert } from 'chai';
import { createFingerprintReader, watchReaderStatus, type ReaderStatus } from '../../src/index.js';
import { fakeNetwork, json } from '../support/fake-network.js';
import { throwsError } from '../support/expect-error.js';
import { installFakeClock, type FakeClock } from '../support/fake-clock.js';

const LOCAL = 'http://127.0.0.1:18099';
const realFetch = globalThis.fetch;

describe('watchReaderStatus (spec 9.2, 9.3)', () => {
  let clock: FakeClock;
  let net: ReturnType<typeof fakeNetwork>;

  beforeEach(() => {
    clock = installFakeClock();
    net = fakeNetwork().on('GET', `${LOCAL}/status`, () =>
      json({ workstationId: 'ws-1', devices: [{ deviceId: 'd-1', connected: true }] }),
    );
    globalThis.fetch = net.fetch as typeof fetch;
  });
  afterEach(() => {
    clock.uninstall();
    globalThis.fetch = realFetch;
  });

  it('needs no middleware and no token: checking, then ready', async () => {
    const seen: ReaderStatus[] = [];
    const stop = watchReaderStatus({ localServiceUrl: LOCAL, statusIntervalMs: 1000 }, (s) => seen.push(s));
    await clock.tickAsync(0);
    stop();
    assert.deepStrictEqual(
      seen.map((s) => s.state),
      ['checking', 'ready'],
    );
    assert.strictEqual(seen[1]!.deviceId, 'd-1');
    assert.isTrue(
      net.calls.every((c) => c.url === `${LOCAL}/status`),
      'only the local service is asked',
    );
    assert.isTrue(
      net.calls.every((c) => !c.headers.has('authorization')),
      'no token',
    );
  });

  it('listeners of one local service share one poller: two watches, one /status per interval', async () => {
    const a: ReaderStatus[] = [];
    const b: ReaderStatus[] = [];
    const stopA = watchReaderStatus({ localServiceUrl: LOCAL, statusIntervalMs: 1000 }, (s) => a.push(s));
    await clock.tickAsync(0);
    const stopB = watchReaderStatus({ localServiceUrl: LOCAL, statusIntervalMs: 1000 }, (s) => b.push(s));
    await clock.tickAsync(0);
    assert.strictEqual(b.at(-1)!.state, 'ready', 'the newcomer hears the current status at once');
    await clock.tickAsync(5000);
    assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 6, 'one poll at start, then one per second');
    stopA();
    await clock.tickAsync(3000);
    assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 9, 'still polled for the remaining listener');
    stopB();
    await clock.tickAsync(10_000);
    assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 9, 'no listener, no polling');
  });

  it('readers without a fetchImpl of their own share the page-wide poller too', async () => {
    const one = createFingerprintReader({
      getToken: 't',
      middlewareUrl: 'https://mw.example',
      localServiceUrl: LOCAL,
      statusIntervalMs: 1000,
    });
    const two = createFingerprintReader({
      getToken: 't',
      middlewareUrl: 'https://mw.example',
      localServiceUrl: LOCAL,
      statusIntervalMs: 1000,
    });
    one.watchStatus(() => {});
    two.watchStatus(() => {});
    await clock.tickAsync(2000);
    assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 3);
    one.close();
    two.close();
    await clock.tickAsync(5000);
    assert.strictEqual(net.callsTo(`${LOCAL}/status`).length, 3, "close() ends the reader's watches");
  });

  it('spec 9.3: pinned, it reports pinned and never polls', async () => {
    const seen: ReaderStatus[] = [];
    const stop = watchReaderStatus({ workstationId: 'ws-p', deviceId: 'd-p' }, (s) => seen.push(s));
    await clock.tickAsync(10_000);
    stop();
    assert.deepStrictEqual(seen, [{ state: 'pinned', pinned: true, workstationId: 'ws-p', deviceId: 'd-p' }]);
    assert.lengthOf(net.calls, 0);
  });

  it('spec 9.4: half a pin is the built-in TypeError; an unknown option is a config error', () => {
    throwsError(() => watchReaderStatus({ workstationId: 'ws-p' }, () => {}), TypeError);
    throwsError(() => watchReaderStatus({ localServiceURL: LOCAL } as never, () => {}), {
      code: 'config',
      message: /did you mean "localServiceUrl"/,
    });
  });
});
