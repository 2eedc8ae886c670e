// Chromium only, by design (docs/testing.md): the WordPress plugin suite.
/**
 * The plugin in a real WordPress (Debian's, with MariaDB on a socket and `php -S` on loopback;
 * test/wordpress/site.ts), installed from the zip `npm run pack:wordpress` writes, against the simulator
 * (IdP, middleware, workstation). An administrator configures it; an Author, whom WordPress's HTML filter
 * applies to, inserts the verify block and the shortcode and publishes; a signed-in visitor reaches a
 * verified match that the server confirms once; a signed-out visitor gets session-expired. Skipped, with
 * the list of what to install, only where PHP and the rest cannot be installed (not Debian as root).
 *
 * BIOID_WORDPRESS_SCREENSHOTS=docs/wordpress writes the screenshots of docs/wordpress.md on the way.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- WordPress's window.wp (the block editor's API) has no types here */
import { assert } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launch, type Browser, type Context, type Page } from '../support/engines.js';
import { packWordPress } from '../../scripts/pack-wordpress.mjs';
import { startSimulator, type RunningSimulator } from '../../simulator/src/simulator.js';
import { runBin } from '../broker/bin-support.js';
import { runOperation } from '../e2e/operations.js';
import { findStack, startSite, type RunningNetwork, type RunningSite } from './site.js';

const CLIENT = { clientId: 'wp-portal', clientSecret: 'wp-secret-7f3a9c0e5b1d4a2f' };
const USERS = { admin: 'admin-pass-4821', author: 'author-pass-9134', visitor: 'visitor-pass-6627' };
const SUBJECT = 'wp-alice';
const SHORTCODE = `[bioid op="verify" subject-id="${SUBJECT}"]`;
// Pasted by the Author: the site's own attributes must not survive; the tag and subject-id must.
const PASTED = `<bio-verify class="pasted" subject-id="${SUBJECT}" middleware-url="https://evil.example" token-endpoint="https://evil.example/token"></bio-verify>`;
// The site owner lets one other origin's pages get tokens (the filter's only use here: the CORS rules).
const PORTAL = 'https://portal.example';
const MU_PLUGINS = { 'bioid-origins.php': `<?php add_filter( 'bioid_token_allowed_origins', fn() => array( '${PORTAL}' ) );\n` };
const NETWORK_USERS = { netadmin: 'netadmin-pass-3071', siteadmin: 'siteadmin-pass-8452' };
const SHOTS = process.env.BIOID_WORDPRESS_SCREENSHOTS ? resolve(process.env.BIOID_WORDPRESS_SCREENSHOTS) : undefined;

type Puppeteer = {
  setViewport(v: { width: number; height: number }): Promise<void>;
  screenshot(o: { path: string; fullPage?: boolean }): Promise<unknown>;
  type(selector: string, text: string): Promise<void>;
  content(): Promise<string>;
};
/** The puppeteer page under the engines helper's page (Chromium: keyboard input and screenshots). */
const raw = (page: Page) => (page as unknown as { page: Puppeteer }).page;

