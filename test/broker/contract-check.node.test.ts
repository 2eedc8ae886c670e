/**
 * `bioid-broker check` fails a broker that breaks a rule, and names the rule. Each broken
 * broker is the reference broker with one thing changed, on 127.0.0.1 port 0.
 */
import { assert } from 'chai';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { checkBroker, type CheckOptions, type RuleResult } from '../../broker/src/contract-check.js';
import { createTokenBroker, toNodeHandler, type TokenBrokerOptions } from '../../src/broker/index.js';
import { runBin } from './bin-support.js';
import { APP_ORIGIN, CLIENT, startServer, type LocalServer } from './support.js';

let idp: RunningIdp;
before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
});
after(() => idp.close());

const signedIn = (request: Request) => /(^|;\s*)sid=alice(;|$)/.test(request.headers.get('cookie') ?? '');

/** The reference broker (cookie `sid=alice` signed in), optionally with its web answer rewritten. */
function reference(
  overrides: Partial<TokenBrokerOptions> = {},
  rewrite?: (response: Response, request: Request) => Response | Promise<Response>,
) {
  const broker = createTokenBroker({
    issuerUrl: idp.baseUrl,
    realm: idp.realm,
    ...CLIENT,
    allowedOrigins: [APP_ORIGIN],
    authorize: signedIn,
    logger: () => {},
    ...overrides,
  });
  return toNodeHandler(rewrite ? async (request) => rewrite(await broker(request), request) : broker);
}

/** A copy of `response` with `change` applied to its headers and JSON body. */
async function edited(
  response: Response,
  change: { headers?: (h: Headers) => void; body?: (b: Record<string, unknown>) => Record<string, unknown> },
) {
  const headers = new Headers(response.headers);
  change.headers?.(headers);
  let text = await response.text();
  if (change.body && text) text = JSON.stringify(change.body(JSON.parse(text) as Record<string, unknown>));
  return new Response(response.status === 204 ? null : text, { status: response.status, headers });
}

async function checkAgainst(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: CheckOptions = {},
): Promise<Map<number, RuleResult>> {
  const server: LocalServer = await startServer(handler);
  try {
    const results = await checkBroker(`${server.url}/token`, { cookie: 'sid=alice', origin: APP_ORIGIN, ...options });
    return new Map(results.map((r) => [r.rule, r]));
  } finally {
    await server.close();
  }
}

/**
 * The reference broker (cookie `sid=alice`) with each request's X-Refused-Token first replaced by
 * `hint(value, held)` (`held`: the token it answered last); null removes the header. Its bounds on the
 * header (src/broker/refused-token.ts) are cut to 1 ms and each hint reaches it 2 ms late, so it judges
 * hints as a broker without those bounds would: each rewrite below then makes a broker broken in that one way.
 */
