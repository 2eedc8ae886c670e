/**
 * `bioid-broker serve` in production (docs/operations.md): `/healthz` and `/readyz`, Prometheus metrics on
 * their own listener, one JSON log line per request at each `BIOID_LOG_LEVEL`, and OpenTelemetry spans.
 * In process (broker/src/serve.ts) against a stand-in identity provider that can be taken down; the
 * package's own process is tested from its tarball (test/package/broker.node.test.ts), SIGTERM in
 * sidecar.node.test.ts. Hostile values (tokens, cookies, secrets) go in through headers, the query and
 * the environment, and are hunted for in every line, metric and span.
 */
import { assert } from 'chai';
import { createHash } from 'node:crypto';
import { context, propagation, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { RequestEvent } from '../../src/broker/events.js';
import { BROKER_ENV } from '../../src/broker/config/env.js';
import {
  DEFAULT_METRICS_HOST,
  DEFAULT_SHUTDOWN_DELAY_MS,
  SERVE_ENV,
  serve,
  type RunningBroker,
  type ServeOptions,
} from '../../broker/src/serve.js';
import { LOG_LEVELS, createLog, logRequest } from '../../broker/src/logs.js';
import { startSessionCheck } from './bin-support.js';
import { startRedis, type RunningRedis } from './redis-server.js';
import { DEFAULT_REFUSED_TOKEN_INTERVAL_MS } from '../../src/broker/index.js';
import { installFakeDate } from '../support/fake-clock.js';
import { APP_ORIGIN, readBody, startServer, type LocalServer } from './support.js';

const SECRET = 'client-secret-Hostile-7d1e';
const STORE_KEY = Buffer.alloc(32, 7).toString('base64');
/** Values a caller or the environment may carry; none may show in a line, a metric or a span. */
const HOSTILE = {
  cookie: 'sid=alice; csrf_state=cookie-secret-4410; other=Cookie-Value-9931',
  bearer: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.hostile-bearer-sig',
  query: 'query-secret-6ab2',
  refused: 'refused-token-value-0c9d',
  requestId: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.request-id-that-is-a-token',
};

interface FakeIdp extends LocalServer {
  down: boolean;
  issued: string[];
  requests: number;
}

/** A token endpoint at /realms/r/protocol/openid-connect/token; `down` makes it answer 503. */
async function startFakeIdp(): Promise<FakeIdp> {
  const state = { down: false, issued: [] as string[], requests: 0 };
  const server = await startServer((req, res) => {
    void readBody(req).then(() => {
      state.requests += 1;
      if (state.down) {
        res.writeHead(503, { 'Content-Type': 'text/plain' }).end('down');
        return;
      }
      const token = `mw-token-${state.requests}-${'k'.repeat(24)}`;
      state.issued.push(token);
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 300 }));
    });
  });
  return Object.assign(state, server);
}

let idp: FakeIdp;
let sessions: Awaited<ReturnType<typeof startSessionCheck>>;
before(async () => {
  idp = await startFakeIdp();
  sessions = await startSessionCheck(['alice']);
});
after(async () => {
  await sessions?.close();
  await idp?.close();
});

const envOf = (extra: Record<string, string> = {}): Record<string, string> => ({
  BIOID_SESSION_CHECK_URL: `${sessions.url}/session-check?key=${HOSTILE.query}`,
  BIOID_CLIENT_ID: 'ops-client',
  BIOID_CLIENT_SECRET: SECRET,
  BIOID_AUTH_URL: idp.url,
  BIOID_REALM: 'r',
  BIOID_ALLOWED_ORIGINS: APP_ORIGIN,
  BIOID_PORT: '0',
  BIOID_TIMEOUT_MS: '2000',
  // The tests that refuse a token do so moments after it was issued (each waits `aged()` first).
  BIOID_REFUSED_TOKEN_MIN_AGE_MS: '1',
  ...extra,
});
/** Past BIOID_REFUSED_TOKEN_MIN_AGE_MS (1 ms): a timer never fires early. */
const aged = () => new Promise((resolve) => setTimeout(resolve, 5));

interface Running {
  broker: RunningBroker;
  lines: Record<string, unknown>[];
  raw: string[];
}

