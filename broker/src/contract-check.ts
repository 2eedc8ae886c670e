/**
 * `bioid-broker check <url>`: probes any token broker (any language) against the numbered rules of
 * docs/broker-contract.md and says pass, fail or skipped per rule. It sends requests a browser would send
 * and some it would not (a POST, a forged cookie, a foreign Origin), over node:http so every header is
 * exactly the one chosen (fetch would add its own Sec-Fetch-* headers). Bounded: each probe 5 s, all of
 * them 25 s, so the check ends by itself within 30 s whatever the broker does.
 *
 * The checker reads tokens to compare them; it never prints one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { CHECK_ENV } from './check-env.js';

export interface CheckOptions {
  /** A signed-in session's Cookie header (`name=value`); without it the success rules are skipped. */
  cookie?: string | undefined;
  /** An origin the broker allows (its frontend); without it the CORS grant rules are skipped. */
  origin?: string | undefined;
  /** A second signed-in user's Cookie header: rule 12 (RFC 8693 brokers only) then checks per-user tokens. */
  secondCookie?: string | undefined;
  /** The broker's identity provider is made to fail: a signed-in GET must answer rule 10's 502. */
  expect502?: boolean | undefined;
  /** Whole check; default 25000 ms. */
  deadlineMs?: number | undefined;
  /** Wait between the two signed-in GETs of rule 9; default 1100 ms (expires_in counts whole seconds). */
  cacheWaitMs?: number | undefined;
}

export type RuleStatus = 'pass' | 'fail' | 'skip';

export interface RuleResult {
  rule: number;
  title: string;
  status: RuleStatus;
  /** Why it failed or was skipped; empty on pass. */
  notes: string[];
}

/** The rules, numbered as in docs/broker-contract.md. */
export const RULES: Record<number, string> = {
  1: 'GET only: another method gets 405 and Allow: GET, OPTIONS',
  2: 'preflight: an allowed origin gets a grant, another origin 403',
  3: 'anti-CSRF: a GET without X-CSRF: 1 gets 403 { error, reason: "csrf" }',
  4: 'session gate: no session, 401 { error, reason: "no-session" }',
  5: 'cookie withheld: cross-site without Cookie, 401 reason "no-cookie" (never otherwise)',
  6: 'CORS: exact origin with credentials, Vary: Origin, never *',
  7: 'every GET answer is JSON with Cache-Control: no-store',
  8: 'success: 200 { access_token, expires_in, middleware_url? }',
  9: 'caching: a cached token answers what is left of expires_in',
  10: 'exchange failure: 502 with exactly { error }',
  11: 'no token in any refusal',
  12: 'RFC 8693 variant: each user gets a token of their own',
  13: 'optional X-Refused-Token: the hash of the cached token replaces it once, any other value changes nothing',
};

/** An origin no broker allows (a reserved name that never resolves). */
const FOREIGN_ORIGIN = 'https://not-allowed.bioid-check.invalid';
const PROBE_TIMEOUT_MS = 5000;
const MAX_BODY = 64 * 1024;
/** Rule 13 is probed only when the cached token has this long left: a replacement is then no renewal. */
const REFUSAL_MIN_LEFT_S = 10;

interface Probe {
  label: string;
  method: string;
  headers: Record<string, string>;
  status: number;
  /** Lower-case names. */
  headersIn: IncomingHttpHeaders;
  text: string;
  json: unknown;
  /** Network failure or timeout, instead of an answer. */
  error?: string;
}

/** What the rules of one check share: the broker, the options, every probe sent, and the results so far. */
class Check {
  readonly probes: Probe[] = [];
  readonly results = new Map<number, RuleResult>();
  readonly deadline: number;
  /** The allowed origin to send, unless it is the broker's own (then pages call it same-origin). */
  readonly origin: string | undefined;
  /** Why the CORS grant is not probed, when it is not. */
  readonly noGrantProbed: string;
  readonly cookie: string | undefined;
  readonly forged: string;
  /** Rule 4's probe with a forged cookie, which rule 5 reads again. */
  forgedSession: Probe | undefined;
  /** Token A, the first signed-in GET's (rule 8), which rules 9, 11, 12 and 13 compare with. */
  token: string | undefined;

