/**
 * Fake timers for polling, back-off and expiry tests, in Node and in Chromium: @sinonjs/fake-timers,
 * loaded through sinon's ESM bundle (the fake-timers package itself is CommonJS, which the browser test
 * server does not convert). Only timers and Date are faked; promises still run, so `await
 * clock.tickAsync(ms)` fires every timer due within `ms` and lets the work each one starts settle.
 */
import { useFakeTimers, type SinonFakeTimers } from 'sinon';

export type FakeClock = SinonFakeTimers;

export function installFakeClock(): FakeClock {
  return useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
}
