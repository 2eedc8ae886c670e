/**
 * `bioid-broker serve`, the reference broker as a process for backends in any language (forward-auth
 * session gate, /healthz, SIGTERM, one JSON line per refused request), checked by `bioid-broker check`
 * against docs/broker-contract.md. Runs the command of the bioid-broker package (broker/) from its source.
 */
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { decodeJwt } from 'jose';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { APP_ORIGIN, CLIENT, startServer } from './support.js';
import { CLI, loggedLines, runBin, startSessionCheck, startSidecar, type Sidecar } from './bin-support.js';
import { BROKER_ENV } from '../../src/broker/index.js';
import { SERVE_ENV } from '../../broker/src/serve-env.js';
import { CHECK_ENV } from '../../broker/src/check-env.js';

let idp: RunningIdp;
before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

const brokerEnv = (sessionCheckUrl: string, extra: Record<string, string> = {}) => ({
  BIOID_SESSION_CHECK_URL: sessionCheckUrl,
  BIOID_CLIENT_ID: CLIENT.clientId,
  BIOID_CLIENT_SECRET: CLIENT.clientSecret,
  BIOID_AUTH_URL: idp.baseUrl,
  BIOID_REALM: idp.realm,
  BIOID_ALLOWED_ORIGINS: APP_ORIGIN,
  BIOID_MIDDLEWARE_URL: 'https://mw.example.com',
  ...extra,
});

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });
const json = async (response: Response) => (await response.json()) as Record<string, unknown>;

