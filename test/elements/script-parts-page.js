// The page script of /__test/parts/page (web-test-runner.config.mjs): external, as the page's CSP demands.
// Records what test/elements/script-parts.browser.test.ts reads: CSP violations, bio-error events, errors, console warnings.
window.__seen = { violations: [], errors: [], bioErrors: [], warnings: [], firstWord: undefined };
const warn = console.warn;
console.warn = (...args) => {
  window.__seen.warnings.push(args.join(' '));
  warn.apply(console, args);
};
document.addEventListener('securitypolicyviolation', (e) => window.__seen.violations.push(`${e.violatedDirective} ${e.blockedURI}`));
window.addEventListener('error', (e) => window.__seen.errors.push(String(e.message)));
window.addEventListener('unhandledrejection', (e) => window.__seen.errors.push(String(e.reason)));
document.addEventListener('bio-error', (e) => window.__seen.bioErrors.push({ tag: e.target.localName, ...e.detail }));
