/**
 * `<bio-diagnostics>` (docs/elements.md): each row has
 * its own status word (ok, blocked, unreachable, refused) and shows its cause; the report never holds a
 * token. The broker, the local service and the middleware are the fake network of network.ts, except
 * where a real browser refusal is the point (CORS): there the test server's second origin answers
 * without CORS headers.
 */
import { expect, fixture } from '@open-wc/testing';
import '../../src/elements/index.js';
import type { BioDiagnostics } from '../../src/elements/index.js';
import { json, refuse, text } from '../support/fake-network.js';
import { waitUntil } from '../support/wait.js';
import { ATTRS, LOCAL, MIDDLEWARE, TOKEN_PATH, everythingVisible, installNetwork, restoreNetwork, type Net } from './network.js';

const realFetch = globalThis.fetch;
const TOKEN = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJkaWFnIn0.DIAGTOKENfeedface';
const TOKEN_MARK = 'DIAGTOKENfeedface';
/** A 1×1 PNG. */
const IMAGE = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The usual fake world, plus the test capture and the middleware's root (401 without a token). */
function world(override?: (net: Net) => void): Net {
  return installNetwork((net) => {
    net
      .on('GET', TOKEN_PATH, () => json({ access_token: TOKEN, expires_in: 300 }))
      .on('POST', `${LOCAL}/test-capture`, (call) =>
        json({ deviceId: (call.body as { deviceId: string }).deviceId, quality: 88, image: IMAGE }),
      )
      .on('GET', `${MIDDLEWARE}/`, () => json({ error: 'invalid_token', message: 'A bearer token is required.' }, 401));
    override?.(net);
  });
}

/** The element after its checks, and each row's status word, text and error detail. */
async function diagnose(attributes = ATTRS, lang = 'en') {
  const el = await fixture<BioDiagnostics>(`<bio-diagnostics ${attributes} lang="${lang}"></bio-diagnostics>`);
  const report = await el.start();
  await el.updateComplete;
  const row = (id: string) => {
    const dd = el.shadowRoot!.querySelector(`[part="row"][data-row="${id}"]`)!;
    return {
      status: dd.querySelector('[part="word"]')?.getAttribute('data-status'),
      text: dd.textContent!.replace(/\s+/g, ' ').trim(),
      detail: dd.querySelector('[part="error"]')?.textContent ?? '',
    };
  };
  return { el, report, row };
}

