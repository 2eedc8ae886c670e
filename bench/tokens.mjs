// Section 2: token economy, counted (never timed).
//  a) the real elements in Chromium: 3 elements × 20 operations within one token life → broker calls;
//  b) core reader, 50 concurrent first uses → getToken calls;
//  c) core reader, 50 concurrent 401s → refreshes;
//  d) 5 minutes of simulated time (fake timers: Date and setTimeout), tokens of 60 s from the core's
//     idpClientCredentials exchange, one operation every 500 ms → 401s from a middleware that rejects
//     expired tokens (proactive refresh means there should be none);
//  e) the first click in Chromium: broker calls while nobody approaches, requests between the click and
//     the dispatch after a hover, click-to-dispatch time against a bare fetch.
import { setTimeout as sleep } from 'node:timers/promises';
import FakeTimers from '@sinonjs/fake-timers';
import { browser, definedTags, sendJson, startServer, waitFor } from './browser.mjs';
import { fmt, notMeasured, row } from './report.mjs';

const SECTION = '2 Token economy';
const MIDDLEWARE = 'https://middleware.bench.invalid';
const VERIFY = '/orchestrator/verify';
const verified = (subjectId) => ({ subjectId, match: true, score: 0.9, verificationId: `v-${subjectId}` });

async function core() {
  const { createFingerprintReader, BioID } = await import('../src/index.ts');
  const { fakeNetwork, json, text } = await import('../test/support/fake-network.ts');
  return { createFingerprintReader, BioID, fakeNetwork, json, text };
}

const bearerOf = (call) => call.headers.get('authorization')?.replace(/^Bearer /, '');

/** 50 verifies at once on a pinned reader whose getToken takes a broker round trip (the others arrive meanwhile). */
async function fiftyAtOnce(createFingerprintReader, net, getToken) {
  const reader = createFingerprintReader({
    getToken: async () => {
      const token = getToken();
      await new Promise((r) => setTimeout(r, 5));
      return token;
    },
    middlewareUrl: MIDDLEWARE,
    workstationId: 'ws-1',
    deviceId: 'reader-1',
    fetchImpl: net.fetch,
  });
  const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => reader.verify({ subjectId: `s${i}` })));
  reader.close();
  return results.filter((r) => r.status === 'rejected').length;
}

/** b) 50 operations start at once on a fresh reader: its getToken should be called once. */
async function concurrentFirstUses() {
  const { createFingerprintReader, fakeNetwork, json } = await core();
  const net = fakeNetwork().on('POST', VERIFY, (call) => json(verified(call.body.subjectId)));
  let calls = 0;
  const failed = await fiftyAtOnce(createFingerprintReader, net, () => {
    calls += 1;
    return 'token-1';
  });
  return { calls, failed, requests: net.callsTo(VERIFY).length };
}

/** c) 50 operations in flight all get a 401 for the same token: one refresh, then 50 retries. */
async function concurrent401s() {
  const { createFingerprintReader, fakeNetwork, json, text } = await core();
  const net = fakeNetwork().on('POST', VERIFY, (call) =>
    bearerOf(call) === 'token-1' ? text('expired', 401) : json(verified(call.body.subjectId)),
  );
  let issued = 0;
  const failed = await fiftyAtOnce(createFingerprintReader, net, () => `token-${++issued}`);
  const rejected = net.callsTo(VERIFY).filter((c) => bearerOf(c) === 'token-1').length;
  return { refreshes: issued - 1, failed, rejected, requests: net.callsTo(VERIFY).length };
}

/**
 * d) Five minutes on a virtual clock. The IdP issues 60 s tokens (the core's client_credentials
 * exchange, cached by TokenCache until just under expires_in); the middleware answers 401 to a token
 * past its 60 s. One verify every 500 ms of virtual time.
 */
