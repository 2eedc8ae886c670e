/**
 * Fake timers for polling, back-off and expiry tests, in Node and in Chromium: @sinonjs/fake-timers,
 * loaded through sinon's ESM bundle (the fake-timers package itself is CommonJS, which the browser test
 * server does not convert). Only timers and Date are faked (and performance.now() when asked, for code
 * that measures with it); promises still run, so `await clock.tickAsync(ms)` fires every timer due within
 * `ms` and lets the work each one starts settle.
 */
import { useFakeTimers, type SinonFakeTimers } from 'sinon';

export type FakeClock = SinonFakeTimers;

export function installFakeClock({ performance = false } = {}): FakeClock {
  return useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', ...(performance ? (['performance'] as const) : [])],
  });
}

/**
 * A fake Date only (timers stay real, so sockets and servers keep working), frozen at the real time
 * until `clock.tick(ms)` moves it: for expiry against in-process servers (broker, IdP, middleware).
 */
export function installFakeDate(): FakeClock {
  return useFakeTimers({ toFake: ['Date'], now: Date.now() });
}