describe('bioid-broker, the sidecar package', () => {
  it('bioid-broker is its own package beside simulator/: bin bioid-broker, depending on bioid-sdk, redis, prom-client, pino and @opentelemetry/api; bioid-sdk has no bin and two runtime dependencies', () => {
    const sdk = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      bin?: unknown;
      dependencies: Record<string, string>;
    };
    const sidecar = JSON.parse(readFileSync(new URL('../../broker/package.json', import.meta.url), 'utf8')) as {
      name: string;
      bin: Record<string, string>;
      dependencies: Record<string, string>;
    };
    assert.strictEqual(sdk.bin, undefined);
    assert.deepStrictEqual(Object.keys(sdk.dependencies).sort(), ['lit', 'workbox-window'], 'no new runtime dependency');
    assert.strictEqual(sidecar.name, 'bioid-broker');
    assert.strictEqual(sidecar.bin['bioid-broker'], 'dist/cli.js');
    assert.deepStrictEqual(Object.keys(sidecar.dependencies).sort(), ['@opentelemetry/api', 'bioid-sdk', 'pino', 'prom-client', 'redis']);
    assert.match(readFileSync(CLI, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  });

  it('--help prints the usage (serve, check, the variables) and exits 0; wrong usage exits 2', async () => {
    const help = await runBin(['--help']);
    assert.strictEqual(help.status, 0);
    for (const word of [
      'bioid-broker serve',
      'bioid-broker check <url>',
      'BIOID_SESSION_CHECK_URL',
      'BIOID_PORT',
      'BIOID_HOST',
      '--cookie',
      '--origin',
      'docs/broker-contract.md',
    ]) {
      assert.include(help.stdout, word);
    }
    // Exactly the variables of the tables that declare them (src/broker/config/env-variables.ts, broker/src/serve-env.ts,
    // broker/src/check-env.ts), each on a line of its own: npm run docs writes that part from them.
    const declared = [...Object.values(BROKER_ENV), ...Object.values(SERVE_ENV), ...Object.values(CHECK_ENV)];
    assert.sameMembers([...new Set(help.stdout.match(/\bBIOID_[A-Z0-9_]+/g))], declared);
    for (const name of declared) assert.match(help.stdout, new RegExp(`^ {8}${name}$`, 'm'));
    assert.strictEqual((await runBin(['frobnicate'])).status, 2);
    // The cookie's recommended ways in, and why not on the command line.
    for (const words of ['BIOID_CHECK_COOKIE', 'BIOID_CHECK_SECOND_COOKIE', '--cookie -', 'visible to other users'])
      assert.include(help.stdout, words);
    const badUrl = await runBin(['check', 'not-a-url']);
    assert.strictEqual(badUrl.status, 2);
    assert.match(badUrl.stderr, /not an absolute http\(s\) URL/);
    assert.strictEqual((await runBin(['check', 'http://127.0.0.1:1/t', '--origin', 'https://a.example/path'])).status, 2);
  });

  it('serve without BIOID_SESSION_CHECK_URL stops at start-up naming the variable, exit 1', async () => {
    const env: Record<string, string> = brokerEnv('http://127.0.0.1:1/check');
    delete env.BIOID_SESSION_CHECK_URL;
    const run = await runBin(['serve'], { ...env, BIOID_PORT: '0' });
    assert.strictEqual(run.status, 1);
    assert.match(run.stderr, /BIOID_SESSION_CHECK_URL is not set/);
    assert.notInclude(run.stderr + run.stdout, CLIENT.clientSecret);
  });
});

describe('bioid-broker serve (client_credentials) passes bioid-broker check', () => {
  let sessions: Awaited<ReturnType<typeof startSessionCheck>>;
  let sidecar: Sidecar;
  before(async () => {
    sessions = await startSessionCheck(['alice']);
    sidecar = await startSidecar(brokerEnv(`${sessions.url}/session-check?app=1`));
    // The start-up probe has asked the check with its made-up cookie: the calls counted below are the tests' own.
    await loggedLines(sidecar, (l) => l.event === 'session-check-probe' && l.result === 'refused');
  });
  after(async () => {
    await sidecar?.stop();
    await sessions?.close();
  });

  it('check against the sidecar passes every rule it can probe, within 30 s, and prints no token', async () => {
    const run = await runBin(['check', `${sidecar.url}/bioid/token`, '--cookie', 'sid=alice', '--origin', APP_ORIGIN]);
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    assert.isBelow(run.ms, 30_000);
    for (const rule of [1, 2, 3, 4, 5, 6, 7, 8, 9, 11]) assert.match(run.stdout, new RegExp(`pass  rule +${rule} `), `rule ${rule}`);
    assert.match(run.stdout, /skip {2}rule 10 /);
    assert.match(run.stdout, /skip {2}rule 12 /);
    assert.notMatch(run.stdout, /FAIL/);
    const token = (await json(await get(`${sidecar.url}/t`, { 'X-CSRF': '1', Cookie: 'sid=alice' }))).access_token as string;
    assert.notInclude(run.stdout, token);
  });

  it('check reads the session cookie from BIOID_CHECK_COOKIE, so it never shows in the process list', async () => {
    const run = await runBin(['check', `${sidecar.url}/bioid/token`, '--origin', APP_ORIGIN], { BIOID_CHECK_COOKIE: 'sid=alice' });
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    for (const rule of [8, 9]) assert.match(run.stdout, new RegExp(`pass  rule +${rule} `), `rule ${rule}`);
    assert.include(run.stdout, 'signed in');
    assert.notInclude(run.stdout + run.stderr, 'sid=alice');
  });

  it('check --cookie - reads the session cookie from the first line of stdin', async () => {
    const run = await runBin(['check', `${sidecar.url}/bioid/token`, '--origin', APP_ORIGIN, '--cookie', '-'], {}, 40_000, 'sid=alice\n');
    assert.strictEqual(run.status, 0, run.stdout + run.stderr);
    for (const rule of [8, 9]) assert.match(run.stdout, new RegExp(`pass  rule +${rule} `), `rule ${rule}`);
    assert.notInclude(run.stdout + run.stderr, 'sid=alice');
  });

  it('check --cookie - with nothing on stdin is wrong usage (exit 2), and says so without a value', async () => {
    const run = await runBin(['check', `${sidecar.url}/bioid/token`, '--cookie', '-'], {}, 40_000, '');
    assert.strictEqual(run.status, 2);
    assert.match(run.stderr, /stdin/);
  });

  it("forward-auth sends the request's Cookie header to the session check; 204 is signed in", async () => {
    const before = sessions.calls.length;
    const response = await get(`${sidecar.url}/bioid/token`, { 'X-CSRF': '1', Cookie: 'theme=dark; sid=alice' });
    assert.strictEqual(response.status, 200);
    const body = await json(response);
    assert.deepStrictEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'middleware_url']);
    assert.strictEqual(decodeJwt(body.access_token as string).sub, CLIENT.clientId);
    assert.deepStrictEqual(sessions.calls.slice(before), ['theme=dark; sid=alice']);
    const refused = await get(`${sidecar.url}/bioid/token`, { 'X-CSRF': '1', Cookie: 'sid=mallory' });
    assert.strictEqual(refused.status, 401);
    assert.strictEqual((await json(refused)).reason, 'no-session');
  });

  it('a request without a Cookie is refused without a round trip to the session check', async () => {
    const before = sessions.calls.length;
    assert.strictEqual((await get(`${sidecar.url}/t`, { 'X-CSRF': '1' })).status, 401);
    assert.strictEqual(sessions.calls.length, before);
  });

  it('/healthz answers 200 { status: "ok" } without a session', async () => {
    const response = await get(`${sidecar.url}/healthz`);
    assert.strictEqual(response.status, 200);
    assert.deepStrictEqual(await json(response), { status: 'ok' });
  });

  it('one JSON line per refused request (origin not allowed, no CSRF header, no session), at warn with its reason, holding no cookie, token or secret', async () => {
    // Lines are written asynchronously: this test's own are told apart by their request ids.
    const ids = ['refusals-1', 'refusals-2', 'refusals-3', 'refusals-4'];
    await fetch(`${sidecar.url}/t`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://cms.example.org', 'Access-Control-Request-Method': 'GET', Cookie: 'sid=alice', 'X-Request-Id': ids[0]! },
    });
    await get(`${sidecar.url}/t`, { Cookie: 'sid=alice', 'X-Request-Id': ids[1]! });
    await get(`${sidecar.url}/t`, { 'X-CSRF': '1', Cookie: 'sid=secret-session-value', 'X-Request-Id': ids[2]! });
    const token = (await json(await get(`${sidecar.url}/t`, { 'X-CSRF': '1', Cookie: 'sid=alice', 'X-Request-Id': ids[3]! })))
      .access_token as string;
    const refusals = await loggedLines(sidecar, (l) => l.event === 'refused' && ids.includes(l.requestId as string), 3);
    assert.deepStrictEqual(
      refusals.map((l) => [l.level, l.reason, l.status, l.method, l.origin]),
      [
        ['warn', 'origin-not-allowed', 403, 'OPTIONS', 'https://cms.example.org'],
        ['warn', 'csrf', 403, 'GET', null],
        ['warn', 'no-session', 401, 'GET', null],
      ],
    );
    for (const line of refusals) assert.match(line.time as string, /^\d{4}-\d\d-\d\dT/);
    const output = sidecar.output();
    for (const secret of [CLIENT.clientSecret, token, 'secret-session-value', 'sid=alice']) assert.notInclude(output, secret);
  });
});