async function steadyState() {
  const { BioID, fakeNetwork, json, text } = await core();
  const clock = FakeTimers.install({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  try {
    const issuedAt = new Map();
    let exchanges = 0;
    let unauthorized = 0;
    const net = fakeNetwork()
      .on('POST', 'https://idp.bench.invalid/realms/bench/protocol/openid-connect/token', () => {
        exchanges += 1;
        const token = `token-${exchanges}`;
        issuedAt.set(token, Date.now());
        return json({ access_token: token, expires_in: 60, token_type: 'Bearer' });
      })
      .on('POST', VERIFY, (call) => {
        const born = issuedAt.get(bearerOf(call));
        if (born === undefined || Date.now() >= born + 60_000) {
          unauthorized += 1;
          return text('token expired', 401);
        }
        return json(verified(call.body.subjectId));
      });
    const bio = new BioID({
      middlewareUrl: MIDDLEWARE,
      integratorId: 'bench',
      auth: {
        type: 'idpClientCredentials',
        clientId: 'bench',
        clientSecret: 'bench-secret',
        issuerUrl: 'https://idp.bench.invalid/realms/bench',
      },
      workstationId: 'ws-1',
      deviceId: 'reader-1',
      fetchImpl: net.fetch,
    });
    const DURATION = 5 * 60_000;
    const STEP = 500;
    let operations = 0;
    let failed = 0;
    for (let t = 0; t < DURATION; t += STEP) {
      const op = bio.reader.verify({ subjectId: `s${operations}` }).catch(() => {
        failed += 1;
      });
      operations += 1;
      await clock.tickAsync(STEP);
      await op;
    }
    bio.close();
    return { operations, failed, unauthorized, exchanges };
  } finally {
    clock.uninstall();
  }
}

/**
 * a) The real elements: <bio-enroll>, <bio-verify>, <bio-search> on one page, sharing one token
 * endpoint; 20 rounds in which all three run an operation at once. The broker stub issues 300 s
 * tokens, so the whole run is within one token life.
 */
async function elementsEconomy(shared) {
  const tags = ['bio-enroll', 'bio-verify', 'bio-search'];
  const { defined, why } = await definedTags(shared, tags);
  if (defined.length < tags.length) return { why };
  let brokerCalls = 0;
  let badBearer = 0;
  const middleware = (body) => (req, res) => {
    if (req.headers.authorization !== 'Bearer bench-token-1') badBearer += 1;
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => sendJson(res, 200, body(raw ? JSON.parse(raw) : {})));
  };
  const server = await startServer(shared.root, {
    pages: {
      '/': `<!doctype html><html lang="en"><body>
        <bio-enroll middleware-url="/mw" token-endpoint="/token" local-service-url="/ls" subject-id="alice"></bio-enroll>
        <bio-verify middleware-url="/mw" token-endpoint="/token" local-service-url="/ls" subject-id="alice"></bio-verify>
        <bio-search middleware-url="/mw" token-endpoint="/token" local-service-url="/ls"></bio-search>
        <script src="/dist/bioid-elements.js"></script></body></html>`,
    },
    routes: {
      'GET /token': (_req, res) => {
        brokerCalls += 1;
        sendJson(res, 200, { access_token: 'bench-token-1', expires_in: 300 });
      },
      'GET /ls/status': (_req, res) => sendJson(res, 200, { workstationId: 'ws-1', devices: [{ deviceId: 'reader-1', connected: true }] }),
      'POST /mw/orchestrator/enroll': middleware((b) => ({ subjectId: b.subjectId, enrollmentId: 'e-1', quality: 80 })),
      'POST /mw/orchestrator/verify': middleware((b) => verified(b.subjectId)),
      'POST /mw/orchestrator/search': middleware(() => ({ candidates: [{ subjectId: 'alice', score: 0.9 }], searchId: 'q-1' })),
    },
  });
  const page = await (await browser(shared)).newPage();
  try {
    await page.goto(`${server.origin}/`);
    await waitFor(page, (t) => t.every((tag) => customElements.get(tag)), tags, 5000);
    const outcome = await page.evaluate(async (t) => {
      const els = t.map((tag) => document.querySelector(tag));
      let ok = 0;
      const errors = [];
      for (let round = 0; round < 20; round++) {
        const settled = await Promise.allSettled(els.map((el) => el.start()));
        for (const s of settled) {
          if (s.status === 'fulfilled') ok += 1;
          else errors.push(String(s.reason?.code ?? s.reason?.message ?? s.reason));
        }
      }
      return { ok, errors: errors.slice(0, 3) };
    }, tags);
    return { brokerCalls, operations: 60, ok: outcome.ok, errors: outcome.errors, badBearer };
  } finally {
    await page.close();
    await server.close();
  }
}

/**
 * e) The first click (docs/performance.md): one <bio-verify> on a page. A page nobody approaches for
 * 3 s calls the broker 0 times; after a hover (the first sign of intent) the click sends only the
 * dispatch: requests the page starts between the click and the dispatch, counted by puppeteer, the
 * local service's /status included (the element is not pinned and nothing else on the page polls, so a
 * /status request there is the click's own discovery); and the time from the click to the
 * dispatch's start against a bare fetch's round trip to the same server, both from the page's resource
 * timing.
 */
async function firstClick(shared) {
  const { defined, why } = await definedTags(shared, ['bio-verify']);
  if (defined.length === 0) return { why };
  let brokerCalls = 0;
  const server = await startServer(shared.root, {
    pages: {
      '/': `<!doctype html><html lang="en"><body>
        <bio-verify middleware-url="/mw" token-endpoint="/token" local-service-url="/ls" subject-id="alice"></bio-verify>
        <script src="/dist/bioid-elements.js"></script></body></html>`,
    },
    routes: {
      'GET /token': (_req, res) => {
        brokerCalls += 1;
        sendJson(res, 200, { access_token: 'bench-token-1', expires_in: 300 });
      },
      'GET /ping': (_req, res) => sendJson(res, 200, {}),
      'GET /ls/status': (_req, res) => sendJson(res, 200, { workstationId: 'ws-1', devices: [{ deviceId: 'reader-1', connected: true }] }),
      'POST /mw/orchestrator/verify': (req, res) => {
        req.resume();
        req.on('end', () => sendJson(res, 200, verified('alice')));
      },
    },
  });
  const page = await (await browser(shared)).newPage();
  try {
    await page.goto(`${server.origin}/`);
    await waitFor(page, () => customElements.get('bio-verify'), undefined, 5000);
    await sleep(3000);
    const untouched = brokerCalls;
    await page.hover('bio-verify');
    await sleep(500); // the warm-up's token round trip, many times over
    const started = [];
    page.on('request', (r) => started.push(r.url()));
    await page.evaluate(() => {
      window.__clickedAt = undefined;
      document.addEventListener('click', () => (window.__clickedAt ??= performance.now()), { capture: true });
    });
    const outcome = page.evaluate(
      () =>
        new Promise((resolve) => {
          const el = document.querySelector('bio-verify');
          el.addEventListener('bio-result', () => resolve('bio-result'), { once: true });
          el.addEventListener('bio-error', (e) => resolve(`bio-error ${e.detail.code}`), { once: true });
        }),
    );
    // `>>>`: puppeteer's selector into the element's shadow root.
    await page.locator('bio-verify >>> [part="button"]').setTimeout(5000).click();
    const settled = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('nothing within 5 s'), 5000))]);
    if (settled !== 'bio-result') throw new Error(`the verify click gave ${settled}`);
    const upToDispatch = started.slice(0, started.findIndex((url) => url.endsWith('/orchestrator/verify')) + 1);
    const timing = await page.evaluate(async () => {
      const dispatch = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/orchestrator/verify'));
      const rtts = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await (await fetch('/ping', { cache: 'no-store' })).json();
        rtts.push(performance.now() - t0);
      }
      rtts.sort((a, b) => a - b);
      return { clickToDispatch: dispatch.startTime - window.__clickedAt, rtt: rtts[2] };
    });
    return { untouched, requests: upToDispatch.length, paths: upToDispatch.map((u) => new URL(u).pathname), ...timing };
  } finally {
    await page.close();
    await server.close();
  }
}

