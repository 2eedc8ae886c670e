/**
 * The demo's server-side confirmation of a posted verification id, over HTTP against the
 * simulator (real IdP tokens, real middleware records): accepted once, fresh, and only for the signed-in
 * user's own subject. And the confirmer's choice to release a refused id.
 */
import { assert } from 'chai';
import { VerificationConfirmer } from '../../demo/confirm.js';
import { demoServerOptionsFor, startDemoServer, type RunningDemoServer } from '../../demo/server.js';
import { startSimulator, type RunningSimulator } from '../../simulator/src/simulator.js';
import { installFakeDate } from '../support/fake-clock.js';

const CLIENT = { clientId: 'confirm-integrator', clientSecret: 'confirm-secret-0123' };
const USER = { username: 'erin', password: 'erin-password-42' };

describe('demo form: confirming a posted verification id', () => {
  let sim: RunningSimulator;
  let demo: RunningDemoServer;
  let cookie: string;
  let token: string;

  before(async () => {
    sim = await startSimulator({ ...CLIENT, captureDelayMs: [0, 5] });
    demo = await startDemoServer(demoServerOptionsFor(sim, CLIENT, USER));
    const signedIn = await fetch(`${demo.url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: demo.url },
      body: new URLSearchParams(USER),
    });
    cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    token = ((await (await fetch(`${demo.url}/token`, { headers: { 'X-CSRF': '1', Cookie: cookie } })).json()) as { access_token: string })
      .access_token;
    await finger('finger-a');
    await dispatch('enroll', USER.username);
    await finger('finger-b');
    await dispatch('enroll', 'mallory');
  });
  after(async () => {
    await demo?.close();
    await sim?.close();
  });

  const finger = (id: string) =>
    fetch(`${sim.localService.url}/sim/finger`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ finger: id }),
    });
  /** Enroll or verify through the middleware as the page would, with the signed-in user's broker token. */
  const dispatch = async (operation: 'enroll' | 'verify', subjectId: string) => {
    const reply = await fetch(`${sim.middleware.url}/orchestrator/${operation}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'X-Integrator-Id': CLIENT.clientId, 'Content-Type': 'application/json' },
      body: JSON.stringify({ workstationId: sim.workstationId, deviceId: sim.deviceId, subjectId }),
    });
    assert.strictEqual(reply.status, 200, `${operation} ${subjectId}`);
    return (await reply.json()) as { verificationId: string; match: boolean };
  };
  const verification = async (subjectId = USER.username, fingerId = 'finger-a') => {
    await finger(fingerId);
    return (await dispatch('verify', subjectId)).verificationId;
  };
  const post = async (fields: Record<string, string>) => {
    const reply = await fetch(`${demo.url}/form`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, Origin: demo.url },
      // A subject field as the old form posted it: the server must not read it.
      body: new URLSearchParams({ amount: '10', subject: USER.username, ...fields }),
    });
    const page = await reply.text();
    return { status: reply.status, outcome: /id="form-outcome"[^>]*>([^<]*)</.exec(page)?.[1] ?? '' };
  };

  it('10 parallel posts of one verification id: exactly one is accepted', async () => {
    const id = await verification();
    const replies = await Promise.all(Array.from({ length: 10 }, () => post({ verification: id, subject: USER.username })));
    const accepted = replies.filter((r) => r.status === 200);
    assert.strictEqual(accepted.length, 1, JSON.stringify(replies));
    assert.match(accepted[0]!.outcome, new RegExp(`^Accepted: .*&quot;${USER.username}&quot;, verification ${id} confirmed`));
    for (const refused of replies.filter((r) => r.status !== 200)) {
      assert.strictEqual(refused.status, 422);
      assert.match(refused.outcome, /^Refused: This verification was already used; verify again\.$/);
    }
    assert.strictEqual((await post({ verification: id })).status, 422, 'and later posts too');
  });

  it('a verification older than two minutes is refused', async () => {
    const id = await verification();
    const clock = installFakeDate();
    try {
      clock.tick(120_001);
      const reply = await post({ verification: id });
      assert.strictEqual(reply.status, 422);
      assert.match(
        reply.outcome,
        /^Refused: Verification rejected: createdAt is not an ISO 8601 time with a zone within the last 120000 ms/,
      );
    } finally {
      clock.uninstall();
    }
  });

  it("another user's verification is refused: the subject is the signed-in user's, whatever the form says", async () => {
    const theirs = await verification('mallory', 'finger-b');
    const posts: Array<Record<string, string>> = [{ verification: theirs, subject: 'mallory' }, { verification: theirs }];
    for (const fields of posts) {
      const reply = await post(fields);
      assert.strictEqual(reply.status, 422, JSON.stringify(fields));
      assert.match(reply.outcome, /^Refused: Verification rejected: another subject/);
    }
  });

  it('a verification that did not match, and a forged id, are refused', async () => {
    const noMatch = await verification(USER.username, 'finger-c');
    assert.match((await post({ verification: noMatch })).outcome, /Verification rejected: no match/);
    assert.match((await post({ verification: 'ver_forged' })).outcome, /Verification rejected: unknown id/);
    assert.match((await post({})).outcome, /No verification was submitted/);
  });

  it('a refused id is released: its owner can still use it after another user posted it', async () => {
    const confirmer = confirmerFor();
    const theirs = await verification('mallory', 'finger-b');
    assert.deepInclude(await confirmer.confirm(theirs, USER.username), { accepted: false });
    assert.deepInclude(await confirmer.confirm(theirs, 'mallory'), { accepted: true, subjectId: 'mallory' });
    assert.deepInclude(await confirmer.confirm(theirs, 'mallory'), {
      accepted: false,
      reason: 'This verification was already used; verify again.',
    });
  });

  it('a middleware outage releases the reservation: the same id is accepted when the middleware is back', async () => {
    let down = true;
    const confirmer = confirmerFor((input, init) =>
      down && input.includes('/verifications/') ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init),
    );
    const id = await verification();
    let failure: unknown;
    await confirmer.confirm(id, USER.username).catch((error: unknown) => (failure = error));
    assert.include(failure, { code: 'network' });
    down = false;
    assert.deepInclude(await confirmer.confirm(id, USER.username), { accepted: true, verificationId: id });
  });

  it('accepted ids are forgotten once the core would refuse them as too old anyway (memory stays bounded)', async () => {
    const confirmer = confirmerFor();
    const id = await verification();
    const clock = installFakeDate();
    try {
      assert.deepInclude(await confirmer.confirm(id, USER.username), { accepted: true });
      assert.strictEqual((confirmer as unknown as { reserved: Map<string, number> }).reserved.size, 1);
      clock.tick(180_000);
      const again = await confirmer.confirm(id, USER.username);
      assert.deepInclude(again, { accepted: false });
      assert.match((again as { reason: string }).reason, /within the last 120000 ms/, 'refused by age, not by memory');
      assert.strictEqual((confirmer as unknown as { reserved: Map<string, number> }).reserved.size, 0);
    } finally {
      clock.uninstall();
    }
  });

  function confirmerFor(fetchImpl?: (input: string, init?: RequestInit) => Promise<Response>) {
    return new VerificationConfirmer({
      issuerUrl: sim.idp.baseUrl,
      realm: sim.idp.realm,
      ...CLIENT,
      middlewareUrl: sim.middleware.url,
      ...(fetchImpl ? { fetchImpl } : {}),
    });
  }
});
