import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { installFakeDate } from '../support/fake-clock.js';
import { BioID } from '../../src/index.js';
import { clientCredentialsForm, exchangeToken } from '../../src/core/exchange.js';
import { WORKSTATION_OFFLINE_TEXT } from '../../src/core/errors.js';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { startSimulator, type RunningSimulator } from '../../simulator/src/simulator.js';

const CLIENT = { clientId: 'acme-integrator', clientSecret: 'acme-secret-123' };
const OTHER = { clientId: 'other-integrator', clientSecret: 'other-secret-456' };

describe('simulator: middleware, workstation and local service against a real IdP', () => {
  let sim: RunningSimulator;
  let token: string;

  const tokenFor = async (client: typeof CLIENT, idp = sim.idp) =>
    (await exchangeToken(idp.tokenEndpoint, clientCredentialsForm({ issuerUrl: idp.baseUrl, ...client }), { timeoutMs: 5000 })).accessToken;

  const mw = (path: string, init: { method?: string; body?: unknown; token?: string | null; integrator?: string | null } = {}) =>
    fetch(`${sim.middleware.url}/${path}`, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers: {
        ...(init.token === null ? {} : { Authorization: `Bearer ${init.token ?? token}` }),
        ...(init.integrator === null ? {} : { 'X-Integrator-Id': init.integrator ?? CLIENT.clientId }),
        ...(init.body ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
  const sim$ = (path: string, body: unknown) =>
    fetch(`${sim.localService.url}/sim/${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const target = () => ({ workstationId: sim.workstationId, deviceId: sim.deviceId });

  before(async () => {
    sim = await startSimulator({ ...CLIENT, otherClients: [OTHER], captureDelayMs: [0, 20] });
    token = await tokenFor(CLIENT);
  });
  after(() => sim.close());

  it('401 without a bearer token, with garbage, and with a token signed by a foreign key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ azp: CLIENT.clientId })
      .setProtectedHeader({ alg: 'RS256', kid: 'forged' })
      .setIssuer(sim.idp.issuer)
      .setAudience('biometrics-middleware')
      .setSubject(CLIENT.clientId)
      .setExpirationTime('5m')
      .sign(privateKey);
    for (const bad of [null, 'not-a-jwt', forged]) {
      const reply = await mw('biometrics/alice', { token: bad });
      assert.strictEqual(reply.status, 401, `token ${bad === null ? 'missing' : 'bad'}`);
      const body = (await reply.json()) as { error: string; message: string };
      assert.strictEqual(body.error, 'invalid_token');
      assert.strictEqual(typeof body.message, 'string');
      if (bad) assert.ok(!body.message.includes(bad), 'the message never echoes the token');
    }
  });

  it('401 for a token of another IdP (wrong issuer) and for a wrong audience', async () => {
    let stranger: RunningIdp | undefined;
    let wrongAudience: RunningIdp | undefined;
    try {
      stranger = await startIdp({ clients: [CLIENT], realm: sim.idp.realm });
      wrongAudience = await startIdp({ clients: [CLIENT], realm: sim.idp.realm, audience: 'some-other-api' });
      for (const idp of [stranger, wrongAudience]) {
        const foreign = (await (
          await fetch(idp.tokenEndpoint, {
            method: 'POST',
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              client_id: CLIENT.clientId,
              client_secret: CLIENT.clientSecret,
              audience: idp.audience,
            }),
          })
        ).json()) as { access_token: string };
        assert.strictEqual((await mw('biometrics/alice', { token: foreign.access_token })).status, 401);
      }
    } finally {
      await stranger?.close();
      await wrongAudience?.close();
    }
  });

  it('401 for an expired IdP token (expiry is checked, no clock tolerance)', async () => {
    const shortLived = await startSimulator({ ...CLIENT, accessTokenTtl: 2, captureDelayMs: [0, 5] });
    // Date stands still (the middleware checks expiry in this process) and is set to either side of exp.
    const clock = installFakeDate();
    try {
      const expiring = await tokenFor(CLIENT, shortLived.idp);
      const exp = decodeJwt(expiring).exp!;
      const call = () => fetch(`${shortLived.middleware.url}/biometrics/alice`, { headers: { Authorization: `Bearer ${expiring}` } });
      assert.strictEqual((await call()).status, 200);
      clock.setSystemTime(exp * 1000 - 1);
      assert.strictEqual((await call()).status, 200, 'valid until its last millisecond');
      clock.setSystemTime(exp * 1000);
      const expired = await call();
      assert.strictEqual(expired.status, 401);
      assert.match(((await expired.json()) as { message: string }).message, /ERR_JWT_EXPIRED/);
    } finally {
      clock.uninstall();
      await shortLived.close();
    }
  });

  it('accepts a real IdP token: fetchEnrolled of an unknown subject is an empty list', async () => {
    const reply = await mw('biometrics/nobody');
    assert.strictEqual(reply.status, 200);
    assert.deepStrictEqual(await reply.json(), { subjectId: 'nobody', records: [] });
  });

  it("dispatch needs X-Integrator-Id (400) naming the token's own client (403)", async () => {
    const missing = await mw('orchestrator/enroll', { body: { ...target(), subjectId: 'x' }, integrator: null });
    assert.strictEqual(missing.status, 400);
    assert.strictEqual(((await missing.json()) as { error: string }).error, 'missing_integrator_id');
    const other = await mw('orchestrator/enroll', { body: { ...target(), subjectId: 'x' }, integrator: 'someone-else' });
    assert.strictEqual(other.status, 403);
  });

  it('400 names a missing field', async () => {
    const reply = await mw('orchestrator/enroll', { body: { workstationId: sim.workstationId, subjectId: 'x' } });
    assert.strictEqual(reply.status, 400);
    assert.match(((await reply.json()) as { message: string }).message, /deviceId/);
  });

  it('enroll, verify (match and non-match), confirm the verification, search, fetchEnrolled', async () => {
    await sim$('finger', { finger: 'finger-a' });
    const enrolled = await mw('orchestrator/enroll', { body: { ...target(), subjectId: 'alice', agentId: 'clerk-7' } });
    assert.strictEqual(enrolled.status, 200);
    const enrollment = (await enrolled.json()) as { subjectId: string; enrollmentId: string; quality: number };
    assert.strictEqual(enrollment.subjectId, 'alice');
    assert.match(enrollment.enrollmentId, /^enr_/);
    assert.strictEqual(enrollment.quality, 92);

    await sim$('finger', { finger: 'finger-b' });
    assert.strictEqual((await mw('orchestrator/enroll', { body: { ...target(), subjectId: 'bob' } })).status, 200);

    await sim$('finger', { finger: 'finger-a' });
    const same = (await (await mw('orchestrator/verify', { body: { ...target(), subjectId: 'alice' } })).json()) as {
      match: boolean;
      score: number;
      verificationId: string;
      subjectId: string;
    };
    assert.strictEqual(same.match, true);
    assert.ok(same.score >= 0.9);
    await sim$('finger', { finger: 'finger-c' });
    const different = (await (await mw('orchestrator/verify', { body: { ...target(), subjectId: 'alice' } })).json()) as typeof same;
    assert.strictEqual(different.match, false);
    assert.notStrictEqual(different.verificationId, same.verificationId);

    const confirmed = (await (await mw(`verifications/${same.verificationId}`)).json()) as typeof same;
    assert.strictEqual(confirmed.match, true);
    assert.strictEqual(confirmed.subjectId, 'alice');
    assert.strictEqual((await mw('verifications/ver_made-up')).status, 404);

    await sim$('finger', { finger: 'finger-b' });
    const search = (await (await mw('orchestrator/search', { body: target() })).json()) as {
      candidates: Array<{ subjectId: string }>;
      searchId: string;
    };
    assert.deepStrictEqual(
      search.candidates.map((c) => c.subjectId),
      ['bob'],
    );
    await sim$('finger', { finger: 'finger-d' });
    const none = (await (await mw('orchestrator/search', { body: target() })).json()) as typeof search;
    assert.deepStrictEqual(none.candidates, []);

    const records = (await (await mw('biometrics/alice')).json()) as { records: Array<{ enrollmentId: string }> };
    assert.deepStrictEqual(
      records.records.map((r) => r.enrollmentId),
      [enrollment.enrollmentId],
    );
  });

  it("docs/wire-contract.md: GET /verifications/{id} answers the whole record; 401 without a valid token; 404 when unknown or another tenant's", async () => {
    await sim$('finger', { finger: 'finger-a' });
    assert.strictEqual((await mw('orchestrator/enroll', { body: { ...target(), subjectId: 'vera' } })).status, 200);
    const before = Date.now();
    const verified = (await (await mw('orchestrator/verify', { body: { ...target(), subjectId: 'vera', agentId: 'clerk-2' } })).json()) as {
      verificationId: string;
    };
    const reply = await mw(`verifications/${encodeURIComponent(verified.verificationId)}`, { integrator: null });
    assert.strictEqual(reply.status, 200);
    const found = (await reply.json()) as Record<string, unknown>;
    assert.deepStrictEqual(Object.keys(found).sort(), [
      'agentId',
      'createdAt',
      'deviceId',
      'match',
      'score',
      'subjectId',
      'verificationId',
      'workstationId',
    ]);
    assert.include(found, {
      verificationId: verified.verificationId,
      subjectId: 'vera',
      match: true,
      workstationId: sim.workstationId,
      deviceId: sim.deviceId,
    });
    assert.match(String(found.createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Date.parse(String(found.createdAt)) >= before - 1_000);

    assert.strictEqual((await mw(`verifications/${verified.verificationId}`, { token: null })).status, 401);
    assert.strictEqual((await mw(`verifications/${verified.verificationId}`, { token: 'not-a-jwt' })).status, 401);
    assert.strictEqual(
      (await mw(`verifications/${verified.verificationId}`, { token: await tokenFor(OTHER), integrator: null })).status,
      404,
    );
    const unknown = await mw('verifications/ver_unknown');
    assert.strictEqual(unknown.status, 404);
    assert.strictEqual(((await unknown.json()) as { error: string }).error, 'unknown_verification');
  });

  it('docs/core.md: bio.confirmVerification against the simulator accepts a fresh match of its subject and rejects the rest', async () => {
    const bio = new BioID({
      middlewareUrl: sim.middleware.url,
      integratorId: CLIENT.clientId,
      ...target(),
      auth: { type: 'idpClientCredentials', issuerUrl: sim.idp.baseUrl, realm: sim.idp.realm, ...CLIENT },
    });
    const rejected = (why: RegExp) => (e: { code?: string; message?: string }) =>
      e.code === 'verification-rejected' && why.test(e.message ?? '');
    try {
      await sim$('finger', { finger: 'finger-b' });
      await bio.reader.enroll({ subjectId: 'walt' });
      const match = await bio.reader.verify({ subjectId: 'walt' });
      const confirmed = await bio.confirmVerification(match.verificationId!, { subjectId: 'walt' });
      assert.include(confirmed, { verificationId: match.verificationId, subjectId: 'walt', match: true, workstationId: sim.workstationId });
      await rejectsWith(bio.confirmVerification(match.verificationId!, { subjectId: 'vera' }), rejected(/another subject/));
      await rejectsWith(bio.confirmVerification('ver_forged', { subjectId: 'walt' }), rejected(/unknown id/));
      await sim$('finger', { finger: 'finger-c' });
      const noMatch = await bio.reader.verify({ subjectId: 'walt' });
      await rejectsWith(bio.confirmVerification(noMatch.verificationId!, { subjectId: 'walt' }), rejected(/no match/));
      const clock = installFakeDate();
      try {
        clock.tick(120_001);
        await rejectsWith(bio.confirmVerification(match.verificationId!, { subjectId: 'walt' }), rejected(/within the last 120000 ms/));
      } finally {
        clock.uninstall();
      }
    } finally {
      bio.close();
    }
  });

  it('no finger on the sensor is 422 no_finger; an unknown operation 404', async () => {
    await sim$('finger', { finger: null });
    try {
      const reply = await mw('orchestrator/search', { body: target() });
      assert.strictEqual(reply.status, 422);
      assert.match(((await reply.json()) as { error: string; message: string }).message, /No finger was placed/);
    } finally {
      await sim$('finger', { finger: 'finger-a' });
    }
    assert.strictEqual((await mw('orchestrator/delete', { body: target() })).status, 404);
    assert.strictEqual((await sim$('finger', { finger: 'finger-z' })).status, 400);
  });

  it('verify of a subject with no enrollment is 404 subject_not_enrolled', async () => {
    const reply = await mw('orchestrator/verify', { body: { ...target(), subjectId: 'ghost' } });
    assert.strictEqual(reply.status, 404);
    assert.strictEqual(((await reply.json()) as { error: string }).error, 'subject_not_enrolled');
  });

  it('templates and verifications are per integrator: another tenant of the same IdP sees none of them', async () => {
    const other = await tokenFor(OTHER);
    const mine = (await (await mw('biometrics/alice')).json()) as { records: unknown[] };
    assert.ok(mine.records.length > 0);
    const theirs = (await (await mw('biometrics/alice', { token: other })).json()) as { records: unknown[] };
    assert.deepStrictEqual(theirs.records, []);
    const verify = await mw('orchestrator/verify', { body: { ...target(), subjectId: 'alice' }, token: other, integrator: OTHER.clientId });
    assert.strictEqual(verify.status, 404, 'alice is not enrolled for the other integrator');
    // And one integrator cannot claim to be the other by changing the header.
    assert.strictEqual((await mw('orchestrator/search', { body: target(), token: other })).status, 403);
  });

  it('an offline workstation: 503 with the exact text, liveness live:false; back online works again', async () => {
    await sim$('finger', { finger: 'finger-a' });
    await sim$('workstation', { online: false });
    try {
      const reply = await mw('orchestrator/verify', { body: { ...target(), subjectId: 'alice' } });
      assert.strictEqual(reply.status, 503);
      assert.deepStrictEqual(await reply.json(), { error: 'workstation_offline', message: WORKSTATION_OFFLINE_TEXT });
      const live = (await (await mw(`orchestrator/workstations/${sim.workstationId}`)).json()) as { live: boolean };
      assert.strictEqual(live.live, false);
      // The local service itself still answers discovery: only the orchestrator link is down.
      assert.strictEqual((await fetch(`${sim.localService.url}/status`)).status, 200);
    } finally {
      await sim$('workstation', { online: true });
    }
    const live = (await (await mw(`orchestrator/workstations/${sim.workstationId}`)).json()) as { live: boolean; devices: unknown[] };
    assert.strictEqual(live.live, true);
    assert.deepStrictEqual(live.devices, [{ deviceId: sim.deviceId, connected: true }]);
    assert.strictEqual((await mw('orchestrator/workstations/ws-unknown')).status, 404);
  });

  it('an unplugged device is 409 device_disconnected; an unknown device 422; an unknown workstation 404', async () => {
    await sim$('device', { connected: false });
    try {
      const reply = await mw('orchestrator/enroll', { body: { ...target(), subjectId: 'carol' } });
      assert.strictEqual(reply.status, 409);
      assert.strictEqual(((await reply.json()) as { error: string }).error, 'device_disconnected');
      const status = (await (await fetch(`${sim.localService.url}/status`)).json()) as { devices: Array<{ connected: boolean }> };
      assert.strictEqual(status.devices[0]!.connected, false);
    } finally {
      await sim$('device', { connected: true });
    }
    const unknownDevice = await mw('orchestrator/enroll', { body: { ...target(), deviceId: 'nope', subjectId: 'carol' } });
    assert.strictEqual(unknownDevice.status, 422);
    const unknownWs = await mw('orchestrator/enroll', { body: { ...target(), workstationId: 'ws-nope', subjectId: 'carol' } });
    assert.strictEqual(unknownWs.status, 404);
  });

  it('local service: /status, /test-capture with a deterministic fingerprint image, CORS with Private Network Access', async () => {
    const status = (await (await fetch(`${sim.localService.url}/status`)).json()) as unknown;
    assert.deepStrictEqual(status, {
      workstationId: sim.workstationId,
      devices: [{ deviceId: sim.deviceId, model: 'SimReader 500', connected: true }],
    });
    const capture = async () =>
      (await (
        await fetch(`${sim.localService.url}/test-capture`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ deviceId: sim.deviceId }),
        })
      ).json()) as { deviceId: string; quality: number; image: string };
    await sim$('finger', { finger: 'finger-c' });
    const c1 = await capture();
    const c2 = await capture();
    await sim$('finger', { finger: 'finger-a' });
    const a = await capture();
    assert.strictEqual(c1.quality, 78);
    assert.strictEqual(c1.image, c2.image);
    assert.notStrictEqual(c1.image, a.image);
    assert.match(a.image, /^data:image\/svg\+xml;base64,/);

    const preflight = await fetch(`${sim.localService.url}/test-capture`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://127.0.0.1:4321',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
        'Access-Control-Request-Private-Network': 'true',
      },
    });
    assert.strictEqual(preflight.status, 204);
    assert.strictEqual(preflight.headers.get('access-control-allow-origin'), 'http://127.0.0.1:4321');
    assert.strictEqual(preflight.headers.get('access-control-allow-private-network'), 'true');
    const foreign = await fetch(`${sim.localService.url}/status`, { headers: { Origin: 'https://evil.example' } });
    assert.strictEqual(foreign.headers.get('access-control-allow-origin'), null);
  });

  it('middleware CORS preflight allows Authorization, Content-Type and X-Integrator-Id', async () => {
    const preflight = await fetch(`${sim.middleware.url}/orchestrator/verify`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://localhost:3000',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-integrator-id',
      },
    });
    assert.strictEqual(preflight.status, 204);
    assert.strictEqual(preflight.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-Integrator-Id/);
  });

  it('the SDK core drives the simulator end to end (idpClientCredentials, discovery, offline code)', async () => {
    const bio = new BioID({
      middlewareUrl: sim.middleware.url,
      integratorId: CLIENT.clientId,
      readerServiceUrl: sim.localService.url,
      auth: { type: 'idpClientCredentials', issuerUrl: sim.idp.baseUrl, realm: sim.idp.realm, ...CLIENT },
    });
    try {
      await sim$('finger', { finger: 'finger-d' });
      await bio.reader.enroll({ subjectId: 'dora' });
      assert.strictEqual((await bio.reader.verify({ subjectId: 'dora' })).match, true);
      assert.strictEqual((await bio.reader.search()).candidates?.[0]?.subjectId, 'dora');
      await sim$('workstation', { online: false });
      await rejectsWith(
        bio.reader.verify({ subjectId: 'dora' }),
        (e: { code?: string; message?: string }) =>
          e.code === 'workstation-offline' && (e.message ?? '').includes(WORKSTATION_OFFLINE_TEXT),
      );
    } finally {
      await sim$('workstation', { online: true });
      bio.close();
    }
  });
});