  constructor(
    readonly target: URL,
    readonly options: CheckOptions,
  ) {
    this.deadline = Date.now() + (options.deadlineMs ?? 25_000);
    this.cookie = options.cookie;
    // A page on the broker's own origin calls it same-origin: no preflight, no CORS grant to probe.
    const sameOrigin = options.origin !== undefined && new URL(options.origin).origin === target.origin;
    this.origin = sameOrigin ? undefined : options.origin;
    this.noGrantProbed = sameOrigin
      ? `${options.origin} is the broker's own origin: its pages call it without a preflight and need no CORS grant`
      : 'the grant to an allowed origin is not probed: pass --origin <your frontend origin> when your pages are on another origin than the broker';
    this.forged = forgedCookie(this.cookie);
    for (const [n, title] of Object.entries(RULES)) this.results.set(Number(n), { rule: Number(n), title, status: 'pass', notes: [] });
  }

  readonly fail = (rule: number, note: string): void => {
    const r = this.results.get(rule)!;
    r.status = 'fail';
    r.notes.push(note);
  };

  skip(rule: number, note: string): void {
    const r = this.results.get(rule)!;
    if (r.status === 'pass') r.status = 'skip';
    r.notes.push(note);
  }

  async probe(label: string, method: string, headers: Record<string, string>): Promise<Probe> {
    const p = await send(this.target, label, method, headers, this.deadline);
    this.probes.push(p);
    return p;
  }

  withOrigin(headers: Record<string, string>): Record<string, string> {
    return this.origin ? { ...headers, Origin: this.origin } : headers;
  }

  signedIn(extra: Record<string, string> = {}): Record<string, string> {
    return this.withOrigin({ 'X-CSRF': '1', ...(this.cookie ? { Cookie: this.cookie } : {}), ...extra });
  }

  /** A failed probe (no answer) fails its rule with the reason, and the expectations are not read. */
  answered(rule: number, p: Probe): boolean {
    if (p.error) this.fail(rule, `${p.label}: ${p.error}`);
    return !p.error;
  }
}

/**
 * The checks, in the order they probe the broker, each with the rules it decides. Rules 6, 7 and 11 are
 * read last, over every answer the others got.
 */
const CHECKS: readonly { rules: number[]; check: (c: Check) => Promise<void> | void }[] = [
  { rules: [1], check: methods },
  { rules: [2], check: preflights },
  { rules: [3], check: antiCsrf },
  { rules: [4], check: sessionGate },
  { rules: [5], check: cookieWithheld },
  { rules: [8, 9, 10, 12, 13], check: signedInRules },
  { rules: [6], check: foreignGet },
  { rules: [10], check: exchangeFailures },
  { rules: [6, 7, 11], check: everyAnswer },
];

export async function checkBroker(url: string, options: CheckOptions = {}): Promise<RuleResult[]> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TypeError(`check: ${url} is not an http(s) URL.`);
  const c = new Check(target, options);
  for (const { check } of CHECKS) await check(c);
  return [...c.results.values()];
}

/** Rule 1: methods. */
async function methods(c: Check): Promise<void> {
  const post = await c.probe('POST', 'POST', c.signedIn());
  if (!c.answered(1, post)) return;
  if (post.status !== 405) c.fail(1, `POST answered HTTP ${post.status}, not 405`);
  if (!/\bGET\b/i.test(String(post.headersIn.allow ?? ''))) c.fail(1, 'POST: the 405 has no Allow header naming GET (Allow: GET, OPTIONS)');
}

