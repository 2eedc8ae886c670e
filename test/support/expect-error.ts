/**
 * Error expectations chai's assert cannot express: an error checked by its properties or by a
 * validation function, and a promise that must reject. Runtime-neutral (Node and Chromium).
 *
 * `expected` is one of:
 * - an Error class: the error must be an instance of it;
 * - a RegExp: it must match String(error) ("Name: message");
 * - an object: each property of the error must equal the given value, or match the given RegExp
 *   (`{ name: 'BioIDError', code: 'timeout', message: /within 50 ms/ }`);
 * - a validation function: it must return exactly `true` (it may also throw its own assertion error).
 *
 * Both helpers return the caught error, for further assertions.
 */
import { assert } from 'chai';

type ErrorClass = abstract new (...args: never[]) => Error;
type Validate = (error: never) => boolean;
type Properties = { readonly [key: string]: unknown };

export type ErrorExpectation = ErrorClass | RegExp | Validate | Properties;

const describeError = (error: unknown): string => {
  if (!(error instanceof Error)) return `a non-Error value ${String(error)}`;
  const code = (error as { code?: unknown }).code;
  return `${error.name}${code === undefined ? '' : ` (code ${JSON.stringify(code)})`}: ${error.message}`;
};

const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && (value === Error || value.prototype instanceof Error);

function check(error: unknown, expected: ErrorExpectation | undefined, message: string | undefined): void {
  const fail = (why: string): never => assert.fail(`${message ? `${message}: ` : ''}${why}; got ${describeError(error)}`);
  if (expected === undefined) return;
  if (isErrorClass(expected)) {
    if (!(error instanceof expected)) fail(`expected an instance of ${expected.name}`);
  } else if (expected instanceof RegExp) {
    if (!expected.test(String(error))) fail(`expected an error matching ${String(expected)}`);
  } else if (typeof expected === 'function') {
    if ((expected as (error: unknown) => unknown)(error) !== true) fail('the validation function did not return true');
  } else {
    if (typeof error !== 'object' || error === null) fail('expected an error object');
    for (const [key, want] of Object.entries(expected)) {
      const got = (error as Record<string, unknown>)[key];
      if (want instanceof RegExp) {
        if (typeof got !== 'string' || !want.test(got)) fail(`expected error.${key} to match ${String(want)}`);
      } else {
        assert.deepStrictEqual(got, want, `${message ? `${message}: ` : ''}error.${key} (${describeError(error)})`);
      }
    }
  }
}

/** Calls `fn`, which must throw an error meeting `expected`; returns that error. */
export function throwsError<E extends Error>(fn: () => unknown, expected: abstract new (...args: never[]) => E, message?: string): E;
export function throwsError(fn: () => unknown, expected?: ErrorExpectation, message?: string): unknown;
export function throwsError(fn: () => unknown, expected?: ErrorExpectation, message?: string): unknown {
  try {
    fn();
  } catch (error) {
    check(error, expected, message);
    return error;
  }
  return assert.fail(message ?? 'expected the function to throw, but it returned');
}

/** Awaits `promise` (or the promise `fn` returns), which must reject with an error meeting `expected`; returns that error. */
export async function rejectsWith<E extends Error>(
  promise: Promise<unknown> | (() => Promise<unknown>),
  expected: abstract new (...args: never[]) => E,
  message?: string,
): Promise<E>;
export async function rejectsWith(
  promise: Promise<unknown> | (() => Promise<unknown>),
  expected?: ErrorExpectation,
  message?: string,
): Promise<unknown>;
export async function rejectsWith(
  promise: Promise<unknown> | (() => Promise<unknown>),
  expected?: ErrorExpectation,
  message?: string,
): Promise<unknown> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    check(error, expected, message);
    return error;
  }
  return assert.fail(message ?? 'expected the promise to reject, but it resolved');
}