async function start(extra: Record<string, string> = {}, options: Pick<ServeOptions, 'storeReadyWaitMs'> = {}): Promise<Running> {
  const raw: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const broker = await serve({
    ...options,
    env: envOf(extra),
    write: (line) => {
      raw.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { broker, lines, raw };
}

const signedIn = { 'X-CSRF': '1', Cookie: 'sid=alice' };
/**
 * Until `done()`: a state the sidecar reaches (a line written, a status answered). The bound only turns a
 * state that never comes into a failure naming it; it is no pace.
 */
async function until(done: () => boolean | Promise<boolean>, why: string, ms = 15_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await done());) {
    if (Date.now() > deadline) assert.fail(why);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const token = (url: string, headers: Record<string, string> = signedIn) => fetch(`${url}/bioid/token`, { headers });
const refusedHash = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The value of one sample of a Prometheus text exposition, e.g. `bioid_broker_requests_total{outcome="token"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('bioid-broker serve: health and readiness', () => {
  it('/healthz answers 200 while the process serves; /readyz answers 200 once the configuration is loaded', async () => {
    const { broker } = await start();
    try {
      for (const path of ['/healthz', '/readyz']) {
        const response = await fetch(`${broker.url}${path}`);
        assert.strictEqual(response.status, 200, path);
        assert.deepStrictEqual(await response.json(), { status: 'ok' });
        assert.strictEqual(response.headers.get('cache-control'), 'no-store');
      }
    } finally {
      await broker.close();
    }
  });

  it('an identity provider that is down answers 502 to users and never makes /readyz unready', async () => {
    const { broker } = await start();
    idp.down = true;
    try {
      const answer = await token(broker.url);
      assert.strictEqual(answer.status, 502);
      assert.deepStrictEqual(Object.keys(await answer.json()), ['error']);
      assert.strictEqual((await fetch(`${broker.url}/readyz`)).status, 200);
    } finally {
      idp.down = false;
      await broker.close();
    }
  });

  it('with a shared store, /readyz answers 503 until the store has answered once, then 200, and stays 200 when the store goes away (fail-open)', async function () {
    this.timeout(30_000);
    const redis = await startRedis();
    await redis.stop();
    const { broker } = await start({
      BIOID_TOKEN_STORE_URL: `unix://${redis.socket}`,
      BIOID_TOKEN_STORE_KEY: STORE_KEY,
      BIOID_TOKEN_STORE_TIMEOUT_MS: '5000',
    });
    try {
      const before = await fetch(`${broker.url}/readyz`);
      assert.strictEqual(before.status, 503);
      assert.deepStrictEqual(await before.json(), { status: 'unready', reason: 'store-not-answered' });
      assert.strictEqual((await fetch(`${broker.url}/healthz`)).status, 200);
      assert.strictEqual((await token(broker.url)).status, 200, 'it serves without the store meanwhile');
      await redis.start();
      const deadline = Date.now() + 15_000;
      while ((await fetch(`${broker.url}/readyz`)).status !== 200) {
        if (Date.now() > deadline) assert.fail('/readyz did not turn 200 within 15 s of the store answering');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await redis.stop();
      assert.strictEqual((await fetch(`${broker.url}/readyz`)).status, 200, 'a store that is down takes no instance out');
      assert.strictEqual((await token(broker.url)).status, 200);
    } finally {
      await broker.close();
      await redis.close();
    }
  });

  it('a store that is down keeps /readyz 503 for the wait at most, then 200, serving without it: a restart during a store outage empties no load balancer', async function () {
    this.timeout(20_000);
    const redis = await startRedis();
    await redis.stop();
    // The wait is the behaviour: long enough that a loaded machine asks /readyz well within it.
    const storeReadyWaitMs = 3_000;
    const started = performance.now();
    const { broker } = await start(
      { BIOID_TOKEN_STORE_URL: `unix://${redis.socket}`, BIOID_TOKEN_STORE_KEY: STORE_KEY },
      { storeReadyWaitMs },
    );
    try {
      assert.strictEqual((await fetch(`${broker.url}/readyz`)).status, 503, 'waiting for the store');
      await until(async () => (await fetch(`${broker.url}/readyz`)).status === 200, 'not ready without the store once the wait was over');
      // A timer never fires early, however loaded the machine: a lower bound holds.
      assert.isAtLeast(performance.now() - started, storeReadyWaitMs, 'ready before the wait was over');
      assert.strictEqual((await token(broker.url)).status, 200);
    } finally {
      await broker.close();
      await redis.close();
    }
  });

  it('a store that takes the connection but refuses every command (it wants a password the URL does not give) has not answered: /readyz stays 503, past the wait too, and the log says authentication, never the password', async function () {
    this.timeout(20_000);
    const password = 'store-password-Hostile-51c0';
    const redis = await startRedis(['--requirepass', password]);
    const started = performance.now();
    const { broker, lines, raw } = await start(
      {
        BIOID_TOKEN_STORE_URL: `unix://${redis.socket}`,
        BIOID_TOKEN_STORE_KEY: STORE_KEY,
        BIOID_TOKEN_STORE_TIMEOUT_MS: '5000',
      },
      { storeReadyWaitMs: 300 },
    );
    try {
      // Connected and refused (the line says so), and past the wait too.
      await until(() => lines.some((l) => l.event === 'store-connection-error'), `no store-connection-error line among ${raw.join('\n')}`);
      await until(() => performance.now() - started > 300, 'the wait never ended');
      const ready = await fetch(`${broker.url}/readyz`);
      assert.strictEqual(ready.status, 503);
      assert.deepStrictEqual(await ready.json(), { status: 'unready', reason: 'store-not-answered' });
      assert.strictEqual((await token(broker.url)).status, 200, 'served without the store');
      const line = lines.find((l) => l.event === 'store-connection-error');
      assert.ok(line, `a store-connection-error line among ${raw.join('\n')}`);
      assert.strictEqual(line.error, 'authentication failed (NOAUTH)');
      assert.match(String(line.fix), /password/);
      assert.notInclude(raw.join('\n'), password);
    } finally {
      await broker.close();
      await redis.close();
    }
  });

  it('from close() on, /readyz answers 503 { status: "unready", reason: "stopping" } while requests are still served', async () => {
    const { broker } = await start();
    // A delay no loaded machine outlasts, cut short once the requests are answered.
    const closed = broker.close({ delayMs: 10_000 });
    try {
      const response = await fetch(`${broker.url}/readyz`);
      assert.strictEqual(response.status, 503);
      assert.deepStrictEqual(await response.json(), { status: 'unready', reason: 'stopping' });
      assert.strictEqual((await token(broker.url)).status, 200);
    } finally {
      broker.hurry();
      await closed;
    }
  });
});

