// The page script of /__test/placement/<placement> (web-test-runner.config.mjs), run before the SDK's script:
// the elements' settings as page defaults, a record of what test/elements/placement.browser.test.ts reads (page
// errors, bio-error events), and the two ways a page adds what the markup does not hold.
window.BioIDElementsConfig = { middlewareUrl: '/__test/none', tokenEndpoint: '/__test/none', localServiceUrl: '/__test/none' };
window.__seen = { errors: [], bioErrors: [] };
window.addEventListener('error', (e) => window.__seen.errors.push(String(e.message)));
window.addEventListener('unhandledrejection', (e) => window.__seen.errors.push(String(e.reason)));
document.addEventListener('bio-error', (e) => window.__seen.bioErrors.push({ tag: e.target.localName, ...e.detail }));

/** Every tag, from the page's template, at the end of <body>: a framework or a page script rendering them. */
window.insertTags = () => document.body.append(document.importNode(document.getElementById('tags').content, true));

/** The SDK's script, added at the end of <body> as a tag manager adds scripts (an added script runs whenever it arrives). */
window.addScript = () => document.body.append(Object.assign(document.createElement('script'), { src: '/dist/bioid-elements.js' }));