describe('bioid-broker serve, failures and shutdown', () => {
  it('a session check that is down is not "signed out": 500, and a failure line names the session check', async () => {
    const dead = await startServer(() => {});
    const deadUrl = `${dead.url}/check`;
    await dead.close();
    const sidecar = await startSidecar(brokerEnv(deadUrl));
    try {
      const response = await get(`${sidecar.url}/t`, { 'X-CSRF': '1', Cookie: 'sid=alice' });
      assert.strictEqual(response.status, 500);
      const [failure] = await loggedLines(sidecar, (l) => l.event === 'failure' && /session check/.test(l.message as string));
      assert.ok(failure, sidecar.output());
      assert.include(failure!.message as string, deadUrl);
      assert.notInclude(sidecar.output(), 'sid=alice');
    } finally {
      await sidecar.stop();
    }
  });

  it('SIGTERM: /readyz turns 503 at once while requests are still served for BIOID_SHUTDOWN_DELAY_MS, then it stops accepting, lets a request in flight finish, and exits 0', async () => {
    // The delay and the slow session check leave a busy machine time to ask /readyz while it drains. It
    // refuses any other cookie at once, the start-up probe's made-up one too.
    const slow = await startServer((req, res) =>
      req.headers.cookie === 'sid=alice' ? void setTimeout(() => res.writeHead(204).end(), 2000) : void res.writeHead(401).end(),
    );
    const sidecar = await startSidecar(brokerEnv(`${slow.url}/check`, { BIOID_SHUTDOWN_DELAY_MS: '1500' }));
    try {
      // The probe's line comes first, so the lines from the stop on are the stop's alone.
      assert.lengthOf(await loggedLines(sidecar, (l) => l.event === 'session-check-probe'), 1, sidecar.output());
      assert.strictEqual((await get(`${sidecar.url}/readyz`)).status, 200);
      const inFlight = get(`${sidecar.url}/t`, { 'X-CSRF': '1', Cookie: 'sid=alice' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const exited = sidecar.stop();
      // SIGTERM is handled once the sidecar says so: a fixed pause is too short on a busy machine.
      assert.lengthOf(await loggedLines(sidecar, (l) => l.event === 'stopping'), 1, sidecar.output());
      const draining = await get(`${sidecar.url}/readyz`);
      assert.strictEqual(draining.status, 503);
      assert.deepStrictEqual(await json(draining), { status: 'unready', reason: 'stopping' });
      assert.strictEqual((await get(`${sidecar.url}/healthz`)).status, 200, 'still live while it drains');
      assert.strictEqual((await inFlight).status, 200);
      assert.strictEqual(await exited, 0);
      const events = sidecar.lines.map((l) => l.event);
      assert.deepStrictEqual(events.slice(events.indexOf('stopping')), ['stopping', 'request', 'stopped']);
      await get(`${sidecar.url}/healthz`).then(
        () => assert.fail('still accepting after exit'),
        () => undefined,
      );
    } finally {
      await slow.close();
    }
  });

  it('check --expect-502 against a sidecar whose IdP refuses (wrong secret): rule 10 passes, exactly { error }', async () => {
    const sessions = await startSessionCheck(['alice']);
    const sidecar = await startSidecar(brokerEnv(`${sessions.url}/check`, { BIOID_CLIENT_SECRET: 'wrong-secret-9x' }));
    try {
      const run = await runBin(['check', `${sidecar.url}/t`, '--cookie', 'sid=alice', '--origin', APP_ORIGIN, '--expect-502']);
      assert.strictEqual(run.status, 0, run.stdout);
      assert.match(run.stdout, /pass {2}rule 10 /);
      assert.notInclude(sidecar.output(), 'wrong-secret-9x');
    } finally {
      await sidecar.stop();
      await sessions.close();
    }
  });
});

describe('bioid-broker serve, RFC 8693 variant (BIOID_TOKEN_EXCHANGE=true)', () => {
  it("the subject token comes from the session check's { subject_token }; each user gets their own token; check rule 12 passes", async () => {
    const subjectTokens = new Map([
      ['alice', await idp.userToken('alice')],
      ['bob', await idp.userToken('bob')],
    ]);
    const sessions = await startSessionCheck(['alice', 'bob', 'carol'], subjectTokens);
    const sidecar = await startSidecar(brokerEnv(`${sessions.url}/check`, { BIOID_TOKEN_EXCHANGE: 'true' }));
    try {
      const alice = await json(await get(`${sidecar.url}/t`, { 'X-CSRF': '1', Cookie: 'sid=alice' }));
      assert.strictEqual(decodeJwt(alice.access_token as string).sub, 'alice');
      // carol is signed in, but the session check gives no subject token.
      const carol = await get(`${sidecar.url}/t`, { 'X-CSRF': '1', Cookie: 'sid=carol' });
      assert.strictEqual(carol.status, 401);
      assert.strictEqual((await json(carol)).reason, 'no-subject-token');
      const run = await runBin([
        'check',
        `${sidecar.url}/t`,
        '--cookie',
        'sid=alice',
        '--second-cookie',
        'sid=bob',
        '--origin',
        APP_ORIGIN,
      ]);
      assert.strictEqual(run.status, 0, run.stdout);
      assert.match(run.stdout, /pass {2}rule 12 /);
      // The same two sessions, the ways no other user of the machine can read: stdin, then environment.
      const piped = await runBin(
        ['check', `${sidecar.url}/t`, '--cookie', '-', '--second-cookie', '-', '--origin', APP_ORIGIN],
        {},
        40_000,
        'sid=alice\nsid=bob\n',
      );
      assert.match(piped.stdout, /pass {2}rule 12 /);
      const fromEnv = await runBin(['check', `${sidecar.url}/t`, '--origin', APP_ORIGIN], {
        BIOID_CHECK_COOKIE: 'sid=alice',
        BIOID_CHECK_SECOND_COOKIE: 'sid=bob',
      });
      assert.match(fromEnv.stdout, /pass {2}rule 12 /);
      for (const token of subjectTokens.values()) assert.notInclude(sidecar.output(), token);
    } finally {
      await sidecar.stop();
      await sessions.close();
    }
  });
});