describe('<bio-diagnostics>', () => {
  let net: Net;
  afterEach(restoreNetwork);

  it('a finding breaks between its words, never inside an id that fits a line ("ws-demo-1: reader-left-1" never leaves "1" alone)', async () => {
    net = world((n) =>
      n.on('GET', `${LOCAL}/status`, () => json({ workstationId: 'ws-demo-1', devices: [{ deviceId: 'reader-left-1', connected: true }] })),
    );
    const el = await fixture<BioDiagnostics>(`<bio-diagnostics ${ATTRS} style="inline-size: 60em"></bio-diagnostics>`);
    await el.start();
    await el.updateComplete;
    const finding = el.shadowRoot!.querySelector('[data-row="local-service"] [part="finding"]')!;
    expect(finding.textContent!.replace(/\s+/g, ' ').trim()).to.equal('ws-demo-1: reader-left-1');
    const walker = document.createTreeWalker(finding, NodeFilter.SHOW_TEXT);
    const texts: Text[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
    /** The finding's text from `from` (its start when absent) to the end of `to`, across its text nodes. */
    const textRange = (to: string, from?: string) => {
      const range = document.createRange();
      const start = from === undefined ? texts[0]! : texts.find((t) => t.data.includes(from))!;
      range.setStart(start, from === undefined ? 0 : start.data.indexOf(from));
      const end = texts.find((t) => t.data.includes(to))!;
      range.setEnd(end, end.data.indexOf(to) + to.length);
      return range;
    };
    // The panel narrowed until "ws-demo-1: reader-" fits a line and "ws-demo-1: reader-left-1" does not: the
    // width where a browser breaks after a hyphen of the id unless the id is kept whole.
    const fits = textRange('reader-').getBoundingClientRect().width;
    const whole = textRange('reader-left-1').getBoundingClientRect().width;
    el.style.inlineSize = `${el.getBoundingClientRect().width - finding.getBoundingClientRect().width + (fits + whole) / 2}px`;
    await el.updateComplete;
    const boxes = [...textRange('reader-left-1', 'reader-left-1').getClientRects()].filter((r) => r.width > 0);
    expect(boxes, 'reader-left-1 on one line').to.have.length(1);
  });

  it('all is well: local service with workstation and devices, test capture with image and quality, a token, a middleware that answers, versions', async () => {
    net = world();
    const { el, report, row } = await diagnose();
    expect(row('local-service')).to.include({ status: 'ok' });
    expect(row('local-service').text).to.contain('ws-7: dev-1 (U.are.U)');
    expect(row('test-capture')).to.include({ status: 'ok' });
    expect(row('test-capture').text).to.contain('quality 88');
    // The status word stands apart from its finding ("ok  quality 88", never "okquality 88"), by the row's gap:
    // the built script's templates keep no whitespace between the two.
    const capture = el.shadowRoot!.querySelector('[data-row="test-capture"]')!;
    const word = capture.querySelector('[part="word"]')!.getBoundingClientRect();
    expect(capture.querySelector('[part="finding"]')!.getBoundingClientRect().left - word.right).to.be.greaterThan(4);
    expect(capture.querySelector('[part="finding"]')!.textContent).to.contain('quality 88');
    expect(el.shadowRoot!.querySelector('img[part="image"]')!.getAttribute('src')).to.equal(IMAGE);
    expect(row('token-broker').status).to.equal('ok');
    expect(row('middleware')).to.include({ status: 'ok' });
    expect(row('middleware').text).to.contain('reachable (HTTP 401 without a token)');
    expect(row('sdk').text).to.match(/^\d+\.\d+\.\d+/);
    expect(row('browser').text).to.equal(navigator.userAgent);
    // The middleware is asked without a token (docs/wire-contract.md); the capture names the discovered device.
    const root = net.calls.find((c) => c.url === `${MIDDLEWARE}/`)!;
    expect(root.method).to.equal('GET');
    expect(root.headers.has('authorization')).to.equal(false);
    expect(net.calls.find((c) => c.path === '/test-capture')!.body).to.deep.equal({ deviceId: 'dev-1' });
    expect(report).to.match(/^local-service: ok ws-7: dev-1 \(U\.are\.U\)$/m);
    expect(report).to.match(/^test-capture: ok quality 88$/m);
    expect(report).to.match(/^token-broker: ok$/m);
    expect(report).to.match(/^middleware: ok reachable \(HTTP 401 without a token\)$/m);
    expect(report).to.contain(`browser: ${navigator.userAgent}`);
    expect(report.includes(TOKEN_MARK), 'the report holds the token').to.equal(false);
    expect(everythingVisible(el).includes(TOKEN_MARK), 'the page shows the token').to.equal(false);
  });

  it('no session: the broker answers 401, and token-broker reads refused, session-expired', async () => {
    world((net) => net.on('GET', TOKEN_PATH, () => json({ error: 'Sign in to obtain a token.' }, 401)));
    const { row, report } = await diagnose();
    expect(row('token-broker').status).to.equal('refused');
    expect(row('token-broker').text).to.contain('Your session has ended.');
    expect(row('token-broker').detail).to.contain('HTTP 401');
    expect(report).to.match(/^token-broker: refused session-expired .*HTTP 401/m);
  });

  it('cookie blocked: a 401 with reason "no-cookie" reads blocked, cookie-blocked, naming the fix', async () => {
    world((net) => net.on('GET', TOKEN_PATH, () => json({ error: 'No session cookie.', reason: 'no-cookie' }, 401)));
    const { row, report } = await diagnose();
    expect(row('token-broker').status).to.equal('blocked');
    expect(row('token-broker').text).to.contain('kept your sign-in');
    expect(row('token-broker').detail).to.match(/SameSite.*Host the token broker on this page's site/);
    expect(report).to.match(/^token-broker: blocked cookie-blocked /m);
  });

  it('CSRF: a 403 from the broker reads refused, with the anti-CSRF check as its cause', async () => {
    world((net) => net.on('GET', TOKEN_PATH, () => json({ error: 'Missing anti-CSRF header: send X-CSRF: 1.' }, 403)));
    const { row } = await diagnose();
    expect(row('token-broker').status).to.equal('refused');
    expect(row('token-broker').text).to.contain('anti-CSRF or origin check (HTTP 403)');
    expect(row('token-broker').detail).to.contain('X-CSRF');
  });

  it('broker down: a 502 reads refused, broker-unavailable; a broker that does not answer reads unreachable', async () => {
    world((net) => net.on('GET', TOKEN_PATH, () => json({ error: 'The identity provider did not issue a token.' }, 502)));
    let { row, report } = await diagnose();
    expect(row('token-broker').status).to.equal('refused');
    expect(row('token-broker').text).to.contain('Sign-in service unavailable.');
    expect(report).to.match(/^token-broker: refused broker-unavailable /m);
    restoreNetwork();
    world((net) => net.on('GET', TOKEN_PATH, refuse));
    ({ row } = await diagnose());
    expect(row('token-broker').status).to.equal('unreachable');
    expect(row('token-broker').text).to.contain('Sign-in service unavailable.');
  });

  it('a middleware that refuses this page CORS reads blocked, one that is not there unreachable', async () => {
    const { origin } = (await (await fetch('/__test/second-origin')).json()) as { origin: string };
    const closed = 'http://127.0.0.1:9';
    world();
    const fake = globalThis.fetch;
    // These two middlewares are real: the browser's own refusal is the point.
    globalThis.fetch = ((input: string, init?: RequestInit) =>
      [origin, closed].includes(new URL(input).origin) ? realFetch(input, init) : fake(input, init)) as typeof fetch;
    let { row } = await diagnose(ATTRS.replace(MIDDLEWARE, origin));
    expect(row('middleware').status).to.equal('blocked');
    expect(row('middleware').text).to.contain('(CORS)');
    // Port 9 (discard) is closed on the test machine, and browsers refuse it anyway: nothing answers.
    ({ row } = await diagnose(ATTRS.replace(MIDDLEWARE, closed)));
    expect(row('middleware').status).to.equal('unreachable');
    expect(row('middleware').text).to.contain('Connection failed.');
  });

  it('an unreachable local service reads unreachable, and the test capture gives the same cause', async () => {
    world((net) => net.on('GET', `${LOCAL}/status`, refuse));
    const { row } = await diagnose();
    expect(row('local-service')).to.include({ status: 'unreachable' });
    expect(row('local-service').text).to.contain('The fingerprint service on this computer is not reachable.');
    expect(row('local-service').detail).to.contain('companion application');
    expect(row('test-capture').status).to.equal('unreachable');
    expect(row('token-broker').status).to.equal('ok');
  });

  it('no reader plugged in: the local service is ok, the test capture unreachable (no-device)', async () => {
    world((net) =>
      net.on('GET', `${LOCAL}/status`, () => json({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: false }] })),
    );
    const { row, report } = await diagnose();
    expect(row('local-service').status).to.equal('ok');
    expect(row('test-capture').status).to.equal('unreachable');
    expect(row('test-capture').text).to.contain('No fingerprint reader is connected.');
    expect(report).to.match(/^test-capture: unreachable no-device /m);
  });

  it('a local service that answers something else reads refused', async () => {
    world((net) => net.on('GET', `${LOCAL}/status`, () => text('<html>router login</html>', 200, 'text/html')));
    const { row } = await diagnose();
    expect(row('local-service').status).to.equal('refused');
    expect(row('local-service').detail).to.contain('unexpected payload');
  });

  it('only a data:image/ image of at most 8 MiB is shown; anything else is refused and not shown', async () => {
    world((net) => net.on('POST', `${LOCAL}/test-capture`, () => json({ deviceId: 'dev-1', quality: 70, image: 'javascript:alert(1)' })));
    let { el, row } = await diagnose();
    expect(row('test-capture').status).to.equal('refused');
    expect(el.shadowRoot!.querySelector('img')).to.equal(null);
    restoreNetwork();
    world((net) =>
      net.on('POST', `${LOCAL}/test-capture`, () =>
        json({ deviceId: 'dev-1', quality: 70, image: `data:image/png;base64,${'A'.repeat(8 * 1024 * 1024)}` }),
      ),
    );
    ({ el, row } = await diagnose());
    expect(row('test-capture').status).to.equal('refused');
    expect(row('test-capture').detail).to.contain('8 MiB');
    expect(el.shadowRoot!.querySelector('img')).to.equal(null);
  });

  it('wrong settings fail their own row with a config cause naming the attribute', async () => {
    world();
    const { row } = await diagnose(`token-endpoint="${TOKEN_PATH}" local-service-url="ftp://x"`);
    expect(row('middleware').status).to.equal('refused');
    expect(row('middleware').detail).to.contain('middleware-url');
    expect(row('local-service').status).to.equal('refused');
    expect(row('local-service').detail).to.contain('local-service-url');
    expect(row('token-broker').status).to.equal('ok');
  });

  it('"copy report" writes the report, without the token, to the clipboard', async () => {
    world();
    const { el } = await diagnose();
    let copied = '';
    const clipboard = navigator.clipboard;
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void (copied = t) } });
    try {
      el.shadowRoot!.querySelector<HTMLButtonElement>('button[part="button"]')!.click();
      await new Promise((r) => setTimeout(r, 0));
      await el.updateComplete;
    } finally {
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: clipboard });
    }
    expect(copied).to.match(/^token-broker: ok$/m);
    expect(copied).to.match(/^local-service: ok /m);
    expect(copied.includes(TOKEN_MARK)).to.equal(false);
    expect(el.shadowRoot!.querySelector('[role="status"]')!.textContent).to.equal('Report copied.');
  });

  it('without clipboard access the report is shown selected in a text area, without the token', async () => {
    world();
    const { el } = await diagnose();
    const clipboard = navigator.clipboard;
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) },
    });
    try {
      el.shadowRoot!.querySelector<HTMLButtonElement>('button[part="button"]')!.click();
      await new Promise((r) => setTimeout(r, 0));
      await el.updateComplete;
      await el.updateComplete;
    } finally {
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: clipboard });
    }
    const area = el.shadowRoot!.querySelector<HTMLTextAreaElement>('textarea[part="report"]')!;
    expect(area.value).to.match(/^middleware: ok reachable \(HTTP 401 without a token\)$/m);
    expect(area.value.includes(TOKEN_MARK)).to.equal(false);
    expect(area.selectionEnd - area.selectionStart).to.equal(area.value.length);
  });

  it('the report holds no token even when a broker error echoes it', async () => {
    world((net) => net.on('GET', TOKEN_PATH, () => json({ error: `token ${TOKEN} expired`, access_token: TOKEN }, 401)));
    const { el, report } = await diagnose();
    expect(report.includes(TOKEN_MARK)).to.equal(false);
    expect(everythingVisible(el).includes(TOKEN_MARK)).to.equal(false);
  });

  it('causes follow the page language (de, fr, es)', async () => {
    for (const [lang, words] of [
      ['de', 'Sitzung'],
      ['fr', 'session'],
      ['es', 'sesión'],
    ] as const) {
      restoreNetwork();
      world((net) => net.on('GET', TOKEN_PATH, () => json({ error: 'no session' }, 401)));
      const { el, row } = await diagnose(ATTRS, lang);
      // The language's table loads on use, and the panel renders in English while it has not arrived (at
      // most src/elements/parts/localize.ts's HOLD_MS of holding): wait for the words, not for the clock.
      await waitUntil(() => row('token-broker').text.includes(words), `the token broker's cause in ${lang}`);
      expect(el.shadowRoot!.querySelector('button')!.textContent).not.to.equal('Copy report');
    }
  });
});
