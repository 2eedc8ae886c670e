/**
 * The broker behind Express and plain node:http through the Node adapter, set up as the README's
 * "Run a token broker" example, and the README's frontend getToken feeding a tokenProvider SDK that
 * calls a middleware verifying the token against the real IdP's JWKS (spec 4.1 flow, steps 1-5).
 */
import { assert } from 'chai';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import express from 'express';
import { BioID } from '../../src/index.js';
import { brokerOptionsFromEnv, createTokenBroker, expressTokenBroker, toNodeHandler } from '../../src/broker/index.js';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import {
  APP_ORIGIN,
  CLIENT,
  captureLog,
  readJson,
  startMiddlewareStub,
  startServer,
  type LocalServer,
  type MiddlewareStub,
} from './support.js';

let idp: RunningIdp;
let middleware: MiddlewareStub;
let app: LocalServer;
const log = captureLog();

/** Stands in for express-session: the cookie `sid=alice-session` is a signed-in user. */
const sessions = new Map([['alice-session', { userId: 'alice' }]]);
type WithSession = IncomingMessage & { session?: { userId: string } };

before(async () => {
  idp = await startIdp({ clients: [CLIENT] });
  middleware = await startMiddlewareStub(idp);
  const env = {
    BIOID_CLIENT_ID: CLIENT.clientId,
    BIOID_CLIENT_SECRET: CLIENT.clientSecret,
    BIOID_AUTH_URL: idp.baseUrl,
    BIOID_REALM: idp.realm,
    BIOID_ALLOWED_ORIGINS: APP_ORIGIN,
  };
  const server = express();
  server.use((req, _res, next) => {
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const session = sid ? sessions.get(sid) : undefined;
    if (session) (req as WithSession).session = session;
    next();
  });
  // As in the README: app.all, so the broker itself answers OPTIONS and 405.
  server.all(
    '/bioid/token',
    expressTokenBroker(
      brokerOptionsFromEnv(env, {
        authorize: (_request, { req }) => (req as WithSession | undefined)?.session?.userId,
        logger: log.logger,
      }),
    ),
  );
  const listening = server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
  const { port } = listening.address() as { port: number };
  app = {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        listening.close(() => resolve());
        listening.closeAllConnections();
      }),
  };
});
after(async () => {
  await app.close();
  await middleware.close();
  await idp.close();
});

const signedIn = { Cookie: 'sid=alice-session', 'X-CSRF': '1' };

describe('token broker behind Express (Node adapter)', () => {
  it('spec 4.1: a signed-in user gets the token with no-store headers through Express', async () => {
    const response = await fetch(`${app.url}/bioid/token`, { headers: { ...signedIn, Origin: APP_ORIGIN } });
    assert.strictEqual(response.status, 200);
    assert.strictEqual(response.headers.get('cache-control'), 'no-store');
    assert.strictEqual(response.headers.get('pragma'), 'no-cache');
    assert.strictEqual(response.headers.get('access-control-allow-origin'), APP_ORIGIN);
    assert.strictEqual(response.headers.get('access-control-allow-credentials'), 'true');
    const body = await readJson(response);
    assert.strictEqual(typeof body.access_token, 'string');
    assert.ok((body.expires_in as number) > 0);
  });

  it("spec 4.1: authorize sees the Express session through the adapter's context: no session, 401", async () => {
    for (const cookie of [undefined, 'sid=stolen']) {
      const response = await fetch(`${app.url}/bioid/token`, { headers: { 'X-CSRF': '1', ...(cookie ? { Cookie: cookie } : {}) } });
      assert.strictEqual(response.status, 401);
      assert.strictEqual((await readJson(response)).access_token, undefined);
    }
  });

  it('contract rule 3: without X-CSRF: 1, 403 through Express too', async () => {
    const response = await fetch(`${app.url}/bioid/token`, { headers: { Cookie: 'sid=alice-session' } });
    assert.strictEqual(response.status, 403);
  });

  it('spec 4.1: POST gets 405 with Allow; an OPTIONS preflight is answered by the broker', async () => {
    const post = await fetch(`${app.url}/bioid/token`, { method: 'POST', headers: signedIn, body: 'x' });
    assert.strictEqual(post.status, 405);
    assert.strictEqual(post.headers.get('allow'), 'GET, OPTIONS');
    const preflight = await fetch(`${app.url}/bioid/token`, {
      method: 'OPTIONS',
      headers: { Origin: APP_ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-csrf' },
    });
    assert.strictEqual(preflight.status, 204);
    assert.strictEqual(preflight.headers.get('access-control-allow-origin'), APP_ORIGIN);
  });

  it("spec 4.1 flow: the README's frontend getToken feeds a tokenProvider SDK whose calls the middleware accepts", async () => {
    // The README's getToken, with the broker's absolute URL and the browser's cookie jar made explicit.
    const getToken = async () => {
      const response = await fetch(`${app.url}/bioid/token`, { credentials: 'include', headers: signedIn });
      if (!response.ok) throw new Error(`Token broker answered ${response.status}`);
      const json = (await response.json()) as { access_token: string };
      return json.access_token;
    };
    const bio = new BioID({
      middlewareUrl: middleware.url,
      integratorId: 'acme',
      workstationId: 'ws-1',
      deviceId: 'dev-1',
      auth: { type: 'tokenProvider', getToken },
    });
    try {
      const before = middleware.calls.length;
      const result = await bio.reader.verify({ subjectId: 'subject-1' });
      assert.strictEqual(result.match, true);
      const call = middleware.calls[before]!;
      assert.strictEqual(call.authorized, true);
      assert.strictEqual(call.sub, CLIENT.clientId);
    } finally {
      bio.close();
    }
  });
});

describe('token broker behind plain node:http (toNodeHandler)', () => {
  it('serves the token and forwards the status, headers and body unchanged', async () => {
    const broker = createTokenBroker({ issuerUrl: idp.baseUrl, realm: idp.realm, ...CLIENT, authorize: () => true });
    const server = await startServer(toNodeHandler(broker));
    try {
      const ok = await fetch(`${server.url}/anything`, { headers: { 'X-CSRF': '1' } });
      assert.strictEqual(ok.status, 200);
      assert.strictEqual(ok.headers.get('cache-control'), 'no-store');
      assert.strictEqual(typeof (await readJson(ok)).access_token, 'string');
      // Methods a fetch Request cannot even represent still get 405, not a crash.
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${server.url}/anything`, { method: 'TRACE' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      assert.strictEqual(status, 405);
    } finally {
      await server.close();
    }
  });

  it('a throwing handler is answered with a generic 500 (or passed to next) instead of hanging the socket', async () => {
    const server = await startServer(
      toNodeHandler(async () => {
        throw new Error('boom with secret-xyz');
      }),
    );
    try {
      const response = await fetch(server.url, { headers: { 'X-CSRF': '1' } });
      assert.strictEqual(response.status, 500);
      assert.ok(!(await response.text()).includes('secret-xyz'));
    } finally {
      await server.close();
    }
  });
});
