// node:test in the browser: the same describe/it/before/after names, backed by mocha's globals.
const g = globalThis;
export const describe = (name, fn) => g.describe(name, fn);
export const it = (name, optionsOrFn, maybeFn) => {
  const fn = typeof optionsOrFn === 'function' ? optionsOrFn : maybeFn;
  const options = typeof optionsOrFn === 'object' && optionsOrFn ? optionsOrFn : {};
  if (options.skip) return g.it.skip(name, fn);
  return g.it(name, fn.length > 0 ? function (done) { return fn(undefined, done); } : function () { return fn(); });
};
export const test = it;
export const before = (fn) => g.before(fn);
export const after = (fn) => g.after(fn);
export const beforeEach = (fn) => g.beforeEach(fn);
export const afterEach = (fn) => g.afterEach(fn);
export default it;