function rewritingHints(hint: (value: string, held: string) => string | null) {
  const broker = createTokenBroker({
    issuerUrl: idp.baseUrl,
    realm: idp.realm,
    ...CLIENT,
    allowedOrigins: [APP_ORIGIN],
    authorize: signedIn,
    logger: () => {},
    refusedTokenMinAgeMs: 1,
    refusedTokenIntervalMs: 1,
  });
  let held = '';
  return toNodeHandler(async (request) => {
    const headers = new Headers(request.headers);
    const value = headers.get('x-refused-token');
    const changed = value === null ? null : hint(value, held);
    if (changed === null) headers.delete('x-refused-token');
    else headers.set('X-Refused-Token', changed);
    // Past both 1 ms bounds: a timer never fires early.
    if (changed !== null) await new Promise((resolve) => setTimeout(resolve, 2));
    const response = await broker(new Request(request.url, { method: request.method, headers }));
    const token = (
      (await response
        .clone()
        .json()
        .catch(() => ({}))) as { access_token?: string }
    ).access_token;
    if (token) held = token;
    return response;
  });
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

const failed = (results: Map<number, RuleResult>) => [...results.values()].filter((r) => r.status === 'fail').map((r) => r.rule);

describe('bioid-broker check names the rule a broker breaks', () => {
  it('the reference broker passes (control for the cases below)', async () => {
    assert.deepStrictEqual(failed(await checkAgainst(reference())), []);
  });

  it('a same-origin broker passes the documented command with --origin set to its own origin (no grant is probed)', async () => {
    // No allowedOrigins: the broker serves pages of its own origin only, as the PHP recipe and an Express app do.
    const server: LocalServer = await startServer(reference({ allowedOrigins: [] }));
    try {
      const results = await checkBroker(`${server.url}/token`, { cookie: 'sid=alice', origin: server.url });
      assert.deepStrictEqual(failed(new Map(results.map((r) => [r.rule, r]))), []);
      for (const rule of [2, 6]) {
        const result = results.find((r) => r.rule === rule)!;
        assert.strictEqual(result.status, 'skip', `rule ${rule}`);
        assert.include(result.notes.join(' '), "is the broker's own origin: its pages call it without a preflight and need no CORS grant");
      }
    } finally {
      await server.close();
    }
  });

  it('rule 3: a broker without the anti-CSRF check (requireCsrfHeader: false) fails rule 3', async () => {
    const results = await checkAgainst(reference({ requireCsrfHeader: false }));
    assert.deepStrictEqual(failed(results), [3]);
    assert.match(results.get(3)!.notes.join('\n'), /GET without X-CSRF: HTTP 200, not 403/);
  });

  it('rule 7: a broker whose answers may be stored (no Cache-Control) fails rule 7', async () => {
    const results = await checkAgainst(reference({}, (r) => edited(r, { headers: (h) => h.delete('Cache-Control') })));
    assert.deepStrictEqual(failed(results), [7]);
  });

  it('rules 2 and 6: a broker that answers Access-Control-Allow-Origin: * fails them', async () => {
    const results = await checkAgainst(
      reference({}, (r) =>
        edited(r, { headers: (h) => h.has('Access-Control-Allow-Origin') && h.set('Access-Control-Allow-Origin', '*') }),
      ),
    );
    assert.includeMembers(failed(results), [2, 6]);
  });

  it('rule 5: a broker that answers "no-session" to a cross-site request without a cookie fails rule 5', async () => {
    const results = await checkAgainst(
      reference({}, (r) => edited(r, { body: (b) => (b.reason === 'no-cookie' ? { ...b, reason: 'no-session' } : b) })),
    );
    assert.deepStrictEqual(failed(results), [5]);
  });

  it('rule 5: a broker that answers "no-cookie" to every signed-out request fails rule 5', async () => {
    const results = await checkAgainst(
      reference({}, (r) => edited(r, { body: (b) => (b.reason === 'no-session' ? { ...b, reason: 'no-cookie' } : b) })),
    );
    assert.include(failed(results), 5);
  });

  it('rule 4: a broker whose 401 has no reason fails rule 4', async () => {
    const results = await checkAgainst(
      reference({}, (r) => edited(r, { body: (b) => (b.reason === 'no-session' ? { error: b.error } : b) })),
    );
    assert.deepStrictEqual(failed(results), [4]);
  });

  it('rule 4: a broker that signs in a cookie it never issued (a gate that reads a "who am I" 200 {} as a session) fails rule 4, and the note names no cookie', async () => {
    // Its gate: the session cookie's value is checked when there is one; a request without it is asked of
    // a "who am I" endpoint whose signed-out 200 {} the gate takes for a session.
    const results = await checkAgainst(
      reference({ authorize: (request) => signedIn(request) || !/(^|;\s*)sid=/.test(request.headers.get('cookie') ?? 'sid=') }),
    );
    assert.deepStrictEqual(failed(results), [4]);
    const notes = results.get(4)!.notes.join('\n');
    assert.match(notes, /GET with a made-up cookie: HTTP 200, not 401/);
    assert.notMatch(notes, /bioid-check-[0-9a-f]/);
  });

  it('rule 9: a broker that answers the same token with the same expires_in (not what is left) fails rule 9', async () => {
    const results = await checkAgainst(
      reference({}, (r) => edited(r, { body: (b) => ('expires_in' in b ? { ...b, expires_in: 300 } : b) })),
    );
    assert.deepStrictEqual(failed(results), [9]);
  });

  it('rule 10: a 502 with more than { error } fails rule 10 (spec 4.1)', async () => {
    const results = await checkAgainst(
      reference({ clientSecret: 'wrong' }, (r) => edited(r, { body: (b) => (r.status === 502 ? { ...b, detail: 'invalid_client' } : b) })),
      { expect502: true },
    );
    assert.deepStrictEqual(failed(results), [10]);
  });

  it('rule 12: an RFC 8693 broker that gives two users one token fails rule 12', async () => {
    const results = await checkAgainst(reference({ authorize: (request) => /sid=(alice|bob)/.test(request.headers.get('cookie') ?? '') }), {
      secondCookie: 'sid=bob',
    });
    assert.deepStrictEqual(failed(results), [12]);
  });

  it('rule 13: the reference broker passes (client_credentials), the preflight allowing X-Refused-Token', async () => {
    const results = await checkAgainst(reference());
    assert.deepStrictEqual(failed(results), []);
    assert.strictEqual(results.get(13)!.status, 'pass', results.get(13)!.notes.join('\n'));
  });

  it('rule 13: the reference broker passes in the RFC 8693 variant (a refused token is replaced for its user)', async () => {
    const subjects = new Map([
      ['alice', await idp.userToken('alice')],
      ['bob', await idp.userToken('bob')],
    ]);
    const subjectToken = (request: Request) => subjects.get(/(?:^|;\s*)sid=(\w+)/.exec(request.headers.get('cookie') ?? '')?.[1] ?? '');
    const results = await checkAgainst(
      reference({ authorize: (request) => subjectToken(request) !== undefined, tokenExchange: { subjectToken } }),
      { secondCookie: 'sid=bob' },
    );
    assert.deepStrictEqual(failed(results), []);
    for (const rule of [12, 13])
      assert.strictEqual(results.get(rule)!.status, 'pass', `rule ${rule}: ${results.get(rule)!.notes.join('\n')}`);
  });

  it('rule 13: a broker that exchanges again for any X-Refused-Token fails rule 13, and the notes name no token', async () => {
    // Every hint becomes the hash of the token it holds: a wrong hash replaces it.
    const results = await checkAgainst(rewritingHints((_, held) => hashOf(held)));
    assert.deepStrictEqual(failed(results), [13]);
    const notes = results.get(13)!.notes.join('\n');
    assert.match(notes, /a hash of no token it served replaced the cached token A/);
    assert.notMatch(notes, /eyJ/, 'no JWT in the notes');
  });

  it('rule 13: a broker that replaces a token again for the same hash fails rule 13 (at most once per token)', async () => {
    // The right hash works as in the reference, but a hash already honoured becomes the hash of the token it holds now.
    const honoured = new Set<string>();
    const results = await checkAgainst(
      rewritingHints((value, held) => {
        if (honoured.has(value)) return hashOf(held);
        if (value === hashOf(held)) honoured.add(value);
        return value;
      }),
    );
    assert.deepStrictEqual(failed(results), [13]);
    assert.match(results.get(13)!.notes.join('\n'), /the hash of token A, sent again, replaced token B by a third token/);
  });

  it('rule 13: a broker that ignores X-Refused-Token is not failed: rule 13 is skipped and says so', async () => {
    const results = await checkAgainst(rewritingHints(() => null));
    assert.deepStrictEqual(failed(results), []);
    assert.strictEqual(results.get(13)!.status, 'skip');
    assert.match(results.get(13)!.notes.join('\n'), /the broker ignores X-Refused-Token \(optional\)/);
  });

  it('rule 13: a broker that does not cache tokens is not failed: rule 13 is skipped as not applicable', async () => {
    // A new broker (an empty cache) for each request: every signed-in GET exchanges.
    const fresh = () => reference();
    const results = await checkAgainst((req, res) => fresh()(req, res));
    assert.deepStrictEqual(failed(results), []);
    assert.strictEqual(results.get(13)!.status, 'skip');
    assert.match(
      results.get(13)!.notes.join('\n'),
      /not applicable: two signed-in GETs got two different tokens, so the broker does not cache/,
    );
  });

  it('rule 13: a cross-origin broker whose preflight does not allow X-Refused-Token is not failed, and is told so', async () => {
    const results = await checkAgainst(
      reference({}, (r) =>
        edited(r, {
          headers: (h) => h.has('Access-Control-Allow-Headers') && h.set('Access-Control-Allow-Headers', 'X-CSRF, Authorization'),
        }),
      ),
    );
    assert.deepStrictEqual(failed(results), []);
    assert.strictEqual(results.get(13)!.status, 'skip');
    assert.match(
      results.get(13)!.notes.join('\n'),
      new RegExp(`its preflight from ${APP_ORIGIN} does not list X-Refused-Token in Access-Control-Allow-Headers`),
    );
  });

  it('without a session cookie, the rules that need one are skipped with the ways to give it that keep it off the command line', async () => {
    const results = await checkAgainst(reference(), { cookie: undefined });
    assert.deepStrictEqual(failed(results), []);
    for (const rule of [8, 9, 12, 13]) {
      assert.strictEqual(results.get(rule)!.status, 'skip', `rule ${rule}`);
      const notes = results.get(rule)!.notes.join('\n');
      assert.include(notes, 'set BIOID_CHECK_COOKIE="<name>=<value>", or pass --cookie - with it on stdin');
      assert.notInclude(notes, '--cookie "', 'never the cookie as an argument, which other users of the machine see');
    }
  });

  it('rule 8: a session cookie that is not signed in fails rule 8 with a hint', async () => {
    const results = await checkAgainst(reference(), { cookie: 'sid=nobody' });
    assert.include(failed(results), 8);
    assert.match(results.get(8)!.notes.join('\n'), /is the --cookie a signed-in session\?/);
  });

  it('a broker that never answers fails, and the check ends by its own deadline', async () => {
    const started = Date.now();
    const results = await checkAgainst(() => {}, { deadlineMs: 3000 });
    // The time is the behaviour: without its deadline the check would wait forever. 10 s is a margin a
    // loaded 2-core machine meets.
    assert.isBelow(Date.now() - started, 10_000);
    assert.includeMembers(failed(results), [1, 2, 3, 4, 5]);
    assert.match(results.get(1)!.notes.join('\n'), /no answer/);
  });

  it('the command exits non-zero and prints FAIL with the rule number against a broken broker', async () => {
    const server = await startServer(reference({ requireCsrfHeader: false }));
    try {
      const run = await runBin(['check', `${server.url}/token`, '--cookie', 'sid=alice', '--origin', APP_ORIGIN]);
      assert.strictEqual(run.status, 1);
      assert.match(run.stdout, /FAIL {2}rule {2}3 {2}anti-CSRF/);
      assert.match(run.stdout, /13 rules: \d+ pass, 1 fail/);
    } finally {
      await server.close();
    }
  });
});