const PREFLIGHT_HEADERS = { 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-csrf' };

/** Rule 2: preflights, from the allowed origin and from a foreign one. */
async function preflights(c: Check): Promise<void> {
  const { origin, fail } = c;
  if (origin) {
    const ok = await c.probe('preflight from the allowed origin', 'OPTIONS', { Origin: origin, ...PREFLIGHT_HEADERS });
    if (c.answered(2, ok)) {
      if (ok.status < 200 || ok.status > 299) fail(2, `preflight from ${origin} answered HTTP ${ok.status}, not 204`);
      if (ok.headersIn['access-control-allow-origin'] !== origin)
        fail(
          2,
          `preflight from ${origin}: Access-Control-Allow-Origin is ${show(ok.headersIn['access-control-allow-origin'])}, not that exact origin`,
        );
      if (ok.headersIn['access-control-allow-credentials'] !== 'true') fail(2, 'preflight: Access-Control-Allow-Credentials is not "true"');
      if (!listHas(ok.headersIn['access-control-allow-methods'], 'GET'))
        fail(2, 'preflight: Access-Control-Allow-Methods does not list GET');
      if (!listHas(ok.headersIn['access-control-allow-headers'], 'X-CSRF'))
        fail(2, 'preflight: Access-Control-Allow-Headers does not list X-CSRF');
    }
  } else {
    c.skip(2, c.noGrantProbed);
  }
  const foreign = await c.probe('preflight from a foreign origin', 'OPTIONS', { Origin: FOREIGN_ORIGIN, ...PREFLIGHT_HEADERS });
  if (!c.answered(2, foreign)) return;
  if (foreign.headersIn['access-control-allow-origin'])
    fail(2, `preflight from a foreign origin got Access-Control-Allow-Origin ${show(foreign.headersIn['access-control-allow-origin'])}`);
  if (foreign.status !== 403) fail(2, `preflight from a foreign origin answered HTTP ${foreign.status}, not 403`);
}

/** Rule 3: the anti-CSRF header, checked before the session (with the session cookie when we have one). */
async function antiCsrf(c: Check): Promise<void> {
  const noCsrf = await c.probe('GET without X-CSRF', 'GET', c.withOrigin(c.cookie ? { Cookie: c.cookie } : {}));
  if (c.answered(3, noCsrf)) expectRefusal(3, noCsrf, 403, 'csrf', c.fail);
}

/** Rule 4: no session (no cookie; a forged cookie; a made-up one). */
async function sessionGate(c: Check): Promise<void> {
  const anonymous = await c.probe('GET without a cookie', 'GET', c.withOrigin({ 'X-CSRF': '1' }));
  if (c.answered(4, anonymous)) expectRefusal(4, anonymous, 401, 'no-session', c.fail);
  const forged = await c.probe('GET with a forged session cookie', 'GET', c.withOrigin({ 'X-CSRF': '1', Cookie: c.forged }));
  c.forgedSession = forged;
  if (c.answered(4, forged)) expectRefusal(4, forged, 401, 'no-session', c.fail);
  // A cookie of a name no application uses, with a fresh value: a gate that signs in whatever cookie comes,
  // or reads a signed-out answer of its session store (a "who am I" endpoint's 200 {}) as signed in, gives it a token.
  const madeUp = await c.probe(
    'GET with a made-up cookie',
    'GET',
    c.withOrigin({ 'X-CSRF': '1', Cookie: `bioid-check-${randomHex(4)}=${randomHex(16)}` }),
  );
  if (c.answered(4, madeUp)) expectRefusal(4, madeUp, 401, 'no-session', c.fail);
}

/** Rule 5: "no-cookie" exactly when the browser says cross-site and sends no cookie. */
async function cookieWithheld(c: Check): Promise<void> {
  const { fail } = c;
  const crossSite = await c.probe(
    'cross-site GET without a cookie',
    'GET',
    c.withOrigin({ 'X-CSRF': '1', 'Sec-Fetch-Site': 'cross-site' }),
  );
  if (c.answered(5, crossSite)) expectRefusal(5, crossSite, 401, 'no-cookie', fail);
  const sameSite = await c.probe('same-site GET without a cookie', 'GET', c.withOrigin({ 'X-CSRF': '1', 'Sec-Fetch-Site': 'same-site' }));
  if (c.answered(5, sameSite) && reasonOf(sameSite) === 'no-cookie')
    fail(5, 'a same-site request without a cookie got reason "no-cookie" (only cross-site ones may)');
  if (c.answered(5, c.forgedSession!) && reasonOf(c.forgedSession!) === 'no-cookie')
    fail(5, 'a request that carries a Cookie got reason "no-cookie"');
  const crossSiteForged = await c.probe(
    'cross-site GET with a forged cookie',
    'GET',
    c.withOrigin({ 'X-CSRF': '1', 'Sec-Fetch-Site': 'cross-site', Cookie: c.forged }),
  );
  if (c.answered(5, crossSiteForged)) {
    if (reasonOf(crossSiteForged) === 'no-cookie') fail(5, 'a cross-site request that carries a Cookie got reason "no-cookie"');
    if (crossSiteForged.status !== 401)
      fail(5, `a cross-site request with a forged cookie answered HTTP ${crossSiteForged.status}, not 401`);
  }
}

/** Rules 8, 9, 12 and 13 signed in; rule 10 instead with --expect-502. */
async function signedInRules(c: Check): Promise<void> {
  if (!c.cookie) {
    // The cookie's ways in that keep it off the command line, where other users of the machine see it.
    const signIn = `needs a signed-in session: set ${CHECK_ENV.cookie}="<name>=<value>", or pass --cookie - with it on stdin`;
    for (const rule of [8, 9, 12, 13]) c.skip(rule, signIn);
    if (c.options.expect502) c.skip(10, signIn);
    return;
  }
  if (c.options.expect502) {
    const failed = await c.probe('signed-in GET (IdP failing)', 'GET', c.signedIn());
    if (c.answered(10, failed)) check502(failed, c.fail);
    for (const rule of [8, 9, 12, 13]) c.skip(rule, 'not probed with --expect-502 (no token can be issued)');
    return;
  }
  const first = await c.probe('signed-in GET', 'GET', c.signedIn({ 'Sec-Fetch-Site': 'cross-site' }));
  /** When token A was first answered: a broker may keep a token it served moments ago (rule 13). */
  const firstAt = Date.now();
  if (c.answered(8, first)) c.token = checkSuccess(first, c.fail);
  if (reasonOf(first) === 'no-cookie') c.fail(5, 'a cross-site request that carries the session cookie got reason "no-cookie"');
  const later = await caching(c, first);
  await perUser(c);
  await refusedToken(c, later, firstAt);
}

/** Rule 9: a second signed-in GET after a wait; its token and expires_in, which rule 13 starts from. */
async function caching(c: Check, first: Probe): Promise<{ token: string | undefined; expiresIn: number }> {
  if (c.token === undefined) {
    c.skip(9, 'no token to compare (rule 8 failed)');
    return { token: undefined, expiresIn: 0 };
  }
  const firstIn = (first.json as { expires_in: number }).expires_in;
  const waitMs = Math.min(c.options.cacheWaitMs ?? 1100, Math.max(0, c.deadline - Date.now() - PROBE_TIMEOUT_MS));
  await sleep(waitMs);
  const later = await c.probe('signed-in GET after a wait', 'GET', c.signedIn());
  const laterBody = later.json as { access_token?: unknown; expires_in?: unknown } | undefined;
  let token: string | undefined;
  let expiresIn = 0;
  if (c.answered(9, later)) token = checkSuccess(later, (_, note) => c.fail(9, note));
  if (token !== undefined) expiresIn = laterBody!.expires_in as number;
  if (token === c.token && expiresIn >= firstIn) {
    c.fail(
      9,
      `the same token was answered ${(waitMs / 1000).toFixed(1)} s later with expires_in ${expiresIn} (first ${firstIn}): a cached token must answer what is left of its life`,
    );
  }
  return { token, expiresIn };
}

/** Rule 12: a second user gets a token of their own (RFC 8693 brokers only). */
async function perUser(c: Check): Promise<void> {
  const { secondCookie } = c.options;
  if (!secondCookie) {
    c.skip(12, "RFC 8693 brokers only: pass --second-cookie with another user's session");
    return;
  }
  if (c.token === undefined) return;
  const other = await c.probe('GET as the second user', 'GET', c.withOrigin({ 'X-CSRF': '1', Cookie: secondCookie }));
  if (!c.answered(12, other)) return;
  const otherToken = checkSuccess(other, (_, note) => c.fail(12, `second user: ${note}`));
  if (otherToken !== undefined && otherToken === c.token)
    c.fail(12, 'two signed-in users got the same token: an RFC 8693 broker exchanges and caches per user');
}

/**
 * Rule 13 (optional): X-Refused-Token. Token A is the one the two signed-in GETs got; the notes say
 * "token A", "token B", never a token.
 */
async function refusedToken(c: Check, later: { token: string | undefined; expiresIn: number }, firstAt: number): Promise<void> {
  const token = c.token;
  if (token === undefined || later.token === undefined) return c.skip(13, 'no token to refuse (rule 8 or 9 got none)');
  if (later.token !== token)
    return c.skip(13, 'not applicable: two signed-in GETs got two different tokens, so the broker does not cache one to replace');
  if (later.expiresIn < REFUSAL_MIN_LEFT_S) {
    return c.skip(
      13,
      `not probed: the cached token has ${later.expiresIn} s left, so a new token could be its renewal rather than a replacement`,
    );
  }
  const preflightRefuses = await refusedTokenPreflight(c);
  /** The token of a signed-in GET that sends `hash`, or undefined when the answer is no token (rule 13 failed). */
  const refusing = async (label: string, hash: string) => {
    const p = await c.probe(`signed-in GET with X-Refused-Token: ${label}`, 'GET', c.signedIn({ 'X-Refused-Token': hash }));
    return c.answered(13, p) ? checkSuccess(p, (_, note) => c.fail(13, note)) : undefined;
  };
  const wrong = await refusing('a hash of no token it served', hashToken(`bioid-check: not a token (${Date.now()})`));
  if (wrong !== undefined && wrong !== token) {
    return c.fail(
      13,
      'a hash of no token it served replaced the cached token A: anyone signed in can make the broker exchange for nothing (drop the cached token only when X-Refused-Token is the hash of that token)',
    );
  }
  if (wrong === undefined) return;
  const replaced = await refusing('the hash of token A', hashToken(token));
  if (replaced === token) {
    return c.skip(
      13,
      `the broker ignores X-Refused-Token (optional), or replaces no token served as recently as token A (${((Date.now() - firstAt) / 1000).toFixed(1)} s before): it answered token A again, so after the middleware refuses a token the SDK reports "unauthorized" until the broker renews it`,
    );
  }
  if (replaced === undefined) return;
  const again = await refusing('the hash of token A again', hashToken(token));
  if (again === token) c.fail(13, 'the hash of token A, sent again, was answered with token A, which the broker had replaced by token B');
  else if (again !== undefined && again !== replaced) {
    c.fail(
      13,
      'the hash of token A, sent again, replaced token B by a third token: a broker exchanges at most once per refused token (the next token has another hash)',
    );
  } else if (again !== undefined && preflightRefuses) {
    c.skip(
      13,
      `the broker replaces a refused token, but its preflight from ${c.origin} ${preflightRefuses}, so pages on that origin cannot send the header (rule 2)`,
    );
  }
}

/** The preflight a browser sends before the broker client's retry after a 401: what is wrong with it, if anything. */
async function refusedTokenPreflight(c: Check): Promise<string | undefined> {
  const { origin } = c;
  if (!origin) return undefined;
  const pre = await c.probe('preflight with X-Refused-Token', 'OPTIONS', {
    Origin: origin,
    'Access-Control-Request-Method': 'GET',
    'Access-Control-Request-Headers': 'x-csrf,x-refused-token',
  });
  if (!c.answered(13, pre)) return undefined;
  if (pre.status < 200 || pre.status > 299) return `answered HTTP ${pre.status}`;
  if (pre.headersIn['access-control-allow-origin'] !== origin)
    return `has Access-Control-Allow-Origin ${show(pre.headersIn['access-control-allow-origin'])}`;
  if (!listHas(pre.headersIn['access-control-allow-headers'], 'X-Refused-Token'))
    return 'does not list X-Refused-Token in Access-Control-Allow-Headers';
  return undefined;
}

/** A foreign origin reading a signed-in answer must get no grant (rule 6, read with every answer). */
async function foreignGet(c: Check): Promise<void> {
  await c.probe('GET from a foreign origin', 'GET', { 'X-CSRF': '1', Origin: FOREIGN_ORIGIN, ...(c.cookie ? { Cookie: c.cookie } : {}) });
}

/** Rule 10 on any 5xx seen; skipped when none was provoked. */
function exchangeFailures(c: Check): void {
  if (c.options.expect502) return;
  const errors = c.probes.filter((p) => !p.error && p.status >= 500);
  for (const p of errors) check502(p, c.fail);
  if (errors.length === 0)
    c.skip(
      10,
      "not provoked: run the check with --expect-502 while the broker's identity provider refuses (for example a wrong client secret)",
    );
}

/** Rules 6, 7 and 11 over every answer. */
function everyAnswer(c: Check): void {
  const { origin, token, fail } = c;
  for (const p of c.probes) {
    if (p.error) continue;
    const allowOrigin = p.headersIn['access-control-allow-origin'];
    if (allowOrigin === '*') fail(6, `${p.label}: Access-Control-Allow-Origin: * (a wildcard hands tokens to any site)`);
    const sentOrigin = p.headers.Origin;
    if (sentOrigin === FOREIGN_ORIGIN && allowOrigin)
      fail(6, `${p.label}: the foreign origin got Access-Control-Allow-Origin ${show(allowOrigin)}`);
    if (origin && sentOrigin === origin && p.method === 'GET') {
      if (allowOrigin !== origin) fail(6, `${p.label}: Access-Control-Allow-Origin is ${show(allowOrigin)}, not ${origin}`);
      if (p.headersIn['access-control-allow-credentials'] !== 'true') fail(6, `${p.label}: Access-Control-Allow-Credentials is not "true"`);
    }
    if (!listHas(p.headersIn.vary, 'Origin') && !listHas(p.headersIn.vary, '*')) fail(6, `${p.label}: no Vary: Origin`);
    if (p.method === 'GET') {
      if (!/\bno-store\b/i.test(String(p.headersIn['cache-control'] ?? '')))
        fail(7, `${p.label}: Cache-Control is ${show(p.headersIn['cache-control'])}, not no-store`);
      if (!/^application\/json\b/i.test(String(p.headersIn['content-type'] ?? '')))
        fail(7, `${p.label}: Content-Type is ${show(p.headersIn['content-type'])}, not application/json`);
    }
    if (p.status !== 200) {
      if (p.json && typeof p.json === 'object' && 'access_token' in p.json)
        fail(11, `${p.label}: a ${p.status} answer carries access_token`);
      if (token && (p.text.includes(token) || JSON.stringify(p.headersIn).includes(token)))
        fail(11, `${p.label}: a ${p.status} answer holds the token`);
    }
  }
  if (!origin) c.skip(6, c.noGrantProbed);
}

function expectRefusal(rule: number, p: Probe, status: number, reason: string, fail: (rule: number, note: string) => void): void {
  if (p.status !== status) {
    fail(rule, `${p.label}: HTTP ${p.status}, not ${status}`);
    return;
  }
  const body = p.json as { error?: unknown; reason?: unknown } | undefined;
  if (!body || typeof body !== 'object' || typeof body.error !== 'string')
    fail(rule, `${p.label}: the body is not a JSON object with a string "error"`);
  else if (body.reason !== reason) fail(rule, `${p.label}: reason is ${show(body.reason)}, not "${reason}"`);
}

function check502(p: Probe, fail: (rule: number, note: string) => void): void {
  if (p.status !== 502) {
    fail(10, `${p.label}: HTTP ${p.status}, not 502`);
    return;
  }
  const body = p.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.error !== 'string')
    fail(10, `${p.label}: the 502 body is not a JSON object with a string "error"`);
  else if (Object.keys(body).length !== 1)
    fail(
      10,
      `${p.label}: the 502 body has fields besides "error" (${Object.keys(body)
        .filter((k) => k !== 'error')
        .join(', ')}); spec 4.1 says exactly { error }`,
    );
}

