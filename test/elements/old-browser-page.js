// The page script of /__test/old-browser (web-test-runner.config.mjs), run before dist/bioid-elements.js: it
// makes the engine as old as the browser baseline lets it be (docs/elements.md, "Browsers"), for
// test/elements/old-browsers.browser.test.ts. Every API newer than the baseline that code could reach for is
// taken away, and CSS light-dark() is made unknown (each stylesheet that Lit adopts has it renamed), so the
// script meets a browser that has neither. With ?without=reason, the reason an abort carries goes too:
// something the SDK needs and has no fallback for (a browser below the baseline).
// Records what the test reads: what was taken away, bio-error events, page errors.
window.__seen = { removed: [], errors: [], bioErrors: [] };
window.addEventListener('error', (e) => window.__seen.errors.push(String(e.message)));
window.addEventListener('unhandledrejection', (e) => window.__seen.errors.push(String(e.reason)));
document.addEventListener('bio-error', (e) => window.__seen.bioErrors.push({ tag: e.target.localName, ...e.detail }));

// Newer than Chrome 109, Firefox 115 or Safari 16.4 (where the engine has them at all).
const NEWER = {
  AbortSignal: [AbortSignal, ['any', 'timeout']],
  Promise: [Promise, ['withResolvers', 'try']],
  Object: [Object, ['groupBy']],
  Map: [Map, ['groupBy']],
  Array: [Array, ['fromAsync']],
  'Array.prototype': [Array.prototype, ['toSorted', 'toReversed', 'toSpliced', 'with']],
  'String.prototype': [String.prototype, ['isWellFormed', 'toWellFormed']],
  'Set.prototype': [
    Set.prototype,
    ['union', 'intersection', 'difference', 'symmetricDifference', 'isSubsetOf', 'isSupersetOf', 'isDisjointFrom'],
  ],
  URL: [URL, ['canParse', 'parse']],
};
if (new URLSearchParams(location.search).get('without') === 'reason') NEWER['AbortSignal.prototype'] = [AbortSignal.prototype, ['reason']];
for (const [owner, [object, names]] of Object.entries(NEWER)) {
  for (const name of names) {
    if (!(name in object)) continue;
    delete object[name];
    if (name in object) throw new Error(`${owner}.${name} could not be removed`);
    window.__seen.removed.push(`${owner}.${name}`);
  }
}

// light-dark() (Chrome 123, Firefox 120, Safari 17.5) unknown, in declarations and in @supports conditions
// alike, as an engine without it reads the text.
const replaceSync = CSSStyleSheet.prototype.replaceSync;
CSSStyleSheet.prototype.replaceSync = function (text) {
  return replaceSync.call(this, String(text).replaceAll('light-dark(', 'no-light-dark('));
};
