/**
 * `<bio-verify required>` in a real form, in Chromium, Firefox and WebKit, with the built
 * script (dist/bioid-elements.js; npm test builds first). A user's click on submit before a match is
 * blocked by the browser's own validation, which moves focus to the element (its button) and logs nothing:
 * Firefox reports "The invalid form control with name='verification' is not focusable." for a control it
 * cannot focus, even when the validity anchor inside the shadow root could be. The console is read in
 * Chromium and Firefox (WebDriver classic reports none for WebKit, where focus is checked).
 * One node:http server on 127.0.0.1 port 0 serves the page and the script; the element is pinned, so it
 * asks no local service, and nothing runs an operation.
 */
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENGINE_NAMES, launch, selectedEngines, type Browser } from '../support/engines.js';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Approve</title><script src="/bioid-elements.js"></script></head>
<body><form action="/approve" method="post">
  <label>Amount <input name="amount" value="250"></label>
  <bio-verify middleware-url="/mw" token-endpoint="/token" integrator-id="acme" workstation-id="ws-1" device-id="dev-1"
    subject-id="alice" name="verification" required></bio-verify>
  <button type="submit" id="approve">Approve</button>
</form></body></html>`;

for (const engine of selectedEngines())
  describe(`a blocked form submit in ${ENGINE_NAMES[engine]}`, function () {
    this.timeout(60_000);
    let server: Server;
    let origin: string;
    let browser: Browser;
    let submissions = 0;

    before(async () => {
      const bundle = readFileSync(new URL('../../dist/bioid-elements.js', import.meta.url), 'utf8');
      server = createServer((req, res) => {
        if (req.method === 'POST') submissions += 1;
        if (req.url === '/favicon.ico') return void res.writeHead(204).end();
        // The element gets its token ready when it gets focus (the first sign of intent): a signed-in broker.
        if (req.url === '/token')
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end('{"access_token":"form-token-0123456789","expires_in":300}');
        const script = req.url === '/bioid-elements.js';
        res.writeHead(script || req.url === '/' ? 200 : 404, { 'content-type': script ? 'text/javascript' : 'text/html' });
        res.end(script ? bundle : PAGE);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await launch(engine);
    });
    after(async () => {
      await browser?.close();
      await new Promise((resolve) => server?.close(resolve));
    });

    it("submit before a match is blocked, focus moves to the element's button, and the console stays empty", async () => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${origin}/`);
        await page.waitForSelector('bio-verify >>> button');
        assert.deepEqual(
          await page.evaluate(() => {
            const el = document.querySelector('bio-verify') as HTMLElement & { validationMessage: string; willValidate: boolean };
            return [el.willValidate, el.validationMessage];
          }),
          [true, 'Verify your fingerprint first.'],
        );
        await page.click('#approve');
        await page.waitForFunction(() => document.activeElement?.localName === 'bio-verify');
        assert.strictEqual(
          await page.evaluate(() => document.querySelector('bio-verify')!.shadowRoot!.activeElement?.localName ?? null),
          'button',
        );
        await new Promise((resolve) => setTimeout(resolve, 300)); // a console line is reported asynchronously
        assert.strictEqual(submissions, 0, 'the form was not submitted');
        assert.deepEqual(
          page.consoleMessages.map((m) => `${m.type}: ${m.text}`),
          [],
        );
      } finally {
        await context.close();
      }
    });
  });
