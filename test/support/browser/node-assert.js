// The subset of node:assert/strict the shared tests use, for Chromium.
class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AssertionError';
  }
}

const show = (v) => {
  try {
    return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

function isDeepEqual(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((v, i) => isDeepEqual(v, b[i]));
  if (a instanceof Date) return a.getTime() === b.getTime();
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && isDeepEqual(a[k], b[k]));
}

function check(error, expected, message) {
  if (expected === undefined) return;
  const isErrorClass = typeof expected === 'function' && (expected === Error || Error.isPrototypeOf(expected));
  if (isErrorClass) {
    if (error instanceof expected) return;
    throw new AssertionError(message ?? `Expected ${expected.name}, got ${error?.name}: ${error?.message}`);
  }
  if (typeof expected === 'function') {
    if (expected(error) === true) return;
    throw new AssertionError(message ?? `The validation function rejected: ${error?.message}`);
  }
  if (expected instanceof RegExp) {
    if (expected.test(String(error?.message ?? error))) return;
    throw new AssertionError(message ?? `${show(error?.message)} does not match ${expected}`);
  }
  if (typeof expected === 'object') {
    for (const [key, want] of Object.entries(expected)) {
      const got = error?.[key];
      const ok = want instanceof RegExp ? typeof got === 'string' && want.test(got) : isDeepEqual(got, want);
      if (!ok) throw new AssertionError(message ?? `error.${key} is ${show(got)}, expected ${show(want)}`);
    }
  }
}

function assert(value, message) {
  if (!value) throw new AssertionError(message ?? `Expected a truthy value, got ${show(value)}`);
}
assert.ok = assert;
assert.equal = (a, b, m) => {
  if (!Object.is(a, b)) throw new AssertionError(m ?? `${show(a)} !== ${show(b)}`);
};
assert.strictEqual = assert.equal;
assert.notEqual = (a, b, m) => {
  if (Object.is(a, b)) throw new AssertionError(m ?? `${show(a)} === ${show(b)}`);
};
assert.notStrictEqual = assert.notEqual;
assert.deepEqual = (a, b, m) => {
  if (!isDeepEqual(a, b)) throw new AssertionError(m ?? `${show(a)} does not deep-equal ${show(b)}`);
};
assert.deepStrictEqual = assert.deepEqual;
assert.notDeepEqual = (a, b, m) => {
  if (isDeepEqual(a, b)) throw new AssertionError(m ?? `${show(a)} deep-equals ${show(b)}`);
};
assert.match = (s, re, m) => {
  if (typeof s !== 'string' || !re.test(s)) throw new AssertionError(m ?? `${show(s)} does not match ${re}`);
};
assert.doesNotMatch = (s, re, m) => {
  if (typeof s !== 'string' || re.test(s)) throw new AssertionError(m ?? `${show(s)} matches ${re}`);
};
assert.fail = (m) => {
  throw new AssertionError(m ?? 'Failed');
};
assert.throws = (fn, expected, message) => {
  try {
    fn();
  } catch (error) {
    check(error, expected, message);
    return;
  }
  throw new AssertionError(message ?? 'Missing expected exception.');
};
assert.doesNotThrow = (fn) => fn();
assert.rejects = async (promiseOrFn, expected, message) => {
  try {
    await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
  } catch (error) {
    check(error, expected, message);
    return;
  }
  throw new AssertionError(message ?? 'Missing expected rejection.');
};
assert.doesNotReject = async (p) => {
  await (typeof p === 'function' ? p() : p);
};
assert.AssertionError = AssertionError;
assert.strict = assert;
export default assert;
export const { ok, equal, notEqual, deepEqual, match, fail, throws, rejects } = assert;
