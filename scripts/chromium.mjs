// The one place that says how this project launches headless Chromium (Debian's chromium; CHROME_PATH
// overrides): web-test-runner, the end-to-end and security tests, the bench and the screenshot script.
// The networking flags keep Chromium from reaching out to hosts a closed CI network refuses.
export const chromiumPath = () => process.env.CHROME_PATH || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
