/**
 * What `bioid-broker serve` accepts from the integrator's session check as "signed in" (docs/backends.md,
 * "Forward-auth"): 204, or 200 with a JSON object. Anything else, an HTML login page answered 200 above
 * all, is not signed in, and one failure line says what the answer was. The log shows the session check's
 * origin and path only: its query may hold a key (userinfo and fragments are refused at start-up). Runs `serve` in this process.
 */
import { assert } from 'chai';
import type { ServerResponse } from 'node:http';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { serve, type RunningBroker } from '../../broker/src/serve.js';
import { APP_ORIGIN, CLIENT, startServer, type LocalServer } from './support.js';

let idp: RunningIdp;
before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

const QUERY_SECRET = 'k3y-in-the-query-5e1f';
const COOKIE_VALUE = 'cookie-value-9d7c';

/** A session check whose every answer is `answer`, and a broker in this process gated by it. */
async function brokerWith(answer: (res: ServerResponse) => void, exchange = false) {
  const check: LocalServer = await startServer((_req, res) => answer(res));
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
  });
  const request = () => fetch(`${broker.url}/t`, { headers: { 'X-CSRF': '1', Cookie: `sid=${COOKIE_VALUE}` } });
  const close = async () => {
    await broker.close();
    await check.close();
  };
  return { check, broker, lines, output: () => raw.join('\n'), request, close };
}

const failures = (lines: Record<string, unknown>[]) => lines.filter((l) => l.event === 'failure').map((l) => l.message as string);

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

  it('serve refuses a 200 JSON object that says "signed_in": false or "success": false', async () => {
    for (const body of ['{"signed_in":false}', '{"success":false,"data":null}']) {
      const b = await brokerWith((res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(body));
      try {
        assert.strictEqual((await b.request()).status, 401, body);
        assert.match(failures(b.lines).join('\n'), /false/, body);
      } finally {
        await b.close();
      }
    }
  });

  it('serve signs in on 204, and on 200 with a JSON object (application/json or +json), logging no failure', async () => {
    const answers: ((res: ServerResponse) => void)[] = [
      (res) => res.writeHead(204).end(),
      (res) => res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' }).end('{"signed_in":true}'),
      (res) => res.writeHead(200, { 'Content-Type': 'application/vnd.app+json' }).end('{}'),
    ];
    for (const answer of answers) {
      const b = await brokerWith(answer);
      try {
        const response = await b.request();
        assert.strictEqual(response.status, 200);
        assert.isString(((await response.json()) as { access_token: unknown }).access_token);
        assert.deepStrictEqual(failures(b.lines), []);
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
    const b = await brokerWith((res) => res.writeHead(204).end());
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
