/**
 * What `bioid-broker serve` accepts from the integrator's session check as "signed in" (docs/backends.md,
 * "Forward-auth"): only a positive answer, 204 or 200 with `"signed_in": true` (in the RFC 8693 variant
 * also a non-empty `subject_token`). Anything else, an HTML login page answered 200 or a "who am I"
 * endpoint's `{}` above all, is not signed in, and one failure line says what the answer was. At start-up
 * it asks the check with a made-up cookie: a check that signs that in keeps `/readyz` 503 and every token
 * request 500. The log shows the session check's origin and path only: its query may hold a key (userinfo
 * and fragments are refused at start-up). Runs `serve` in this process.
 */
import { assert } from 'chai';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { checkBroker } from '../../broker/src/contract-check.js';
import { serve, SIGNS_IN_ANYONE, type RunningBroker } from '../../broker/src/serve.js';
import { APP_ORIGIN, CLIENT, startServer, type LocalServer } from './support.js';

let idp: RunningIdp;
before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

const QUERY_SECRET = 'k3y-in-the-query-5e1f';
const COOKIE_VALUE = 'cookie-value-9d7c';

/** The cookie of the one signed-in user of brokerWith's session checks. */
const SIGNED_IN = `sid=${COOKIE_VALUE}`;
const isUser = (req: IncomingMessage) => req.headers.cookie === SIGNED_IN;
/** 401 to any cookie but the user's, as a session check must answer (the probe's made-up cookie too). */
const onlyTheUser =
  (answer: (res: ServerResponse) => void) =>
  (res: ServerResponse, req: IncomingMessage): void =>
    isUser(req) ? answer(res) : void res.writeHead(401).end();

/**
 * A session check answering with `answer` (every request, the start-up probe's included, unless it is
 * wrapped in onlyTheUser), and a broker in this process gated by it.
 */
async function brokerWith(answer: (res: ServerResponse, req: IncomingMessage) => void, exchange = false, sessionProbeIntervalMs?: number) {
  const cookies: (string | undefined)[] = [];
  const check: LocalServer = await startServer((req, res) => {
    cookies.push(req.headers.cookie);
    answer(res, req);
  });
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const broker: RunningBroker = await serve({
    env: {
      BIOID_SESSION_CHECK_URL: `${check.url}/session-check?key=${QUERY_SECRET}`,
      BIOID_CLIENT_ID: CLIENT.clientId,
      BIOID_CLIENT_SECRET: CLIENT.clientSecret,
      BIOID_AUTH_URL: idp.baseUrl,
      BIOID_REALM: idp.realm,
      BIOID_ALLOWED_ORIGINS: APP_ORIGIN,
      BIOID_PORT: '0',
      ...(exchange ? { BIOID_TOKEN_EXCHANGE: 'true' } : {}),
    },
    write: (line) => {
      raw.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
    ...(sessionProbeIntervalMs === undefined ? {} : { sessionProbeIntervalMs }),
  });
  const request = () => fetch(`${broker.url}/t`, { headers: { 'X-CSRF': '1', Cookie: SIGNED_IN } });
  const close = async () => {
    await broker.close();
    await check.close();
  };
  /** Until the start-up probe's line is written (it is asked in the background), then that line. */
  const probed = async () => {
    await until(() => lines.some((l) => l.event === 'session-check-probe'), `no session-check-probe line in ${raw.join('\n')}`);
    return lines.find((l) => l.event === 'session-check-probe')!;
  };
  return { check, broker, lines, cookies, output: () => raw.join('\n'), request, close, probed };
}

const failures = (lines: Record<string, unknown>[]) => lines.filter((l) => l.event === 'failure').map((l) => l.message as string);
const json = (body: string) => (res: ServerResponse) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);

/** Waits for `condition`, polling: the probe and the log run in the background. A bound only names a state that never comes. */
async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(what);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What "who am I" endpoints answer a signed-out caller with 200: each must sign nobody in. */
const SIGNED_OUT_BODIES = [
  '{}', // NextAuth v4's /api/auth/session
  '{"authenticated":false}',
  '{"user":null}',
  '{"loggedIn":false}',
  '{"error":"not signed in"}',
  '{"signed_in":"true"}', // a string, not true
  '{"signed_in":1}',
];