/** Rule 8; returns the token when the answer is a valid success. */
function checkSuccess(p: Probe, fail: (rule: number, note: string) => void): string | undefined {
  if (p.status !== 200) {
    fail(
      8,
      `${p.label}: HTTP ${p.status}${reasonOf(p) ? ` (reason ${show(reasonOf(p))})` : ''}, not 200: is the --cookie a signed-in session?`,
    );
    return undefined;
  }
  const body = p.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    fail(8, `${p.label}: the body is not a JSON object`);
    return undefined;
  }
  const { access_token: token, expires_in: expiresIn, middleware_url: middlewareUrl } = body;
  let ok = true;
  // docs/wire-contract.md, "Tokens": any legal header value, trimmed, without control characters.
  if (typeof token !== 'string' || token.trim() === '' || token !== token.trim() || /[\u0000-\u001f\u007f]/.test(token)) {
    fail(8, `${p.label}: access_token is not a non-empty string usable as a header value`);
    ok = false;
  }
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) {
    fail(8, `${p.label}: expires_in is ${show(expiresIn)}, not a positive number of seconds`);
    ok = false;
  }
  if (middlewareUrl !== undefined && !isHttpUrl(middlewareUrl)) {
    fail(8, `${p.label}: middleware_url is not an absolute http(s) URL`);
    ok = false;
  }
  return ok ? (token as string) : undefined;
}

