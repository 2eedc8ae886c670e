/**
 * src/core/baseline.ts in Node and the browsers: AbortSignal.any's fallback, taken where the engine has none
 * (its own AbortSignal.any is set aside for the test and put back), and the check that names what the SDK
 * needs and has no fallback for. test/elements/old-browsers.browser.test.ts runs the elements the same way,
 * from the built script.
 */
import { assert } from 'chai';
import { anySignal, requireBaseline } from '../../src/core/baseline.js';
import { throwsError } from '../support/expect-error.js';

/** Runs `body` with `name` taken off `owner`, then puts it back. */
function without(owner: object, name: string, body: () => void): void {
  const own = Object.getOwnPropertyDescriptor(owner, name)!;
  assert.exists(own, `${name} is there to take away`);
  delete (owner as Record<string, unknown>)[name];
  try {
    body();
  } finally {
    Object.defineProperty(owner, name, own);
  }
}

describe('the browser baseline at run time (src/core/baseline.ts)', () => {
  it('without AbortSignal.any: the combined signal aborts with the first reason, and at once for an input already aborted', () => {
    without(AbortSignal, 'any', () => {
      const [a, b] = [new AbortController(), new AbortController()];
      const combined = anySignal([a.signal, b.signal]);
      assert.isFalse(combined.aborted);
      b.abort('second');
      a.abort('first');
      assert.isTrue(combined.aborted);
      assert.equal(combined.reason, 'second');

      const done = new AbortController();
      done.abort('already');
      const early = anySignal([new AbortController().signal, done.signal]);
      assert.isTrue(early.aborted);
      assert.equal(early.reason, 'already');
    });
  });

  it('with AbortSignal.any: the same, through the engine’s own', () => {
    const a = new AbortController();
    const combined = anySignal([a.signal]);
    a.abort('why');
    assert.equal(combined.reason, 'why');
  });

  it('an engine without the reason an abort carries is too old: browser-too-old, naming it', () => {
    requireBaseline();
    without(AbortSignal.prototype, 'reason', () => {
      throwsError(() => requireBaseline(), {
        name: 'BioIDError',
        code: 'browser-too-old',
        retryable: false,
        message: /AbortSignal\.reason/,
      });
    });
  });
});