describe('bioid-broker serve: what the session check must answer', () => {
  it('serve refuses a session check that answers an HTML page with 200 (a login page), and logs why without the cookie', async () => {
    const b = await brokerWith((res) =>
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Sign in</title><form>…</form>'),
    );
    try {
      const response = await b.request();
      assert.strictEqual(response.status, 401);
      assert.strictEqual(((await response.json()) as { reason: string }).reason, 'no-session');
      const [failure] = failures(b.lines);
      assert.ok(failure, b.output());
      assert.include(failure, 'HTML page');
      assert.include(failure, `${b.check.url}/session-check`);
      for (const secret of [COOKIE_VALUE, QUERY_SECRET]) assert.notInclude(b.output(), secret);
    } finally {
      await b.close();
    }
  });

  it('serve refuses a 200 that is not JSON (plain text, or no body at all), and any 2xx but 200 and 204', async () => {
    const answers: [string, (res: ServerResponse) => void, RegExp][] = [
      ['text', (res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('OK'), /Content-Type text\/plain/],
      ['empty', (res) => res.writeHead(200).end(), /no Content-Type/],
      [
        'html body labelled JSON',
        (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('<html>sign in</html>'),
        /not an object/,
      ],
      ['JSON array', (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('[]'), /not an object/],
      ['201', (res) => res.writeHead(201, { 'Content-Type': 'application/json' }).end('{}'), /HTTP 201/],
    ];
    for (const [what, answer, why] of answers) {
      const b = await brokerWith(answer);
      try {
        assert.strictEqual((await b.request()).status, 401, what);
        assert.match(failures(b.lines).join('\n'), why, what);
      } finally {
        await b.close();
      }
    }
  });

  it('serve refuses a 200 JSON object that says "signed_in": false, the documented answer, without a failure line; "success": false with one', async () => {
    for (const [body, logged] of [
      ['{"signed_in":false}', false],
      ['{"success":false,"data":null}', true],
      ['{"signed_in":true,"success":false}', true],
    ] as const) {
      const b = await brokerWith(json(body));
      try {
        const response = await b.request();
        assert.strictEqual(response.status, 401, body);
        assert.strictEqual(((await response.json()) as { reason: string }).reason, 'no-session', body);
        assert.strictEqual(failures(b.lines).length, logged ? 1 : 0, `${body}: ${b.output()}`);
      } finally {
        await b.close();
      }
    }
  });

  it('serve signs in on 204, and on 200 with a JSON object (application/json or +json) that says "signed_in": true, logging no failure', async () => {
    const answers: ((res: ServerResponse) => void)[] = [
      (res) => res.writeHead(204).end(),
      (res) => res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end('{"signed_in":true}'),
      (res) => res.writeHead(200, { 'Content-Type': 'application/vnd.app+json' }).end('{"signed_in":true,"user":{"id":7}}'),
    ];
    for (const answer of answers) {
      const b = await brokerWith(onlyTheUser(answer));
      try {
        const response = await b.request();
        assert.strictEqual(response.status, 200, b.output());
        assert.isString(((await response.json()) as { access_token: unknown }).access_token);
        assert.deepStrictEqual(failures(b.lines), []);
      } finally {
        await b.close();
      }
    }
  });

  it('docs/security.md claim 26: serve signs in no one on a "who am I" answer to a signed-out caller (200 {}, {"authenticated":false}, {"user":null}, {"loggedIn":false}, {"error":…}): 401, no token, a failure line naming the shape', async () => {
    for (const body of SIGNED_OUT_BODIES) {
      // The endpoint answers every cookie so, the made-up one of the start-up probe and the caller's alike.
      const b = await brokerWith(json(body));
      try {
        const response = await b.request();
        const answer = (await response.json()) as Record<string, unknown>;
        // The status and the keys only: a failing run must not print a token.
        assert.strictEqual(response.status, 401, `${body}: HTTP ${response.status} with ${Object.keys(answer).join(', ')}`);
        assert.strictEqual(answer.reason, 'no-session', body);
        assert.notProperty(answer, 'access_token', body);
        assert.match(
          failures(b.lines).join('\n'),
          /answered HTTP 200 with a JSON object without "signed_in": true.*; answered 401\./,
          body,
        );
        for (const secret of [COOKIE_VALUE, QUERY_SECRET]) assert.notInclude(b.output(), secret, body);
      } finally {
        await b.close();
      }
    }
  });

  it('docs/security.md claim 26: in the RFC 8693 variant only a non-empty subject_token or "signed_in": true signs in; {}, an empty or null subject_token do not', async () => {
    const token = await idp.userToken('alice');
    for (const body of [
      '{}',
      '{"subject_token":""}',
      '{"subject_token":"   "}',
      '{"subject_token":null}',
      '{"user":{"subject_token":"x"}}',
    ]) {
      const b = await brokerWith(json(body), true);
      try {
        const response = await b.request();
        assert.strictEqual(response.status, 401, body);
        // Not "no-subject-token": the caller is not signed in at all.
        assert.strictEqual(((await response.json()) as { reason: string }).reason, 'no-session', body);
      } finally {
        await b.close();
      }
    }
    // Signed in: its subject token is exchanged; "signed_in": true without one is "no-subject-token".
    const signedIn = await brokerWith(onlyTheUser(json(JSON.stringify({ subject_token: token }))), true);
    const withoutToken = await brokerWith(onlyTheUser(json('{"signed_in":true}')), true);
    try {
      assert.strictEqual((await signedIn.request()).status, 200, signedIn.output());
      const refused = await withoutToken.request();
      assert.strictEqual(refused.status, 401);
      assert.strictEqual(((await refused.json()) as { reason: string }).reason, 'no-subject-token');
    } finally {
      await signedIn.close();
      await withoutToken.close();
    }
  });

  it('docs/security.md claim 26: bioid-broker check passes rule 4 against serve whose session check answers each signed-out "who am I" body', async () => {
    for (const body of SIGNED_OUT_BODIES) {
      const b = await brokerWith(json(body));
      try {
        const results = await checkBroker(`${b.broker.url}/bioid/token`, { origin: APP_ORIGIN });
        const rule4 = results.find((r) => r.rule === 4)!;
        assert.strictEqual(rule4.status, 'pass', `${body}: ${rule4.notes.join('; ')}`);
      } finally {
        await b.close();
      }
    }
  });
  it('serve logs a failing session check by origin and path only, never its query', async () => {
    const b = await brokerWith((res) => res.writeHead(503).end());
    try {
      assert.strictEqual((await b.request()).status, 500);
      const [failure] = failures(b.lines);
      assert.include(failure, `${b.check.url}/session-check answered HTTP 503`);
      for (const secret of [QUERY_SECRET, '?key', COOKIE_VALUE]) assert.notInclude(b.output(), secret);
    } finally {
      await b.close();
    }
  });

  it('serve logs an unreachable session check by origin and path only, never its query', async () => {
    const b = await brokerWith(onlyTheUser((res) => res.writeHead(204).end()));
    await b.check.close();
    try {
      assert.strictEqual((await b.request()).status, 500);
      const [failure] = failures(b.lines);
      assert.include(failure, `${b.check.url}/session-check`);
      for (const secret of [QUERY_SECRET, '?key', COOKIE_VALUE]) assert.notInclude(b.output(), secret);
    } finally {
      await b.broker.close();
    }
  });
});

describe('bioid-broker serve: the session check asked with a made-up cookie', () => {
  it('docs/security.md claim 26: a session check that signs in a made-up cookie keeps /readyz 503 with the reason, answers every token request 500 without a token, and the log says what to fix without the cookie', async () => {
    const b = await brokerWith((res) => res.writeHead(204).end());
    try {
      const line = await b.probed();
      assert.strictEqual(line.level, 'error');
      assert.strictEqual(line.result, 'signed-in');
      assert.strictEqual(line.answer, 'HTTP 204');
      assert.strictEqual(line.sessionCheck, `${b.check.url}/session-check`);
      assert.match(line.fix as string, /BIOID_SESSION_CHECK_URL signed in a request with a made-up cookie/);
      const ready = await fetch(`${b.broker.url}/readyz`);
      assert.strictEqual(ready.status, 503);
      assert.deepStrictEqual(await ready.json(), { status: 'unready', reason: SIGNS_IN_ANYONE });
      const response = await b.request();
      assert.strictEqual(response.status, 500);
      assert.notProperty(await response.json(), 'access_token');
      assert.match(failures(b.lines).join('\n'), /signs in a made-up cookie \(HTTP 204\), so it would sign in anyone; answered 500/);
      // The made-up cookies went to the check, and none of them, nor the caller's, is in any line.
      const made = b.cookies.filter((c) => c !== SIGNED_IN);
      assert.isAtLeast(made.length, 1);
      for (const cookie of made) assert.match(cookie!, /^bioid-probe=[0-9a-f]{32}$/);
      for (const secret of [...made.map((c) => c!.split('=')[1]!), COOKIE_VALUE, QUERY_SECRET]) assert.notInclude(b.output(), secret);
    } finally {
      await b.close();
    }
  });

  it('no token before the check has refused a made-up cookie: a request that arrives while the start-up probe waits for its answer waits too, and gets 500 when the probe is signed in', async () => {
    // The check holds the start-up probe's answer until released, then answers everything 204 at once.
    let holding = true;
    const held: ServerResponse[] = [];
    const b = await brokerWith((res) => (holding ? void held.push(res) : void res.writeHead(204).end()));
    try {
      await until(() => held.length === 1, 'the start-up probe never reached the session check');
      const answer = b.request();
      // An absence check: while the probe is unanswered, the caller's cookie is not asked of the check.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.notInclude(b.cookies, SIGNED_IN);
      holding = false;
      for (const res of held.splice(0)) res.writeHead(204).end();
      const response = await answer;
      assert.strictEqual(response.status, 500);
      assert.notProperty(await response.json(), 'access_token');
      assert.notInclude(b.cookies, SIGNED_IN, 'the caller was never asked of a check that signs in anyone');
    } finally {
      for (const res of held) res.writeHead(401).end();
      await b.close();
    }
  });

  it('once the check refuses the made-up cookie (fixed), it is asked again until then: /readyz turns 200 and the signed-in user gets a token, without a restart', async () => {
    let fixed = false;
    const b = await brokerWith(
      (res, req) => (fixed && !isUser(req) ? void res.writeHead(401).end() : void res.writeHead(204).end()),
      false,
      50,
    );
    try {
      await b.probed();
      assert.strictEqual((await fetch(`${b.broker.url}/readyz`)).status, 503);
      fixed = true;
      await until(() => b.lines.some((l) => l.event === 'session-check-probe' && l.result === 'refused'), 'never probed again');
      const line = b.lines.find((l) => l.event === 'session-check-probe' && l.result === 'refused')!;
      assert.strictEqual(line.level, 'info');
      assert.strictEqual(line.answer, 'HTTP 401');
      assert.strictEqual((await fetch(`${b.broker.url}/readyz`)).status, 200);
      assert.strictEqual((await b.request()).status, 200);
    } finally {
      await b.close();
    }
  });

  it('a check that refuses the made-up cookie with an answer docs/backends.md does not name (a "who am I" 200 {}) stays ready, and the start-up line warns with the fix', async () => {
    const b = await brokerWith(json('{}'));
    try {
      const line = await b.probed();
      assert.strictEqual(line.level, 'warn');
      assert.strictEqual(line.result, 'refused');
      assert.match(line.answer as string, /HTTP 200 with a JSON object without "signed_in": true/);
      assert.match(line.fix as string, /204 or 200 \{"signed_in": true\} when signed in, 401 otherwise/);
      assert.strictEqual((await fetch(`${b.broker.url}/readyz`)).status, 200);
    } finally {
      await b.close();
    }
  });

  it('a check that does not answer at start-up is asked again: no token meanwhile, /readyz stays 200 (the store of sessions is down, as an IdP can be), and once it answers 401 the user is signed in', async () => {
    let up = false;
    const b = await brokerWith(
      (res, req) => (up ? onlyTheUser((r) => void r.writeHead(204).end())(res, req) : void res.writeHead(503).end()),
      false,
      50,
    );
    try {
      const line = await b.probed();
      assert.strictEqual(line.result, 'no-answer');
      assert.strictEqual(line.level, 'warn');
      assert.strictEqual((await fetch(`${b.broker.url}/readyz`)).status, 200);
      assert.strictEqual((await b.request()).status, 500);
      up = true;
      await until(() => b.lines.some((l) => l.event === 'session-check-probe' && l.result === 'refused'), 'never probed again');
      assert.strictEqual((await b.request()).status, 200);
    } finally {
      await b.close();
    }
  });
});