const reasonOf = (p: Probe): unknown => (p.json as { reason?: unknown } | undefined)?.reason;

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** The same cookie names with values no session has. */
function forgedCookie(cookie: string | undefined): string {
  if (!cookie) return 'session=bioid-check-forged-0000';
  return cookie
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => `${part.split('=')[0]}=bioid-check-forged-0000`)
    .join('; ');
}

const listHas = (value: string | string[] | undefined, item: string) =>
  String(value ?? '')
    .split(',')
    .some((part) => part.trim().toLowerCase() === item.toLowerCase());

/** A header value for a message: quoted, bounded, "none" when absent (never a token: only CORS/cache headers are shown). */
const show = (value: unknown) =>
  value === undefined || value === null ? 'none' : JSON.stringify(typeof value === 'string' ? value.slice(0, 80) : value);

const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Rule 13's hint: the base64url SHA-256 of a token, without padding. */
const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function send(target: URL, label: string, method: string, headers: Record<string, string>, deadline: number): Promise<Probe> {
  const base = { label, method, headers, status: 0, headersIn: {}, text: '', json: undefined };
  const timeout = Math.min(PROBE_TIMEOUT_MS, deadline - Date.now());
  if (timeout <= 0) return Promise.resolve({ ...base, error: 'not sent: the check ran out of time (25 s)' });
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Probe>((resolve) => {
    const req = request(target, { method, headers: { Accept: 'application/json', ...headers }, timeout }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY) chunks.push(chunk);
      });
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ ...base, status: res.statusCode ?? 0, headersIn: res.headers, text, json });
      });
      res.on('error', (error) => resolve({ ...base, error: `the answer broke off (${error.message})` }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeout} ms`)));
    req.on('error', (error) => resolve({ ...base, error: `no answer (${(error as NodeJS.ErrnoException).code ?? error.message})` }));
    req.end();
  });
}

/** The report: one line per rule, then a summary; the exit status is `failed ? 1 : 0`. */
export function formatResults(url: string, results: RuleResult[], options: CheckOptions = {}): { text: string; failed: number } {
  const lines = [
    `bioid-broker check ${url}${options.origin ? ` (origin ${options.origin})` : ''}${options.cookie ? ', signed in' : ', no session cookie'}`,
  ];
  for (const r of results) {
    const word = r.status === 'pass' ? 'pass' : r.status === 'fail' ? 'FAIL' : 'skip';
    lines.push(`  ${word}  rule ${String(r.rule).padStart(2)}  ${r.title}`);
    for (const note of r.notes) lines.push(`              ${r.status === 'fail' ? '- ' : ''}${note}`);
  }
  const count = (s: RuleStatus) => results.filter((r) => r.status === s).length;
  const failed = count('fail');
  lines.push(
    `${results.length} rules: ${count('pass')} pass, ${failed} fail, ${count('skip')} skipped (rules: docs/broker-contract.md in bioid-sdk)`,
  );
  return { text: lines.join('\n'), failed };
}