describe("the WordPress plugin in Debian's WordPress (Chromium)", function () {
  this.timeout(300_000);
  let dir: string;
  let sim: RunningSimulator;
  let site: RunningSite;
  let browser: Browser;
  let postUrl: string;
  const contexts: Context[] = [];

  before(async function () {
    const stack = findStack();
    if ('skip' in stack) {
      console.log(
        `    WordPress suite skipped: PHP, MariaDB and WordPress cannot be installed here.\n${stack.skip.replace(/^/gm, '      ')}`,
      );
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'bioid-wp-zip-'));
    const zip = packWordPress({ out: join(dir, 'bioid.zip') });
    sim = await startSimulator({ ...CLIENT, captureDelayMs: [0, 30] });
    site = await startSite(stack, { zip, users: USERS, muPlugins: MU_PLUGINS });
    // The multisite test's network installs (some 10 s of PHP and MariaDB) while the browser tests run;
    // that test awaits it (a failure surfaces there, so it is marked handled here).
    startNetwork().catch(() => {});
    browser = await launch('chromium');
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });

  // Each test's pages close when it ends: an admin page left open keeps polling WordPress (its heartbeat).
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  after(async () => {
    await browser?.close();
    await site?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The plugin's client secret and addresses as wp-config.php constants, against the simulator. */
  const configConstants = () => ({
    BIOID_CLIENT_SECRET: CLIENT.clientSecret,
    BIOID_CLIENT_ID: CLIENT.clientId,
    BIOID_ISSUER_URL: sim.idp.baseUrl,
    BIOID_REALM: sim.idp.realm,
    BIOID_MIDDLEWARE_URL: sim.middleware.url,
    BIOID_INTEGRATOR_ID: CLIENT.clientId,
  });

  /** The network of the multisite test, its client secret and addresses in wp-config.php (started once). */
  const startNetwork = () => site.network({ users: NETWORK_USERS, constants: configConstants() });

  /** A new browser context signed in as `login` (or signed out), its page on `path`. */
  async function as(
    login: keyof typeof USERS | undefined,
    path: string,
    other?: { login: string; password: string },
  ): Promise<{ context: Context; page: Page }> {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await raw(page).setViewport({ width: 1280, height: 900 });
    const account = other ?? (login ? { login, password: USERS[login] } : undefined);
    if (!account) {
      await page.goto(`${site.url}${path}`);
      return { context, page };
    }
    // Signed in on the way to `path` (redirect_to), as a link to a protected page does: the dashboard
    // WordPress shows after a plain sign-in is the heaviest page of its admin, and no test reads it.
    await page.goto(`${site.url}/wp-login.php?redirect_to=${encodeURIComponent(`${site.url}${path}`)}`);
    await page.fill('#user_login', account.login);
    await page.fill('#user_pass', account.password);
    await page.clickAndWaitForLoad('#wp-submit');
    if (new URL(await page.url()).pathname === '/wp-login.php') throw new Error(`${account.login} could not sign in`);
    return { context, page };
  }

  async function shoot(page: Page, name: string): Promise<void> {
    if (SHOTS) await raw(page).screenshot({ path: join(SHOTS, `${name}.png`) });
  }

  /**
   * The session cookies of `who` (a user of USERS, or another account), signed in through wp-login.php's
   * form from Node, for a test that calls the token broker as that user and reads no page.
   */
  async function session(who: keyof typeof USERS | { login: string; password: string }): Promise<string> {
    const account = typeof who === 'string' ? { login: who, password: USERS[who] } : who;
    const reply = await fetch(`${site.url}/wp-login.php`, {
      method: 'POST',
      // WordPress refuses a sign-in without its test cookie ("cookies are blocked"), which its form page sets.
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: 'wordpress_test_cookie=WP%20Cookie%20check' },
      body: new URLSearchParams({ log: account.login, pwd: account.password, testcookie: '1', redirect_to: `${site.url}/` }),
      redirect: 'manual',
    });
    const cookies = reply.headers.getSetCookie().map((line) => line.split(';')[0]!);
    if (reply.status !== 302 || !cookies.some((c) => c.startsWith('wordpress_logged_in_'))) {
      throw new Error(`${account.login} could not sign in: HTTP ${reply.status}`);
    }
    return cookies.join('; ');
  }

  /** The token broker from Node, with a session's cookies (session()) or signed out. */
  async function broker(cookie: string | undefined, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (cookie) headers.set('Cookie', cookie);
    return fetch(`${site.url}/wp-admin/admin-ajax.php?action=bioid_token`, { ...init, headers, redirect: 'manual' });
  }

  /**
   * Rewrites a PHP file of the site. php -S looks at its time on every request (test/wordpress/site.ts),
   * in whole seconds: the time moves on by at least one, so a rewrite within the second is seen too.
   */
  function rewrite(file: string, text: string): void {
    const { mtimeMs } = statSync(file);
    writeFileSync(file, text);
    const time = new Date(Math.max(Date.now(), mtimeMs + 1000));
    utimesSync(file, time, time);
  }

  /**
   * A request to the network's site 2: sent to the network's php -S on 127.0.0.1 with site 2's host name
   * as its Host (how WordPress picks the site), never following a redirect.
   */
  function onSite2(
    network: RunningNetwork,
    path: string,
    init: { method?: string; cookie?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<{ status: number; text: string }> {
    const { port } = new URL(network.url);
    return new Promise((resolveRequest, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: init.method ?? 'GET',
          headers: { Host: network.site2Host, ...(init.cookie ? { Cookie: init.cookie } : {}), ...init.headers },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolveRequest({ status: response.statusCode!, text }));
        },
      );
      req.once('error', reject);
      req.end(init.body);
    });
  }

  /** Posts site 2's Settings > BioID form as the cookie's user, with `role` ticked for both capabilities. */
  async function postGrants(network: RunningNetwork, cookie: string, role: string) {
    const form = await onSite2(network, '/wp-admin/options-general.php?page=bioid', { cookie });
    const nonce = /name="_wpnonce" value="([^"]+)"/.exec(form.text)?.[1];
    assert.isString(nonce, `the settings page (${form.status}) has its form`);
    const body = new URLSearchParams({
      option_page: 'bioid',
      action: 'update',
      _wpnonce: nonce!,
      _wp_http_referer: '/wp-admin/options-general.php?page=bioid',
      'bioid_role_caps[bioid_use_biometrics][]': role,
      'bioid_role_caps[bioid_enroll][]': role,
    });
    return onSite2(network, '/wp-admin/options.php', {
      method: 'POST',
      cookie,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  }

  const tagsOfBundle = () =>
    JSON.parse(readFileSync(join(site.dir, 'site/wp-content/plugins/bioid/assets/elements.json'), 'utf8')).tags as Record<string, string[]>;

  it("the zip installs through WordPress's plugin upload code, with the bundle inside", async () => {
    assert.strictEqual(await site.php("echo implode(',', get_option('active_plugins'));"), 'bioid/bioid.php');
    assert.ok(existsSync(join(site.dir, 'site/wp-content/plugins/bioid/assets/bioid-elements.js')));
    // The files the bundle loads on use, beside it: <bio-diagnostics>' code and the languages other than English.
    for (const part of ['bioid-diagnostics.js', 'bioid-de.js', 'bioid-es.js', 'bioid-fr.js'])
      assert.ok(existsSync(join(site.dir, 'site/wp-content/plugins/bioid/assets', part)), part);
    assert.includeMembers(Object.keys(tagsOfBundle()), ['bio-enroll', 'bio-verify', 'bio-search', 'bio-reader-status', 'bio-enrolled']);
  });

  it('the shortcode writes the element with the attributes a post may set; a mistake is a note for editors and a comment for visitors', async () => {
    const render = (shortcode: string, user?: string) => site.php(`echo do_shortcode(${JSON.stringify(shortcode)});`, user);
    assert.strictEqual(
      await render(
        '[bioid op="verify" subject-id="a&quot;b" name="v" required lang="de" middleware-url="https://evil.example"]',
        'visitor',
      ),
      '<div class="bioid-shortcode"><bio-verify subject-id="a&quot;b" name="v" required lang="de"></bio-verify></div><!-- bioid: [bioid]: ignored middleware-url (&lt;bio-verify&gt; takes subject-id, name, required, hidden-input, timeout-ms, agent-id, lang, theme; the middleware, broker and local service are set in Settings &gt; BioID). -->',
    );
    assert.match(
      await render('[bioid op="nope"]', 'visitor'),
      /^<!-- bioid: \[bioid\]: op=&quot;nope&quot; is not one of (?:[a-z-]+, )*enroll, enrolled, (?:[a-z-]+, )*verify\. -->$/,
    );
    assert.match(
      await render('[bioid op="nope"]', 'author'),
      /^<span class="bioid-note" role="note">\[bioid\]: op=&quot;nope&quot; is not one of [a-z, -]+\.<\/span>$/,
    );
  });

  it("a post cannot pin the workstation: workstation-id and device-id from a shortcode or block are dropped; the site's pin comes from Settings > BioID", async () => {
    const shortcode = await site.php(
      `echo do_shortcode(${JSON.stringify(`[bioid op="verify" subject-id="${SUBJECT}" workstation-id="ws-author" device-id="dev-author"]`)});`,
      'author',
    );
    assert.include(shortcode, `<bio-verify subject-id="${SUBJECT}"></bio-verify>`);
    assert.notInclude(shortcode, 'workstation-id="');
    assert.notInclude(shortcode, 'device-id="');
    assert.include(shortcode, 'ignored workstation-id, device-id');
    const block = await site.php(
      `echo do_blocks(${JSON.stringify(`<!-- wp:bioid/verify {"subjectId":"${SUBJECT}","workstationId":"ws-author","deviceId":"dev-author"} /-->`)});`,
      'author',
    );
    assert.include(block, `<bio-verify subject-id="${SUBJECT}"></bio-verify>`);
    assert.notInclude(block, 'ws-author');
    // The site owner's pin reaches every element through the page configuration.
    await site.php("update_option('bioid_settings', array('workstation_id' => 'ws-site', 'device_id' => 'dev-site'));");
    try {
      const config = JSON.parse(await site.php('echo wp_json_encode(bioid_page_config());')) as Record<string, string>;
      assert.strictEqual(config.workstationId, 'ws-site');
      assert.strictEqual(config.deviceId, 'dev-site');
    } finally {
      await site.php("delete_option('bioid_settings');");
    }
  });

  it('an administrator saves Settings > BioID; the secret is stored server-side, shown as "Set." and never printed back', async () => {
    const { page } = await as('admin', '/wp-admin/options-general.php?page=bioid');
    await page.fill('#bioid-middleware-url', sim.middleware.url);
    await page.fill('#bioid-integrator-id', CLIENT.clientId);
    await page.fill('#bioid-issuer-url', sim.idp.baseUrl);
    await page.fill('#bioid-realm', sim.idp.realm);
    await page.fill('#bioid-client-id', CLIENT.clientId);
    await page.fill('#bioid-client-secret', CLIENT.clientSecret);
    await page.fill('#bioid-local-service-url', sim.localService.url);
    await page.clickAndWaitForLoad('#submit');
    const html = await raw(page).content();
    assert.match(html, /Settings saved/);
    assert.match(await page.text('.bioid-secret-state'), /Set\./);
    assert.notInclude(html, CLIENT.clientSecret, 'the settings page never prints the secret');
    assert.strictEqual(await page.evaluate(() => (document.getElementById('bioid-client-secret') as HTMLInputElement).value), '');
    assert.strictEqual(await site.php("echo get_option('bioid_client_secret');"), CLIENT.clientSecret);
    assert.strictEqual(
      await site.php(
        'global $wpdb; echo $wpdb->get_var("SELECT autoload FROM $wpdb->options WHERE option_name = \'bioid_client_secret\'");',
      ),
      'no',
    );
    await shoot(page, 'settings');

    // Saving again with the secret field left empty keeps the secret.
    await page.fill('#bioid-realm', sim.idp.realm);
    await page.clickAndWaitForLoad('#submit');
    assert.strictEqual(await site.php("echo get_option('bioid_client_secret');"), CLIENT.clientSecret);
  });

  it('a Subscriber is refused a token until the owner grants bioid_use_biometrics; a user removed from the site is refused even then', async () => {
    // Nobody has the plugin's capabilities after installing it, not even an administrator.
    for (const login of ['visitor', 'author', 'admin'] as const) {
      const refused = await broker(await session(login), { headers: { 'X-CSRF': '1' } });
      assert.strictEqual(refused.status, 403, login);
      const text = await refused.text();
      assert.deepStrictEqual(JSON.parse(text), {
        error: 'Your account may not use fingerprints on this site. Ask the site owner.',
        reason: 'forbidden',
      });
      assert.notInclude(text, 'access_token');
    }
    assert.strictEqual(await site.php("echo current_user_can('bioid_use_biometrics') ? 'yes' : 'no';", 'admin'), 'no');
    assert.strictEqual(await site.php('echo wp_json_encode(bioid_role_grants());'), '{"bioid_use_biometrics":[],"bioid_enroll":[]}');
    // The enroll element is not rendered for a user without bioid_enroll, nor a pasted one kept.
    assert.notInclude(await site.php(`echo do_shortcode('[bioid op="enroll" subject-id="${SUBJECT}"]');`, 'visitor'), '<bio-enroll');
    const pastedEnroll = `echo apply_filters('the_content', '<bio-enroll subject-id="${SUBJECT}"></bio-enroll>');`;
    assert.notInclude(await site.php(pastedEnroll, 'visitor'), '<bio-enroll');

    // The owner grants the Subscriber role both, on the settings page, which says what the token allows.
    const { page } = await as('admin', '/wp-admin/options-general.php?page=bioid');
    const warning = await page.text('.bioid-token-warning');
    assert.match(warning, /list any subject's enrollments, enroll a finger under any subject and verify as any subject/);
    assert.match(warning, /RFC 8693/);
    await page.setChecked('#bioid-cap-bioid_use_biometrics-subscriber', true);
    await page.setChecked('#bioid-cap-bioid_enroll-subscriber', true);
    await page.clickAndWaitForLoad('#submit');
    assert.strictEqual(
      await site.php("echo wp_json_encode(get_option('bioid_role_caps'));"),
      '{"bioid_use_biometrics":["subscriber"],"bioid_enroll":["subscriber"]}',
    );
    assert.strictEqual(await site.php("echo current_user_can('bioid_use_biometrics') ? 'yes' : 'no';", 'visitor'), 'yes');
    assert.include(await site.php(`echo do_shortcode('[bioid op="enroll" subject-id="${SUBJECT}"]');`, 'visitor'), '<bio-enroll');
    assert.include(await site.php(pastedEnroll, 'visitor'), '<bio-enroll');
    const granted = await broker(await session('visitor'), { headers: { 'X-CSRF': '1' } });
    assert.strictEqual(granted.status, 200);
    assert.isString(((await granted.json()) as { access_token?: unknown }).access_token);
    const author = await broker(await session('author'), { headers: { 'X-CSRF': '1' } });
    assert.strictEqual(author.status, 403, 'only the granted role');

    // Membership: a Subscriber removed from the site (its role meta deleted, as remove_user_from_blog does
    // on multisite) still signs in on a single site, but is no member and gets no token. (This harness runs
    // a single site; multisite membership goes through is_user_member_of_blog in includes/capabilities.php.)
    const outsider = { login: 'outsider', password: 'outsider-pass-5310' };
    await site.php(
      `$id = wp_insert_user(array('user_login' => 'outsider', 'user_pass' => ${JSON.stringify(outsider.password)}, 'user_email' => 'outsider@example.test', 'role' => 'subscriber')); global $wpdb; delete_user_meta($id, $wpdb->get_blog_prefix() . 'capabilities'); delete_user_meta($id, $wpdb->get_blog_prefix() . 'user_level');`,
    );
    const removed = await broker(await session(outsider), { headers: { 'X-CSRF': '1' } });
    assert.strictEqual(removed.status, 403);
    assert.notInclude(await removed.text(), 'access_token');
    await site.php("delete_transient('bioid_client_token');"); // the broker's test counts its own exchange
  });

  it('the token broker (admin-ajax.php?action=bioid_token) follows the broker contract, gated by the WordPress login and the grant', async () => {
    const visitor = await session('visitor');
    const signedOut = await broker(undefined, { headers: { 'X-CSRF': '1' } });
    assert.strictEqual(signedOut.status, 401);
    assert.deepStrictEqual(await signedOut.json(), { error: 'Sign in to obtain a token.', reason: 'no-session' });
    assert.strictEqual(signedOut.headers.get('cache-control'), 'no-store');

    const crossSite = await broker(undefined, { headers: { 'X-CSRF': '1', 'Sec-Fetch-Site': 'cross-site' } });
    assert.strictEqual(crossSite.status, 401);
    assert.strictEqual((await crossSite.json()).reason, 'no-cookie');

    const noCsrf = await broker(visitor);
    assert.strictEqual(noCsrf.status, 403);
    assert.strictEqual((await noCsrf.json()).reason, 'csrf');

    const post = await broker(visitor, { method: 'POST', headers: { 'X-CSRF': '1' } });
    assert.strictEqual(post.status, 405);
    assert.strictEqual(post.headers.get('allow'), 'GET, OPTIONS');

    const before = sim.idp.tokenRequests;
    const ok = await broker(visitor, { headers: { 'X-CSRF': '1', Origin: 'https://evil.example' } });
    assert.strictEqual(ok.status, 200);
    assert.strictEqual(ok.headers.get('cache-control'), 'no-store');
    assert.isNull(ok.headers.get('access-control-allow-origin'), 'no grant for another origin');
    const body = (await ok.json()) as { access_token: string; expires_in: number; middleware_url: string };
    assert.deepStrictEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'middleware_url']);
    assert.isAbove(body.expires_in, 0);
    assert.strictEqual(body.middleware_url, sim.middleware.url);
    const again = (await (await broker(visitor, { headers: { 'X-CSRF': '1' } })).json()) as { access_token: string };
    assert.strictEqual(again.access_token, body.access_token, 'one cached client token for the site');
    assert.strictEqual(sim.idp.tokenRequests, before + 1);

    const preflight = await broker(undefined, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-csrf' },
    });
    assert.strictEqual(preflight.status, 403);
    assert.isNull(preflight.headers.get('access-control-allow-origin'));
    // An origin the site owner allowed (bioid_token_allowed_origins) gets the grant, exactly, with credentials.
    const allowed = await broker(undefined, {
      method: 'OPTIONS',
      headers: { Origin: PORTAL, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-csrf' },
    });
    assert.strictEqual(allowed.status, 204);
    assert.strictEqual(allowed.headers.get('access-control-allow-origin'), PORTAL);
    assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /X-CSRF/i);
    const fromPortal = await broker(visitor, { headers: { 'X-CSRF': '1', Origin: PORTAL } });
    assert.strictEqual(fromPortal.headers.get('access-control-allow-origin'), PORTAL);
    assert.strictEqual(fromPortal.headers.get('access-control-allow-credentials'), 'true');

    // The identity provider refuses the exchange: 502 with exactly { error }, nothing of the IdP's answer.
    await site.php("update_option('bioid_client_secret', 'wrong-secret');");
    try {
      const failed = await broker(visitor, { headers: { 'X-CSRF': '1' } });
      assert.strictEqual(failed.status, 502);
      assert.deepStrictEqual(Object.keys(await failed.json()), ['error']);
    } finally {
      await site.php(`update_option('bioid_client_secret', ${JSON.stringify(CLIENT.clientSecret)});`);
    }
    assert.match(site.debugLog(), /bioid token broker: The identity provider at \S+ refused the exchange with HTTP 401\. Answered 502\./);
    assert.notInclude(site.debugLog(), 'wrong-secret');

    // bioid-broker check (the contract's own probe, from the bioid-broker package): signed in, and with the
    // identity provider refusing.
    {
      const check = async (...extra: string[]) => {
        const run = await runBin([
          'check',
          `${site.url}/wp-admin/admin-ajax.php?action=bioid_token`,
          '--cookie',
          visitor,
          '--origin',
          PORTAL,
          ...extra,
        ]);
        const output = run.stdout + run.stderr;
        assert.strictEqual(run.status, 0, `bioid-broker check ${extra.join(' ')} failed:\n${output}`);
        assert.notMatch(output, /\bFAIL\b/);
      };
      await check();
      await site.php("update_option('bioid_client_secret', 'wrong-secret');");
      try {
        await check('--expect-502');
      } finally {
        await site.php(`update_option('bioid_client_secret', ${JSON.stringify(CLIENT.clientSecret)});`);
      }
    }
  });

  it('an Author inserts the verify block (subject id typed in the block sidebar) and the shortcode, and publishes; the post keeps them', async () => {
    assert.strictEqual(
      await site.php("echo user_can(get_user_by('login', 'author'), 'unfiltered_html') ? 'yes' : 'no';"),
      'no',
      "WordPress filters the Author's HTML",
    );
    const { page } = await as('author', '/wp-admin/post-new.php');
    await page.waitForFunction(() => {
      const wp = (window as unknown as { wp?: any }).wp;
      return Boolean(wp?.data?.select('core/editor')?.getCurrentPostId() && wp.blocks.getBlockType('bioid/verify'));
    });
    const verifyId = await page.evaluate(
      ({ subject, shortcode, pasted }) => {
        const wp = (window as unknown as { wp: any }).wp;
        if (wp.data.select('core/edit-post').isFeatureActive('welcomeGuide'))
          wp.data.dispatch('core/edit-post').toggleFeature('welcomeGuide');
        const { createBlock } = wp.blocks;
        const verify = createBlock('bioid/verify');
        wp.data
          .dispatch('core/block-editor')
          .insertBlocks([
            createBlock('core/paragraph', { content: 'Put your finger on the reader.' }),
            createBlock('bioid/enroll', { subjectId: subject }),
            verify,
            createBlock('core/shortcode', { text: shortcode }),
            createBlock('core/html', { content: pasted }),
          ]);
        wp.data.dispatch('core/editor').editPost({ title: 'Fingerprint check' });
        wp.data.dispatch('core/block-editor').selectBlock(verify.clientId);
        wp.data.dispatch('core/edit-post').openGeneralSidebar('edit-post/block');
        return verify.clientId as string;
      },
      { subject: SUBJECT, shortcode: SHORTCODE, pasted: PASTED },
    );
    // The sidebar's "Subject id" field, typed into with the keyboard as an editor would. The editor may
    // still mount the sidebar again (the field gets a new id) between finding the field and typing: then
    // nothing was typed, and the field is found again.
    for (let attempt = 1; ; attempt++) {
      const inputId = await page.waitForFunction(() => {
        const label = [...document.querySelectorAll('.block-editor-block-inspector label')].find((l) => l.textContent === 'Subject id') as
          HTMLLabelElement | undefined;
        return label?.htmlFor && document.getElementById(label.htmlFor) ? label.htmlFor : false;
      });
      try {
        await raw(page).type(`[id="${String(inputId)}"]`, SUBJECT);
        break;
      } catch (error) {
        if (attempt === 3 || !/No element found/.test(String(error))) throw error;
      }
    }
    const blockTypes = await page.evaluate(() =>
      (window as unknown as { wp: any }).wp.blocks
        .getBlockTypes()
        .map((t: { name: string }) => t.name)
        .filter((n: string) => n.startsWith('bioid/'))
        .sort(),
    );
    assert.deepStrictEqual(
      blockTypes,
      Object.keys(tagsOfBundle())
        .map((t) => `bioid/${t.slice(4)}`)
        .sort(),
      'a block per element of the bundle',
    );
    const attributes = await page.evaluate(
      (id: string) => (window as unknown as { wp: any }).wp.data.select('core/block-editor').getBlockAttributes(id),
      verifyId,
    );
    assert.strictEqual(attributes.subjectId, SUBJECT);
    await shoot(page, 'editor');

    await page.evaluate(() => {
      const wp = (window as unknown as { wp: any }).wp;
      wp.data.dispatch('core/editor').editPost({ status: 'publish' });
      void wp.data.dispatch('core/editor').savePost();
    });
    const postId = await page.waitForFunction(
      () => {
        const editor = (window as unknown as { wp: any }).wp.data.select('core/editor');
        return !editor.isSavingPost() && editor.isCurrentPostPublished() && editor.getCurrentPostId();
      },
      undefined,
      { timeout: 30_000 },
    );
    postUrl = await site.php(`echo get_permalink(${Number(postId)});`);

    const stored = await site.php(`echo get_post_field('post_content', ${Number(postId)}, 'raw');`);
    assert.include(stored, `<!-- wp:bioid/verify {"subjectId":"${SUBJECT}"} /-->`);
    assert.include(stored, SHORTCODE);
    assert.include(
      stored,
      `<bio-verify class="pasted" subject-id="${SUBJECT}"></bio-verify>`,
      "the pasted tag survives, without the site's attributes",
    );
    assert.notInclude(stored, 'evil.example');
    assert.notInclude(stored, CLIENT.clientSecret, 'the stored post contains no secret');
  });

  it('a signed-in visitor enrolls and reaches a verified match through the block and the shortcode; the server confirms each verification once', async () => {
    assert.ok(postUrl, 'the Author published the post');
    const { page } = await as('visitor', new URL(postUrl).pathname + new URL(postUrl).search);
    await page.waitForFunction(() => ['bio-enroll', 'bio-verify'].every((t) => customElements.get(t)));
    const html = await raw(page).content();
    assert.include(html, 'window.BioIDElementsConfig');
    assert.notInclude(html, CLIENT.clientSecret, 'no page holds the secret');
    assert.strictEqual(await page.count('bio-verify'), 3, 'block, shortcode and pasted tag');
    assert.strictEqual(await page.count('script[src*="bioid-elements.js"]'), 1, 'the bundle once');
    await control('finger', { finger: 'finger-a' });

    const enrolled = await runOperation(page, '.wp-block-bioid-enroll bio-enroll');
    assert.strictEqual(enrolled.type, 'bio-result', JSON.stringify(enrolled.detail));
    const block = await runOperation(page, '.wp-block-bioid-verify bio-verify');
    assert.strictEqual(block.type, 'bio-result', JSON.stringify(block.detail));
    assert.strictEqual(block.detail.result?.match, true);
    const shortcode = await runOperation(page, '.bioid-shortcode bio-verify');
    assert.strictEqual(shortcode.type, 'bio-result', JSON.stringify(shortcode.detail));
    assert.strictEqual(shortcode.detail.result?.match, true);
    const pasted = await runOperation(page, 'bio-verify.pasted');
    assert.strictEqual(pasted.type, 'bio-result', JSON.stringify(pasted.detail));
    await shoot(page, 'verified');

    const confirm = async (id: unknown, subject: string, via = 'bioid_confirm_verification($id, $subject)') =>
      JSON.parse(
        await site.php(
          `$id = ${JSON.stringify(id)}; $subject = ${JSON.stringify(subject)}; $r = ${via}; echo wp_json_encode(is_wp_error($r) ? array('code' => $r->get_error_code(), 'message' => $r->get_error_message()) : $r);`,
        ),
      ) as Record<string, unknown>;
    const blockId = block.detail.result?.verificationId;
    const first = await confirm(blockId, SUBJECT);
    assert.strictEqual(first.match, true, JSON.stringify(first));
    assert.strictEqual(first.subjectId, SUBJECT);
    assert.deepInclude(await confirm(blockId, SUBJECT), {
      code: 'verification-rejected',
      message: 'Verification rejected: this verification was already used; verify again.',
    });
    const shortcodeId = shortcode.detail.result?.verificationId;
    assert.deepInclude(await confirm(shortcodeId, 'wp-bob'), {
      code: 'verification-rejected',
      message: 'Verification rejected: another subject; verify again.',
    });
    assert.deepInclude(await confirm('forged-id', SUBJECT), {
      code: 'verification-rejected',
      message: 'Verification rejected: unknown id; verify again.',
    });
    // Form plugins ask through the filter, which fails closed when the plugin is not active.
    const viaFilter = await confirm(
      shortcodeId,
      SUBJECT,
      "apply_filters('bioid_confirm_verification', new WP_Error('bioid-inactive', 'not active'), $id, $subject)",
    );
    assert.strictEqual(viaFilter.match, true, JSON.stringify(viaFilter));
    // A verification too old for the form's max age is refused.
    const old = await confirm(pasted.detail.result?.verificationId, SUBJECT, 'bioid_confirm_verification($id, $subject, -60)');
    assert.strictEqual(old.code, 'verification-rejected');
  });

  it("<bio-diagnostics> in a post, before the script in the footer, loads its code from the plugin's assets folder, beside the bundle and with its ?ver=, and runs its checks by itself", async () => {
    const id = await site.php(
      "echo wp_insert_post(array('post_title' => 'Diagnostics', 'post_content' => '[bioid op=\"diagnostics\"]', 'post_status' => 'publish', 'post_author' => 1));",
    );
    const { page } = await as('visitor', `/?p=${id.trim()}`);
    // WordPress puts the script in the footer, after the element: the element, upgraded as the script defines its
    // tag, loads its code and runs its checks by itself, with no start() from the page.
    await page.waitForFunction(() => {
      const report = document.querySelector('bio-diagnostics')?.report;
      return Boolean(report) && !/^[\w-]+: checking$/m.test(report!);
    });
    const report = await page.evaluate(() => document.querySelector('bio-diagnostics')!.start());
    assert.match(report, /^token-broker: ok$/m, report);
    assert.match(report, /^middleware: ok reachable \(HTTP \d+ without a token\)$/m, report);
    const loaded = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((n) => n.includes('/bioid-')),
    );
    assert.deepStrictEqual(
      loaded.map((n) => new URL(n).pathname + new URL(n).search),
      [
        '/wp-content/plugins/bioid/assets/bioid-elements.js?ver=0.1.0',
        '/wp-content/plugins/bioid/assets/bioid-diagnostics.js?ver=0.1.0',
      ].map((p) => p.replace('0.1.0', JSON.parse(readFileSync(resolve('package.json'), 'utf8')).version)),
    );
  });

  it("a signed-out visitor gets session-expired, with a link to WordPress's sign-in page that leads back", async () => {
    assert.ok(postUrl, 'the Author published the post');
    const { page } = await as(undefined, new URL(postUrl).pathname + new URL(postUrl).search);
    await page.waitForFunction(() => customElements.get('bio-verify'));
    const outcome = await runOperation(page, '.wp-block-bioid-verify bio-verify');
    assert.strictEqual(outcome.type, 'bio-error');
    assert.strictEqual(outcome.detail.code, 'session-expired');
    // The sign-in link comes from the page configuration, so pasted tags have it too.
    const href = await page.attribute('.wp-block-bioid-verify bio-verify >>> a[href]', 'href');
    assert.match(href ?? '', /\/wp-login\.php\?redirect_to=/);
    const pasted = await runOperation(page, 'bio-verify.pasted');
    assert.strictEqual(pasted.detail.code, 'session-expired');
    assert.match((await page.attribute('bio-verify.pasted >>> a[href]', 'href')) ?? '', /\/wp-login\.php\?redirect_to=/);
    await shoot(page, 'signed-out');
  });

  it('the identity provider and middleware URLs must be https outside loopback: a plain-http one is refused, naming the field', async () => {
    try {
      const { page } = await as('admin', '/wp-admin/options-general.php?page=bioid');
      await page.fill('#bioid-issuer-url', 'http://idp.example.com');
      await page.fill('#bioid-middleware-url', 'http://biometrics.example.com');
      await page.clickAndWaitForLoad('#submit');
      const errors = await page.text('.wrap');
      assert.include(errors, 'Identity provider URL must use https');
      assert.include(errors, 'Middleware URL must use https');
      assert.strictEqual(
        await site.php("echo get_option('bioid_settings')['issuer_url'];"),
        sim.idp.baseUrl,
        'the previous value was kept',
      );
      assert.strictEqual(await site.php("echo get_option('bioid_settings')['middleware_url'];"), sim.middleware.url);
      // A value that reached the database some other way gives no token (and the page says why).
      await site.php(
        "$s = get_option('bioid_settings'); $s['issuer_url'] = 'http://idp.example.com'; remove_all_filters('sanitize_option_bioid_settings'); update_option('bioid_settings', $s);",
      );
      const refused = await site.php("$t = bioid_client_token(true); echo is_wp_error($t) ? $t->get_error_message() : 'token';");
      assert.match(refused, /^Identity provider URL must use https/);
      assert.match(
        await (await as('admin', '/wp-admin/options-general.php?page=bioid')).page.text('.bioid-config-problem'),
        /Identity provider URL must use https/,
      );
    } finally {
      await site.php(
        `$s = get_option('bioid_settings'); $s['issuer_url'] = ${JSON.stringify(sim.idp.baseUrl)}; $s['middleware_url'] = ${JSON.stringify(sim.middleware.url)}; remove_all_filters('sanitize_option_bioid_settings'); update_option('bioid_settings', $s);`,
      );
    }
  });

  it("an identity provider's answer is read up to 1 MiB: a larger one gives no token", async () => {
    const huge = createServer((request, response) => {
      request.resume();
      response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ access_token: 'a'.repeat(2 * 1024 * 1024), expires_in: 300 }));
    });
    await new Promise<void>((done) => huge.listen(0, '127.0.0.1', done));
    const savedSettings = await site.php("echo wp_json_encode(get_option('bioid_settings'));");
    try {
      await site.php(
        `$s = get_option('bioid_settings'); $s['issuer_url'] = ${JSON.stringify(`http://127.0.0.1:${(huge.address() as AddressInfo).port}`)}; $s['realm'] = 'big'; update_option('bioid_settings', $s);`,
      );
      const answer = await site.php("$t = bioid_client_token(true); echo is_wp_error($t) ? $t->get_error_message() : 'token';");
      assert.match(answer, /answered without a usable access_token/);
    } finally {
      await site.php(
        `remove_all_filters('sanitize_option_bioid_settings'); update_option('bioid_settings', json_decode(${JSON.stringify(savedSettings)}, true)); delete_transient('bioid_client_token');`,
      );
      await new Promise<void>((done) => huge.close(() => done()));
    }
  });

  it('a site administrator cannot send the client secret elsewhere: with the secret in wp-config.php, the identity provider URL comes from there and the site form is ignored', async () => {
    let hits = 0;
    const attacker = createServer((request, response) => {
      hits += 1;
      request.resume();
      response.writeHead(500).end();
    });
    await new Promise<void>((done) => attacker.listen(0, '127.0.0.1', done));
    const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    const config = join(site.dir, 'site/wp-config.php');
    const original = readFileSync(config, 'utf8');
    const savedSettings = await site.php("echo wp_json_encode(get_option('bioid_settings'));");
    const constants = configConstants();
    const defines = Object.entries(constants)
      .map(([name, value]) => `define( '${name}', ${JSON.stringify(value)} );`)
      .join('\n');
    rewrite(config, original.replace("require_once ABSPATH . 'wp-settings.php';", `${defines}\nrequire_once ABSPATH . 'wp-settings.php';`));
    try {
      const { page } = await as('admin', '/wp-admin/options-general.php?page=bioid');
      // The administrator forges the form: the field given its name back, the attacker's server as its value.
      await page.evaluate(
        ({ url }) => {
          for (const [id, key] of [
            ['bioid-issuer-url', 'issuer_url'],
            ['bioid-middleware-url', 'middleware_url'],
          ]) {
            const input = document.getElementById(id!) as HTMLInputElement;
            input.readOnly = false;
            input.name = `bioid_settings[${key}]`;
            input.value = url;
          }
        },
        { url: attackerUrl },
      );
      await page.clickAndWaitForLoad('#submit');
      const token = await site.php(
        "delete_transient('bioid_client_token'); $t = bioid_client_token(); echo is_wp_error($t) ? 'error: ' . $t->get_error_code() : 'token';",
      );
      const brokered = await broker(await session('visitor'), { headers: { 'X-CSRF': '1' } });
      assert.strictEqual(hits, 0, "no request reached the administrator's server");
      assert.strictEqual(token, 'token', 'the exchange goes to the identity provider wp-config.php names');
      assert.strictEqual(brokered.status, 200);
      assert.strictEqual(await site.php("echo bioid_settings()['issuer_url'];"), sim.idp.baseUrl);
      assert.strictEqual(await site.php("echo bioid_settings()['middleware_url'];"), sim.middleware.url);
      assert.notInclude(
        await site.php("echo wp_json_encode(get_option('bioid_settings'));"),
        attackerUrl,
        'nothing of the forged form is stored',
      );
      // The page shows where they come from, read-only.
      await page.reload();
      assert.match(await page.text('.wrap'), /Set in wp-config\.php \(BIOID_ISSUER_URL\), with the client secret/);
      assert.isTrue(await page.evaluate(() => (document.getElementById('bioid-issuer-url') as HTMLInputElement).readOnly));
      assert.notInclude(await raw(page).content(), CLIENT.clientSecret);
    } finally {
      rewrite(config, original);
      // The settings as before the test, whatever the forged form did.
      await site.php(
        `remove_all_filters('sanitize_option_bioid_settings'); update_option('bioid_settings', json_decode(${JSON.stringify(savedSettings)}, true)); delete_transient('bioid_client_token');`,
      );
      await new Promise<void>((done) => attacker.close(() => done()));
    }
  });

  it("a verification is accepted once, whatever the spelling: the middleware's record must carry exactly the id asked for", async () => {
    // A middleware that finds ids ignoring case and trailing blanks.
    const record = { verificationId: 'Ver-Case-1', subjectId: SUBJECT, match: true, score: 0.93 };
    const lenient = createServer((request, response) => {
      const id = decodeURIComponent((request.url ?? '').replace(/^\/verifications\//, ''))
        .trim()
        .toLowerCase();
      if (id === record.verificationId.toLowerCase()) {
        response
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ ...record, createdAt: new Date().toISOString() }));
      } else response.writeHead(404).end();
    });
    await new Promise<void>((done) => lenient.listen(0, '127.0.0.1', done));
    const lenientUrl = `http://127.0.0.1:${(lenient.address() as AddressInfo).port}`;
    await site.php(
      `$s = get_option('bioid_settings'); $s['middleware_url'] = ${JSON.stringify(lenientUrl)}; update_option('bioid_settings', $s);`,
    );
    const confirm = async (id: string) =>
      JSON.parse(
        await site.php(
          `$r = bioid_confirm_verification(${JSON.stringify(id)}, ${JSON.stringify(SUBJECT)}); echo wp_json_encode(is_wp_error($r) ? array('code' => $r->get_error_code(), 'message' => $r->get_error_message()) : $r);`,
        ),
      ) as Record<string, unknown>;
    try {
      assert.deepInclude(await confirm('ver-case-1'), {
        code: 'verification-rejected',
        message: 'Verification rejected: the middleware answered for another id; verify again.',
      });
      const first = await confirm('Ver-Case-1');
      assert.strictEqual(first.match, true, JSON.stringify(first));
      for (const spelling of ['Ver-Case-1', 'VER-CASE-1', 'Ver-Case-1 ', 'ver-case-1\t']) {
        assert.strictEqual((await confirm(spelling)).code, 'verification-rejected', JSON.stringify(spelling));
      }
    } finally {
      await site.php(
        `$s = get_option('bioid_settings'); $s['middleware_url'] = ${JSON.stringify(sim.middleware.url)}; update_option('bioid_settings', $s);`,
      );
      await new Promise<void>((done) => lenient.close(() => done()));
    }
  });

  it("on a network with the client secret in wp-config.php, site 2's administrator ticks the grant and still gets 403: only a super admin grants the network's token", async () => {
    const network = await startNetwork();
    const siteAdmin = await network.cookie('siteadmin');
    const token = () => onSite2(network, '/wp-admin/admin-ajax.php?action=bioid_token', { cookie: siteAdmin, headers: { 'X-CSRF': '1' } });
    assert.strictEqual((await token()).status, 403, 'no grant yet');

    // Site 2's administrator posts Settings > BioID with their own role ticked for both capabilities.
    const posted = await postGrants(network, siteAdmin, 'administrator');
    assert.strictEqual(posted.status, 302, 'options.php took the post');
    const refused = await token();
    assert.strictEqual(refused.status, 403, "a site administrator's grant does not hand out the network's token");
    assert.notInclude(refused.text, 'access_token');
    const page = await onSite2(network, '/wp-admin/options-general.php?page=bioid', { cookie: siteAdmin });
    assert.match(page.text, /decided by a super admin of the network; this site cannot change it/);
    assert.notMatch(page.text, /name="bioid_role_caps\[/, 'the role checkboxes are shown, not sent');
    // Grants a site administrator saved before the secret moved to wp-config.php (no super admin's mark) do not count either.
    await network.php(
      "remove_all_filters('sanitize_option_bioid_role_caps'); update_option('bioid_role_caps', array('bioid_use_biometrics' => array('administrator'), 'bioid_enroll' => array()));",
    );
    assert.strictEqual((await token()).status, 403, 'grants saved by a site administrator earlier');

    // A super admin grants the same on the same page: now site 2's administrator gets the token.
    assert.strictEqual((await postGrants(network, await network.cookie('netadmin'), 'administrator')).status, 302);
    const granted = await token();
    assert.strictEqual(granted.status, 200, granted.text);
    assert.isString((JSON.parse(granted.text) as { access_token?: unknown }).access_token);
  });

  it('the plugin logged no PHP warning or notice', async () => {
    const ours = site
      .debugLog()
      .split('\n')
      .filter((line) => line.includes('/plugins/bioid/'));
    assert.deepStrictEqual(ours, []);
  });

  async function control(path: string, body: unknown): Promise<void> {
    const reply = await fetch(`${sim.localService.url}/sim/${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!reply.ok) throw new Error(`simulator control ${path} answered ${reply.status}`);
  }
});