describe('bioid-broker serve: metrics', () => {
  it('no metrics listener without BIOID_METRICS_PORT', async () => {
    const { broker, lines } = await start();
    try {
      assert.strictEqual(broker.metricsUrl, undefined);
      assert.notProperty(
        lines.find((l) => l.event === 'listening')!,
        'metrics',
      );
    } finally {
      await broker.close();
    }
  });

  it('GET /metrics on BIOID_METRICS_PORT (host 127.0.0.1) counts issued, cached, unauthorized and IdP down exactly; health, readiness and scrapes are not counted', async () => {
    const { broker, lines } = await start({ BIOID_METRICS_PORT: '0' });
    try {
      assert.match(broker.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      assert.strictEqual(lines.find((l) => l.event === 'listening')!.metrics, broker.metricsUrl);
      const issued = await token(broker.url);
      assert.strictEqual(issued.status, 200);
      const { access_token: accessToken } = (await issued.json()) as { access_token: string };
      assert.strictEqual((await token(broker.url)).status, 200, 'cached');
      assert.strictEqual((await token(broker.url, { 'X-CSRF': '1' })).status, 401, 'unauthorized');
      await fetch(`${broker.url}/healthz`);
      await fetch(`${broker.url}/readyz`);
      await fetch(broker.metricsUrl!);
      idp.down = true;
      // The middleware refused the cached token: the broker exchanges again, and the IdP is down.
      await aged();
      const down = await token(broker.url, { ...signedIn, 'X-Refused-Token': refusedHash(accessToken) });
      idp.down = false;
      assert.strictEqual(down.status, 502);

      const scrape = await fetch(broker.metricsUrl!);
      assert.strictEqual(scrape.status, 200);
      assert.match(scrape.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
      const text = await scrape.text();
      const expected: Record<string, number> = {
        'bioid_broker_requests_total{outcome="token"}': 2,
        'bioid_broker_requests_total{outcome="no-session"}': 1,
        'bioid_broker_requests_total{outcome="exchange-failed"}': 1,
        'bioid_broker_requests_total{outcome="csrf"}': 0,
        'bioid_broker_requests_total{outcome="preflight"}': 0,
        'bioid_broker_idp_exchanges_total{grant="client_credentials",result="ok"}': 1,
        'bioid_broker_idp_exchanges_total{grant="client_credentials",result="failed"}': 1,
        'bioid_broker_idp_exchanges_total{grant="client_credentials",result="refused"}': 0,
        'bioid_broker_idp_exchange_duration_seconds_count{grant="client_credentials",result="ok"}': 1,
        'bioid_broker_idp_exchange_duration_seconds_count{grant="client_credentials",result="failed"}': 1,
        'bioid_broker_idp_exchange_duration_seconds_bucket{le="10",grant="client_credentials",result="ok"}': 1,
        'bioid_broker_store_errors_total{operation="get"}': 0,
      };
      for (const [series, value] of Object.entries(expected)) assert.strictEqual(sample(text, series), value, series);
      const total = text
        .split('\n')
        .filter((l) => l.startsWith('bioid_broker_requests_total{'))
        .reduce((sum, l) => sum + Number(l.split(' ')[1]), 0);
      assert.strictEqual(total, 4, 'token requests only');
      assert.match(text, /# TYPE bioid_broker_idp_exchange_duration_seconds histogram/);
      for (const le of ['0.01', '0.1', '1', '10']) assert.include(text, `bioid_broker_idp_exchange_duration_seconds_bucket{le="${le}",`);
      for (const processMetric of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
        'nodejs_heap_size_used_bytes',
      ]) {
        assert.match(text, new RegExp(`^${processMetric}[ {]`, 'm'), processMetric);
      }
      for (const secret of [SECRET, accessToken, ...idp.issued, 'alice', HOSTILE.query]) assert.notInclude(text, secret);
      assert.strictEqual((await fetch(broker.metricsUrl!.replace('/metrics', '/other'))).status, 404);
    } finally {
      idp.down = false;
      await broker.close();
    }
  });
});

describe('bioid-broker serve: X-Refused-Token is untrusted input', () => {
  it('a client that loops (100 requests, each naming the token the one before was answered, 100 ms apart) costs at most 1 + 10 s / BIOID_REFUSED_TOKEN_INTERVAL_MS exchanges, and bioid_broker_refused_token_hints_total counts every hint by result', async () => {
    // Time is the subject: Date is fake (timers and sockets stay real), moved 100 ms per request.
    const clock = installFakeDate();
    // The defaults: a token is replaced once a second old, at most once per 10 s.
    const { broker, lines } = await start({ BIOID_METRICS_PORT: '0', BIOID_REFUSED_TOKEN_MIN_AGE_MS: '', BIOID_LOG_LEVEL: 'debug' });
    try {
      let answer = (await (await token(broker.url)).json()) as { access_token: string };
      const before = idp.requests;
      for (let k = 0; k < 100; k++) {
        clock.tick(100);
        answer = (await (await token(broker.url, { ...signedIn, 'X-Refused-Token': refusedHash(answer.access_token) })).json()) as {
          access_token: string;
        };
      }
      const exchanges = idp.requests - before;
      assert.isAtMost(exchanges, 1 + 10_000 / DEFAULT_REFUSED_TOKEN_INTERVAL_MS);
      // Honoured once the first token is a second old; the interval (10 s) outlasts the rest of the loop.
      assert.strictEqual(exchanges, 1);
      const text = await (await fetch(broker.metricsUrl!)).text();
      const hints = Object.fromEntries(
        ['honoured', 'not-held', 'too-young', 'too-soon'].map((result) => [
          result,
          sample(text, `bioid_broker_refused_token_hints_total{result="${result}"}`),
        ]),
      );
      assert.deepStrictEqual(hints, { honoured: 1, 'not-held': 0, 'too-young': 9, 'too-soon': 90 });
      // Each hint at debug, by its result alone: no hash, no token.
      await until(() => lines.filter((l) => l.event === 'refused-token').length === 100, 'a debug line per hint');
      for (const line of lines.filter((l) => l.event === 'refused-token')) {
        assert.deepStrictEqual(Object.keys(line).sort(), ['event', 'level', 'result', 'time']);
      }
      for (const issued of idp.issued) assert.notInclude(text + JSON.stringify(lines), refusedHash(issued));
    } finally {
      await broker.close();
      clock.restore();
    }
  });
});

describe('docs/operations.md', () => {
  it('names every variable of serve, of the broker and of check, and every bioid_broker_ metric of a scrape, with the default metrics host', async () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    for (const name of [...Object.values(SERVE_ENV), ...Object.values(BROKER_ENV), 'BIOID_CHECK_COOKIE', 'BIOID_CHECK_SECOND_COOKIE']) {
      assert.include(doc, `\`${name}\``, name);
    }
    const { broker } = await start({ BIOID_METRICS_PORT: '0' });
    try {
      const text = await (await fetch(broker.metricsUrl!)).text();
      const names = new Set([...text.matchAll(/^# TYPE (bioid_broker_\w+) /gm)].map((m) => m[1]!));
      assert.strictEqual(names.size, 5);
      for (const name of names) assert.include(doc, `\`${name}\``, name);
    } finally {
      await broker.close();
    }
    assert.include(doc, `| \`BIOID_METRICS_HOST\` | the metrics listener's interface | \`${DEFAULT_METRICS_HOST}\` |`);
    assert.include(doc, `| \`BIOID_SHUTDOWN_DELAY_MS\``);
    assert.include(doc, `| \`${DEFAULT_SHUTDOWN_DELAY_MS}\` |`);
  });
});

describe('bioid-broker serve: logs', () => {
  it('one JSON line per token request: request id (X-Request-Id when it is a plain id, else a new one, answered in X-Request-Id), outcome, status and duration', async () => {
    const { broker, lines } = await start();
    try {
      const kept = await token(broker.url, { ...signedIn, 'X-Request-Id': 'lb-7f3a9c' });
      assert.strictEqual(kept.headers.get('x-request-id'), 'lb-7f3a9c');
      const replaced = await token(broker.url, { ...signedIn, 'X-Request-Id': HOSTILE.requestId });
      const fresh = replaced.headers.get('x-request-id')!;
      assert.match(fresh, /^[0-9a-f-]{36}$/);
      await token(broker.url, { 'X-CSRF': '1', Cookie: 'sid=mallory' });
      await fetch(`${broker.url}/healthz`);
      const requests = () => lines.filter((l) => l.event === 'request' || l.event === 'refused');
      // Each line is written as its response ends, which the client may see first.
      await until(() => requests().length >= 3, 'three request lines');
      assert.deepStrictEqual(
        requests().map((l) => [l.level, l.event, l.requestId, l.outcome, l.status]),
        [
          ['info', 'request', 'lb-7f3a9c', 'token', 200],
          ['info', 'request', fresh, 'token', 200],
          ['warn', 'refused', requests()[2]!.requestId, 'no-session', 401],
        ],
      );
      for (const line of requests()) {
        assert.isAtLeast(line.durationMs as number, 0);
        assert.match(line.time as string, /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      }
    } finally {
      await broker.close();
    }
  });

  for (const level of LOG_LEVELS) {
    it(`BIOID_LOG_LEVEL=${level}: no line holds a token, cookie or secret from headers, query or environment`, async () => {
      const { broker, lines, raw } = await start({ BIOID_LOG_LEVEL: level });
      try {
        const hostile = {
          ...signedIn,
          Cookie: HOSTILE.cookie,
          Authorization: HOSTILE.bearer,
          'X-Request-Id': HOSTILE.requestId,
          Origin: APP_ORIGIN,
        };
        const issued = (await (
          await fetch(`${broker.url}/bioid/token?access_token=${HOSTILE.query}&client_secret=${HOSTILE.query}`, { headers: hostile })
        ).json()) as { access_token: string };
        await fetch(`${broker.url}/t?code=${HOSTILE.query}`, { headers: { ...hostile, 'X-Refused-Token': HOSTILE.refused } });
        await fetch(`${broker.url}/t`, { headers: { Cookie: HOSTILE.cookie, Authorization: HOSTILE.bearer } });
        await fetch(`${broker.url}/t`, {
          method: 'OPTIONS',
          headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET', Cookie: HOSTILE.cookie },
        });
        idp.down = true;
        await aged();
        await fetch(`${broker.url}/t`, { headers: { ...hostile, 'X-Refused-Token': refusedHash(issued.access_token) } });
        idp.down = false;
        const expected = { fatal: 0, error: 1, warn: 3, info: 5, debug: 5, trace: 5, silent: 0 }[level];
        const requestLines = () => lines.filter((l) => l.event === 'request' || l.event === 'refused');
        // Each line is written as its response ends, which the client may see first.
        await until(() => requestLines().length >= expected, `${expected} request lines at ${level}`);
        const output = raw.join('\n');
        for (const secret of [
          SECRET,
          issued.access_token,
          ...idp.issued,
          HOSTILE.query,
          HOSTILE.refused,
          HOSTILE.requestId,
          'cookie-secret-4410',
          'Cookie-Value-9931',
          'sid=alice',
          'hostile-bearer-sig',
          'eyJ',
        ]) {
          assert.notInclude(output, secret);
        }
        assert.strictEqual(requestLines().length, expected, `request lines at ${level}`);
        if (level === 'debug' || level === 'trace')
          assert.ok(
            lines.some((l) => l.event === 'exchange' && l.grant === 'client_credentials'),
            'exchanges at debug',
          );
        if (level === 'silent') assert.deepStrictEqual(raw, []);
      } finally {
        idp.down = false;
        await broker.close();
      }
    });
  }

  it('redaction: a line that ever carried a cookie, an Authorization header, a token or a secret (top level, headers, query) writes [redacted] instead, at every level', () => {
    for (const level of LOG_LEVELS.filter((l) => l !== 'silent')) {
      const written: string[] = [];
      const { log } = createLog(level, (line) => void written.push(line));
      log[level]({
        cookie: HOSTILE.cookie,
        access_token: 'mw-token-in-a-line',
        client_secret: SECRET,
        headers: { cookie: HOSTILE.cookie, authorization: HOSTILE.bearer, 'x-refused-token': HOSTILE.refused },
        req: { headers: { cookie: HOSTILE.cookie } },
        query: { access_token: HOSTILE.query, code: 'kept' },
      });
      assert.strictEqual(written.length, 1, level);
      for (const secret of [HOSTILE.cookie, 'mw-token-in-a-line', SECRET, HOSTILE.bearer, HOSTILE.refused, HOSTILE.query])
        assert.notInclude(written[0], secret, level);
      const line = JSON.parse(written[0]!) as { cookie: string; headers: Record<string, string>; query: Record<string, string> };
      assert.strictEqual(line.cookie, '[redacted]');
      assert.strictEqual(line.headers.authorization, '[redacted]');
      assert.strictEqual(line.query.code, 'kept');
    }
  });

  it('the request line made without pino (writeLine) is the line pino makes from the same fields, byte for byte', () => {
    const written: string[] = [];
    const { log, writeLine } = createLog('info', (line) => void written.push(line));
    const events: RequestEvent[] = [
      { type: 'request', outcome: 'token', status: 200, durationMs: 0.123456 },
      { type: 'request', outcome: 'preflight', status: 204, durationMs: 12 },
    ];
    for (const event of events) {
      for (const req of [{ method: 'GET', headers: { 'x-request-id': 'lb-7f3a9c' } }, { method: 'OPTIONS', headers: {} }, undefined]) {
        const context = req ? { req: req as unknown as IncomingMessage } : undefined;
        logRequest(log, event, context, writeLine);
        logRequest(log, event, context);
        const [fast, viaPino] = written.splice(0).map((line) => line.replace(/"time":"[^"]+"/, '"time":"T"'));
        assert.strictEqual(fast, viaPino);
      }
    }
  });

  it('log lines to a file descriptor: batched, in order, and the ones still on their way written before a last line and flush (as at a stop)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bioid-log-'));
    const path = join(dir, 'out.log');
    const fd = openSync(path, 'w');
    try {
      const { log, flush, settle } = createLog('info', undefined, fd);
      for (let i = 0; i < 500; i++) log.info({ event: 'request', n: i });
      // The batch's timer has fired: its write is with the system, or done.
      await new Promise((resolve) => setTimeout(resolve, 15));
      log.info({ event: 'request', n: 500 });
      await settle(1_000);
      log.info({ event: 'stopped' });
      flush();
      const lines = readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; n?: number; time: string });
      assert.deepStrictEqual(
        lines.map((l) => l.n ?? l.event),
        [...Array.from({ length: 501 }, (_, i) => i), 'stopped'],
      );
      for (const line of lines) assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a BIOID_LOG_LEVEL, BIOID_METRICS_PORT or BIOID_SHUTDOWN_DELAY_MS that is not valid stops start-up naming the variable', async () => {
    for (const [name, value] of [
      ['BIOID_LOG_LEVEL', 'loud'],
      ['BIOID_METRICS_PORT', '99999'],
      ['BIOID_SHUTDOWN_DELAY_MS', '-1'],
    ] as const) {
      const error = await serve({ env: envOf({ [name]: value }), write: () => {} }).then(
        () => assert.fail(`${name}=${value} was accepted`),
        (e: Error) => e,
      );
      assert.include(error.message, name);
    }
  });
});

describe('bioid-broker serve: traces (OpenTelemetry, through the SDK an operator registers)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  before(() => {
    trace.setGlobalTracerProvider(provider);
  });
  after(async () => {
    trace.disable();
    context.disable();
    propagation.disable();
    await provider.shutdown();
  });

  it('spans for the IdP exchange (HTTP client conventions) and for each store operation (database client conventions), none holding a token, cookie or secret', async function () {
    this.timeout(20_000);
    const redis: RunningRedis = await startRedis();
    const { broker } = await start({
      BIOID_TOKEN_STORE_URL: `unix://${redis.socket}`,
      BIOID_TOKEN_STORE_KEY: STORE_KEY,
      BIOID_TOKEN_STORE_TIMEOUT_MS: '5000',
    });
    try {
      const deadline = Date.now() + 10_000;
      while ((await fetch(`${broker.url}/readyz`)).status !== 200) {
        if (Date.now() > deadline) assert.fail('the store did not answer within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      exporter.reset();
      const answer = await token(broker.url, { ...signedIn, Cookie: HOSTILE.cookie, Authorization: HOSTILE.bearer });
      assert.strictEqual(answer.status, 200);
      const { access_token: accessToken } = (await answer.json()) as { access_token: string };
      // The token is answered first; the store's write and the lock's release end after it, so their spans may come a moment later.
      const storeNames = () =>
        exporter
          .getFinishedSpans()
          .filter((s) => s.attributes['db.system.name'] === 'redis')
          .map((s) => s.name);
      for (const until = Date.now() + 5_000; !['SET', 'EVAL'].every((name) => storeNames().includes(name)) && Date.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const spans = exporter.getFinishedSpans();
      const idpSpan = spans.find((s) => s.attributes['bioid.broker.peer'] === 'identity-provider');
      assert.ok(idpSpan, `an IdP span among ${spans.map((s) => s.name).join(', ')}`);
      assert.strictEqual(idpSpan.name, 'POST');
      assert.strictEqual(idpSpan.kind, 2 /* SpanKind.CLIENT */);
      const idpUrl = new URL(idp.url);
      assert.deepInclude(idpSpan.attributes, {
        'http.request.method': 'POST',
        'server.address': idpUrl.hostname,
        'server.port': Number(idpUrl.port),
        'url.full': `${idp.url}/realms/r/protocol/openid-connect/token`,
        'http.response.status_code': 200,
      });
      const store = spans.filter((s) => s.attributes['db.system.name'] === 'redis');
      assert.includeMembers(
        store.map((s) => s.name),
        ['GET', 'SET', 'EVAL'],
      );
      for (const span of store) assert.strictEqual(span.attributes['db.operation.name'], span.name);
      const everything = JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
      for (const secret of [SECRET, accessToken, STORE_KEY, HOSTILE.query, 'cookie-secret-4410', 'sid=alice', 'hostile-bearer-sig'])
        assert.notInclude(everything, secret);

      idp.down = true;
      exporter.reset();
      await aged();
      await token(broker.url, { ...signedIn, 'X-Refused-Token': refusedHash(accessToken) });
      idp.down = false;
      const failed = exporter.getFinishedSpans().find((s) => s.attributes['bioid.broker.peer'] === 'identity-provider')!;
      assert.deepInclude(failed.attributes, { 'http.response.status_code': 503, 'error.type': '503' });
      assert.strictEqual(failed.status.code, 2 /* SpanStatusCode.ERROR */);
    } finally {
      idp.down = false;
      await broker.close();
      await redis.close();
    }
  });
});
