/**
 * `waitUntil` of @open-wc/testing for browser tests, with a bound fit for a loaded machine. A test waits
 * for a state the code reaches (a request sent, a word shown, an event fired); the bound sets no pace, it
 * only turns a state that never comes into a failure that names it before mocha's test timeout
 * (web-test-runner.config.mjs) ends the test without a word. @open-wc/testing's default of 1 s is a pace:
 * on the 2-core CI machine, with three engines running at once, a frame's script took longer than that.
 */
import { waitUntil as openWcWaitUntil } from '@open-wc/testing';

export const WAIT_MS = 8000;

export function waitUntil(
  predicate: () => unknown | Promise<unknown>,
  message?: string,
  options: { interval?: number; timeout?: number } = {},
): Promise<void> {
  return openWcWaitUntil(predicate, message, { timeout: WAIT_MS, ...options });
}