export async function runTokens(shared) {
  const rows = [];
  const eq1 = (n) => (n === 1 ? 'pass' : 'MISS');
  const missBy = (n) => (n === 1 ? '' : `${n - 1} call(s) more than 1`);

  const first = await concurrentFirstUses();
  rows.push(
    row(
      SECTION,
      'getToken calls: 50 concurrent first uses (core reader)',
      fmt(first.calls),
      '= 1',
      first.failed === 0 ? eq1(first.calls) : 'MISS',
      [missBy(first.calls), `${50 - first.failed}/50 operations succeeded`].filter(Boolean).join('; '),
    ),
  );

  const burst = await concurrent401s();
  rows.push(
    row(
      SECTION,
      'refreshes: 50 concurrent 401s (core reader)',
      fmt(burst.refreshes),
      '= 1',
      burst.failed === 0 ? eq1(burst.refreshes) : 'MISS',
      [missBy(burst.refreshes), `${burst.rejected} requests got the 401, ${50 - burst.failed}/50 operations succeeded after one retry`]
        .filter(Boolean)
        .join('; '),
    ),
  );

  const steady = await steadyState();
  const { cacheLifetimeMs } = await import('../src/core/token-cache.ts');
  const leewayS = 60 - cacheLifetimeMs(60) / 1000;
  rows.push(
    row(
      SECTION,
      '401s seen: 5 min simulated, 60 s tokens, 1 op / 500 ms (core, idpClientCredentials)',
      fmt(steady.unauthorized),
      '= 0',
      steady.unauthorized === 0 && steady.failed === 0 ? 'pass' : 'MISS',
      `${steady.operations} operations, ${steady.failed} failed; ${steady.exchanges} IdP exchanges (each token replaced ${fmt(leewayS)} s before expiry: leeway min(30 s, lifetime/10))`,
    ),
  );

  // Last, and its rows first: the fake timers above must not run while puppeteer's own timers are pending.
  const elementRows = [];
  try {
    const e = await elementsEconomy(shared);
    if (e.why) {
      elementRows.push(
        notMeasured(SECTION, 'broker calls: 3 elements × 20 operations, one token life (Chromium)', e.why, '= 1 per page per token life'),
      );
    } else {
      const note = [
        missBy(e.brokerCalls),
        `${e.ok}/60 operations succeeded`,
        e.errors.length ? `errors: ${e.errors.join(', ')}` : '',
        e.badBearer ? `${e.badBearer} middleware calls without the broker token` : '',
      ]
        .filter(Boolean)
        .join('; ');
      const verdict = e.ok === 60 ? eq1(e.brokerCalls) : 'MISS';
      elementRows.push(
        row(
          SECTION,
          'broker calls: 3 elements × 20 operations, one token life (Chromium)',
          fmt(e.brokerCalls),
          '= 1 per page per token life',
          verdict,
          note,
        ),
      );
    }
  } catch (error) {
    elementRows.push(
      notMeasured(
        SECTION,
        'broker calls: 3 elements × 20 operations',
        `failed (${error instanceof Error ? error.message.split('\n')[0] : error})`,
        '= 1',
      ),
    );
  }

  try {
    const f = await firstClick(shared);
    if (f.why) {
      elementRows.push(notMeasured(SECTION, 'the first click (Chromium)', f.why));
    } else {
      elementRows.push(
        row(
          SECTION,
          'broker calls: a page with <bio-verify> that nobody approaches, 3 s (Chromium)',
          fmt(f.untouched),
          '= 0',
          f.untouched === 0 ? 'pass' : 'MISS',
          'the token is asked for on the first sign of intent only',
        ),
        row(
          SECTION,
          'requests from the click to the dispatch, after a hover (Chromium)',
          fmt(f.requests),
          '= 1',
          f.requests === 1 ? 'pass' : 'MISS',
          `${f.requests === 1 ? 'the dispatch alone' : 'in order'}: ${f.paths.join(', ') || 'none'}; an element that is not pinned`,
        ),
        row(
          SECTION,
          "click to the dispatch's start vs a bare fetch round trip to the same server (ms)",
          `${f.clickToDispatch.toFixed(1)} vs ${f.rtt.toFixed(1)}`,
          '',
          '—',
          'resource timing in the page; median of 5 bare fetches',
        ),
      );
    }
  } catch (error) {
    elementRows.push(
      notMeasured(SECTION, 'the first click (Chromium)', `failed (${error instanceof Error ? error.message.split('\n')[0] : error})`),
    );
  }

  rows.unshift(...elementRows);

  return {
    rows,
    methods: [
      'Token economy (counts): a) the built bundle in headless Chromium, <bio-enroll>, <bio-verify>, <bio-search> sharing token-endpoint="/token" on a local server (broker stub issuing 300 s tokens, middleware and /status stubs); 20 rounds of all three `start()` at once; GETs to /token counted. b, c) `createFingerprintReader` (pinned) with the in-memory fetch of test/support/fake-network.ts; getToken takes 5 ms so concurrent callers overlap. d) `new BioID({ auth: idpClientCredentials })` with @sinonjs/fake-timers faking Date and setTimeout; the fake IdP issues 60 s tokens, the fake middleware answers 401 to any token older than 60 s.',
    ],
  };
}
