/**
 * The development token broker of `bioid-simulator`: a stand-in for the integrator's backend, so a page
 * with a pasted `<script>` tag runs against the simulator alone (docs/simulator.md). It is the reference broker
 * (`createTokenBroker` of bioid-sdk, the very code an integrator deploys) behind a development sign-in:
 *
 * - GET /signin sets an `HttpOnly; SameSite=Lax` session cookie (a random id, kept in memory) and, with
 *   `?return_to=<url of a loopback page>` (or `?return=`), sends the browser back there;
 * - GET /signout ends that session;
 * - /token is the broker, gated by that session (401 without it, 403 without `X-CSRF: 1`, as in
 *   production), answering `{ access_token, expires_in, middleware_url }`.
 *
 * Pages on any loopback origin may call /token with credentials (the simulator's CORS policy, as its
 * middleware and local service have). The cookie has no `Secure` flag because this runs on plain http:
 * a production session cookie is `Secure`. A loopback page is same-site with the broker only when its
 * host is the same (127.0.0.1 with 127.0.0.1), so the browser sends the Lax cookie along.
 */
import { randomBytes } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { createTokenBroker, toNodeHandler } from 'bioid-sdk/broker';
import { closeServer, listen, originAllowed, readCookie, type AllowedOrigins } from './http-util.js';

export const DEV_SESSION_COOKIE = 'bioid_simulator_session';

export interface DevBrokerOptions {
  host?: string;
  port?: number;
  /** The simulated IdP's base address and realm, and the integrator's client registered there. */
  issuerUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  /** The middleware the tokens are for; the answers name it, so the SDK sends them nowhere else. */
  middlewareUrl: string;
  /** Page origins that may call /token with credentials; default any loopback page. */
  allowedOrigins?: AllowedOrigins;
}

export interface RunningDevBroker {
  url: string;
  port: number;
  /** `<url>/token`: the element's `token-endpoint`. */
  tokenEndpoint: string;
  /** `<url>/signin`: opens a development session in the browser that visits it. */
  signInUrl: string;
  close(): Promise<void>;
}

export function createDevBrokerApp(options: DevBrokerOptions) {
  const allowed = options.allowedOrigins ?? 'loopback';
  const sessions = new Set<string>();
  const sessionOf = (cookieHeader: string | null | undefined) => {
    const id = readCookie(cookieHeader, DEV_SESSION_COOKIE);
    return id !== undefined && sessions.has(id) ? id : undefined;
  };

  const broker = createTokenBroker({
    issuerUrl: options.issuerUrl,
    realm: options.realm,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    middlewareUrl: options.middlewareUrl,
    authorize: (request) => sessionOf(request.headers.get('cookie')),
  });

  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    next();
  });

  app.get('/', (_req, res) => {
    res
      .type('text')
      .send(
        'bioid-simulator development token broker.\n' +
          'GET /signin[?return_to=<your loopback page>]  sets the development session cookie\n' +
          'GET /token  (X-CSRF: 1, with that cookie)   { access_token, expires_in, middleware_url }\n' +
          'GET /signout                                ends the session\n',
      );
  });

  app.get('/signin', (req: Request, res: Response) => {
    const id = randomBytes(32).toString('base64url');
    sessions.add(id);
    res.set('Set-Cookie', `${DEV_SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`);
    // `return_to` is what the elements' login-url appends; `return` is the older name, still read.
    const back = loopbackReturn(req.query.return_to ?? req.query.return, allowed);
    if (back) return void res.redirect(303, back);
    res
      .type('html')
      .set('Content-Security-Policy', "default-src 'none'")
      .send(
        '<!doctype html><meta charset="utf-8"><title>Signed in: bioid-simulator</title>' +
          '<p>Signed in to the bioid-simulator development broker. Go back to your page: its elements now get tokens from <code>/token</code>.</p>',
      );
  });

  app.get('/signout', (req: Request, res: Response) => {
    const id = sessionOf(req.get('cookie'));
    if (id) sessions.delete(id);
    res.set('Set-Cookie', `${DEV_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`).type('text').send('Signed out.\n');
  });

  // CORS for loopback pages: the reference broker grants only exact origins it was given, and the
  // simulator cannot know the integrator's page origin in advance, so this layer grants any loopback
  // page the same way (origin echoed, credentials allowed), and the broker does everything else. Every
  // path gets it, unknown ones too: a typo in token-endpoint then reads as the 404 it is, not as a CORS
  // refusal the page cannot tell from a server that is down.
  app.use((req: Request, res: Response, next) => {
    const origin = req.get('origin');
    if (!origin || !originAllowed(origin, allowed)) return next();
    res.set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true' });
    res.append('Vary', 'Origin');
    if (req.method !== 'OPTIONS') return next();
    res.append('Vary', 'Access-Control-Request-Method, Access-Control-Request-Headers');
    res
      .set({
        'Access-Control-Allow-Methods': 'GET',
        'Access-Control-Allow-Headers': 'X-CSRF, Authorization',
        'Access-Control-Max-Age': '600',
      })
      .status(204)
      .end();
  });
  app.all('/token', toNodeHandler(broker));

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ error: 'No such endpoint on the development broker: use /signin and /token.' });
  });
  return app;
}

export async function startDevBroker(options: DevBrokerOptions): Promise<RunningDevBroker> {
  const { server, url, port } = await listen(createDevBrokerApp(options), options.host, options.port ?? 0);
  return { url, port, tokenEndpoint: `${url}/token`, signInUrl: `${url}/signin`, close: () => closeServer(server) };
}

/** The `return` target when it is an http(s) page of an allowed origin; anything else is ignored (no open redirect). */
function loopbackReturn(value: unknown, allowed: AllowedOrigins): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return originAllowed(url.origin, allowed) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
