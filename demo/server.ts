/**
 * The demo app (Express 5): sign-in with a real session, the session-gated token broker (the project's
 * own `createTokenBroker` through its Node adapter), and one page per integration style. It plays the
 * integrator's web application; the simulator (simulator/src) plays the operator's side.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { expressTokenBroker } from '../src/broker/index.js';
import { kioskServiceWorkerScript } from '../src/sw/kiosk-worker.js';
import { VerificationConfirmer } from './confirm.js';
import {
  diagnosticsPage,
  embeddedFramePage,
  embeddedPage,
  formPage,
  jqueryPage,
  KIOSK_IMPORT_MAP,
  kioskOfflinePage,
  kioskPage,
  overviewPage,
  plainPage,
  signInPage,
  type PageContext,
} from './pages.js';
import { clearedSessionCookie, sameSecret, sessionCookie, SessionStore, type Session } from './sessions.js';
import { SignInLimiter } from './sign-in-limit.js';
import { closeServer, listen } from '../simulator/src/http-util.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface DemoServerOptions {
  host?: string;
  port?: number;
  /** The IdP's base address and realm (the broker's issuerUrl/realm). */
  issuerUrl: string;
  realm: string;
  /** The integrator's confidential client; stays on this server. */
  clientId: string;
  clientSecret: string;
  /** Tenant id sent as X-Integrator-Id; the demo's IdP client id. */
  integratorId: string;
  middlewareUrl: string;
  localServiceUrl: string;
  /** The kiosk page's pinned target. */
  kiosk: { workstationId: string; deviceId: string };
  /** The demo sign-in. */
  user: { username: string; password: string };
  /** The sign-in page shows `user` (the printed demo defaults); not where the password was set. */
  showCredentials?: boolean;
  /** Where the built package is; default `<repo>/dist`. */
  distDir?: string;
  /** Tests: a `report-uri` for the pages' Content-Security-Policy, so violations are seen in every engine. */
  cspReportUri?: string;
  /**
   * Express's `trust proxy`: which proxy in front of the demo may say, by X-Forwarded-Proto and -For, that
   * the page was served over https (the session cookie is then `Secure`) and from which address (the limit
   * on failed sign-ins counts it). Unset: no proxy is believed; only a direct TLS connection counts as https.
   */
  trustProxy?: boolean | number | string;
}

export interface RunningDemoServer {
  url: string;
  port: number;
  sessions: SessionStore;
  /** Changes the kiosk worker's version (as a deployment would), so kiosks see "a new version". */
  bumpKioskVersion(): void;
  /** Tests: drop every connection and refuse new ones (a network outage), or serve again. */
  setOffline(offline: boolean): void;
  close(): Promise<void>;
}

/** The kiosk's offline page: precached, so it holds no user data (no name, no session). */
const KIOSK_SHELL = '/kiosk/offline';

/**
 * Files the kiosk worker precaches besides its offline page: URL path -> file on disk. Static files only;
 * the signed-in kiosk page itself (it shows who is signed in) is never precached.
 */
function kioskFiles(distDir: string): Record<string, string> {
  return {
    '/bioid-elements.js': join(distDir, 'bioid-elements.js'),
    '/demo-assets/demo.css': join(root, 'demo/public/demo.css'),
    '/demo-assets/common.js': join(root, 'demo/public/common.js'),
    '/kiosk/kiosk.js': join(root, 'demo/public/kiosk.js'),
    '/sdk/sw/index.js': join(distDir, 'sw/index.js'),
    '/vendor/workbox-window.js': join(root, 'node_modules/workbox-window/build/workbox-window.prod.mjs'),
  };
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('base64');

/** The biometric subject of a signed-in user. A real app keeps it in the user's record; here it is the user name. */
export const subjectOf = (session: Session): string => session.username;

export function createDemoApp(options: DemoServerOptions, origin: () => string) {
  const distDir = options.distDir ?? join(root, 'dist');
  const sessions = new SessionStore();
  const signInLimiter = new SignInLimiter();
  const confirmer = new VerificationConfirmer({
    issuerUrl: options.issuerUrl,
    realm: options.realm,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    middlewareUrl: options.middlewareUrl,
  });
  let kioskBump = 0;
  const kioskVersion = () => {
    const hash = createHash('sha256');
    for (const file of Object.values(kioskFiles(distDir))) if (existsSync(file)) hash.update(readFileSync(file));
    hash.update(kioskOfflinePage(deployment, options.kiosk));
    hash.update(String(kioskBump));
    return hash.digest('hex').slice(0, 16);
  };

  /** Where the middleware, local service and tenant are: the same for every user, none of theirs. */
  const deployment = { middlewareUrl: options.middlewareUrl, localServiceUrl: options.localServiceUrl, integratorId: options.integratorId };
  const pageContext = (session: Session): PageContext => ({ ...deployment, username: session.username });
  const connectSources = [...new Set([new URL(options.middlewareUrl).origin, new URL(options.localServiceUrl).origin])].join(' ');
  const csp = (extraScript = '', frameAncestors = "'none'") =>
    [
      "default-src 'self'",
      `script-src 'self'${extraScript}`,
      `connect-src 'self' ${connectSources}`,
      "img-src 'self' data:",
      // Lit's element styles are constructable stylesheets (adoptedStyleSheets), which style-src does not block.
      "style-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      `frame-ancestors ${frameAncestors}`,
      ...(options.cspReportUri ? [`report-uri ${options.cspReportUri}`] : []),
    ].join('; ');
  const html = (res: Response, body: string, status = 200, extraScript = '', frameAncestors?: string) => {
    res
      .status(status)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': csp(extraScript, frameAncestors),
        'Cache-Control': 'no-store',
      })
      .send(body);
  };

  const app = express();
  app.disable('x-powered-by');
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  app.use((_req, res, next) => {
    // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on form posts.
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' });
    next();
  });
  app.use(express.urlencoded({ extended: false, limit: '16kb' }));

  // A form POST from another site never carries our SameSite=Lax cookie; the Origin check covers old browsers too.
  const sameOriginPost = (req: Request, res: Response, next: NextFunction) => {
    const from = req.get('origin');
    if (req.method === 'POST' && from && from !== origin())
      return void res.status(403).type('text').send('Cross-site form posts are refused.');
    next();
  };
  const signedIn = (req: Request, res: Response, next: NextFunction) => {
    const session = sessions.fromCookieHeader(req.get('cookie'));
    if (!session) return void res.redirect(303, `/signin?next=${encodeURIComponent(req.originalUrl)}`);
    res.locals.session = session;
    next();
  };
  const session = (res: Response) => res.locals.session as Session;

  // --- static files: the built bundle, the demo's own scripts, vendor modules ---
  const staticOptions = {
    fallthrough: false,
    index: false as const,
    setHeaders: (res: express.Response) => res.set('Cache-Control', 'no-cache'),
  };
  app.get('/bioid-elements.js', (_req, res) => {
    res.set('Cache-Control', 'no-cache').sendFile(join(distDir, 'bioid-elements.js'));
  });
  // The files the script loads on use sit next to it (docs/elements.md): /bioid-diagnostics.js for /diagnostics.
  app.get(/^\/bioid-[\w-]+\.js$/, (req, res) => {
    res.set('Cache-Control', 'no-cache').sendFile(join(distDir, req.path.slice(1)), (error) => error && res.status(404).end());
  });
  app.use('/demo-assets', express.static(join(root, 'demo/public'), staticOptions));
  // Only the kiosk's registration module is served from the package build (it imports workbox-window).
  app.use('/sdk/sw', express.static(join(distDir, 'sw'), staticOptions));
  app.get('/vendor/jquery.js', (_req, res) => {
    res.set('Cache-Control', 'no-cache').sendFile(join(root, 'node_modules/jquery/dist/jquery.min.js'));
  });
  app.get('/vendor/workbox-window.js', (_req, res) => {
    res
      .set('Cache-Control', 'no-cache')
      .type('text/javascript')
      .sendFile(join(root, 'node_modules/workbox-window/build/workbox-window.prod.mjs'));
  });

  app.get('/favicon.ico', (_req, res) => {
    res.status(204).end();
  });

  // --- sign-in ---
  const safeNext = (value: unknown) => (typeof value === 'string' && /^\/(?!\/)[^\s\\]*$/.test(value) ? value : '/');
  // login-url's return_to is the full address of the page the link was on: only a path of this origin is followed.
  const returnTo = (value: unknown) => {
    const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
    return url?.origin === origin() ? `${url.pathname}${url.search}` : undefined;
  };
  const credentials = options.showCredentials ? options.user : undefined;
  app.get('/signin', (req, res) => html(res, signInPage({ next: safeNext(req.query.next ?? returnTo(req.query.return_to)), credentials })));
  app.post('/signin', sameOriginPost, (req, res) => {
    const { username, password, next } = (req.body ?? {}) as Record<string, unknown>;
    const name = typeof username === 'string' ? username : '';
    const address = req.ip ?? '';
    const waitMs = signInLimiter.blockedFor(address, name);
    if (waitMs > 0) {
      const minutes = Math.ceil(waitMs / 60_000);
      res.set('Retry-After', String(Math.ceil(waitMs / 1000)));
      const error = `Too many failed sign-ins for this user from your address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
      return html(res, signInPage({ next: safeNext(next), error, username: name, credentials }), 429);
    }
    const ok = sameSecret(username, options.user.username) && sameSecret(password, options.user.password);
    if (!ok) {
      signInLimiter.failed(address, name);
      return html(res, signInPage({ next: safeNext(next), error: 'Wrong user name or password.', username: name, credentials }), 401);
    }
    signInLimiter.succeeded(address, name);
    const created = sessions.signIn(options.user.username, req.get('cookie'));
    res.set('Set-Cookie', sessionCookie(created.id, req.secure)).redirect(303, safeNext(next));
  });
  app.post('/signout', sameOriginPost, (req, res) => {
    const current = sessions.fromCookieHeader(req.get('cookie'));
    if (current) sessions.destroy(current.id);
    res.set('Set-Cookie', clearedSessionCookie(req.secure)).redirect(303, '/signin');
  });

  // --- the token broker, gated by the session (spec 4.1) ---
  app.all(
    '/token',
    expressTokenBroker({
      issuerUrl: options.issuerUrl,
      realm: options.realm,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      // The safe habit: tokens name their middleware, and the SDK sends them nowhere else.
      middlewareUrl: options.middlewareUrl,
      authorize: (request) => sessions.fromCookieHeader(request.headers.get('cookie')),
    }),
  );

  // --- pages ---
  app.get('/', signedIn, (_req, res) => html(res, overviewPage(pageContext(session(res)))));
  app.get('/plain', signedIn, (_req, res) => html(res, plainPage(pageContext(session(res)))));
  app.get('/jquery', signedIn, (_req, res) => html(res, jqueryPage(pageContext(session(res)))));
  app.get('/form', signedIn, (_req, res) => html(res, formPage(pageContext(session(res)))));
  app.get('/embedded', signedIn, (_req, res) => html(res, embeddedPage(pageContext(session(res)))));
  // The one page that may be framed, and only by this site's own pages.
  app.get('/embedded/frame', signedIn, (_req, res) => html(res, embeddedFramePage(pageContext(session(res))), 200, '', "'self'"));
  app.get('/diagnostics', signedIn, (_req, res) => html(res, diagnosticsPage(pageContext(session(res)))));
  app.post('/form', sameOriginPost, signedIn, async (req, res) => {
    const { verification, amount } = (req.body ?? {}) as Record<string, unknown>;
    // The subject is the signed-in user's, from the session: a subject field in the post is never read,
    // so one user cannot approve with another user's verification.
    const ctx = pageContext(session(res));
    const confirmation = await confirmer.confirm(verification, subjectOf(session(res))).catch((error: unknown) => ({
      accepted: false as const,
      reason: `The verification could not be confirmed right now (${error instanceof Error ? error.message : 'error'}).`,
    }));
    if (confirmation.accepted) {
      const text = `Accepted: approval of ${String(amount ?? '')} for "${confirmation.subjectId}", verification ${confirmation.verificationId} confirmed by the middleware (score ${String(confirmation.score)}).`;
      return html(res, formPage(ctx, { outcome: { accepted: true, text } }));
    }
    html(res, formPage(ctx, { outcome: { accepted: false, text: `Refused: ${confirmation.reason}` } }), 422);
  });
  // Non-strict routing would make '/kiosk' match '/kiosk/' too: redirect only the slash-less path.
  app.use('/kiosk', (req, res, next) => (req.originalUrl === '/kiosk' ? res.redirect(301, '/kiosk/') : next()));
  app.get('/kiosk/', signedIn, (_req, res) => {
    html(res, kioskPage(pageContext(session(res)), options.kiosk), 200, ` 'sha256-${sha256(KIOSK_IMPORT_MAP)}'`);
  });
  // Public and the same for everyone: the worker precaches it as the page for when the network fails.
  app.get(KIOSK_SHELL, (_req, res) => {
    html(res, kioskOfflinePage(deployment, options.kiosk), 200, ` 'sha256-${sha256(KIOSK_IMPORT_MAP)}'`);
  });
  app.get('/kiosk/kiosk.js', (_req, res) => {
    res.set('Cache-Control', 'no-cache').sendFile(join(root, 'demo/public/kiosk.js'));
  });
  app.get('/kiosk/sw.js', (_req, res) => {
    const script = kioskServiceWorkerScript({
      version: kioskVersion(),
      precache: [KIOSK_SHELL, ...Object.keys(kioskFiles(distDir))],
      shell: KIOSK_SHELL,
    });
    // no-cache: browsers must ask for a new worker on every check, or kiosks would miss updates.
    res.set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }).send(script);
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).type('text').send('Not found.');
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) console.error('demo server error:', err instanceof Error ? err.message : err);
    res
      .status(status)
      .type('text')
      .send(status === 404 ? 'Not found.' : 'The demo server failed; see its console.');
  });

  return { app, sessions, bump: () => void (kioskBump += 1) };
}

/** The demo app's options for a simulator running in this process (tests): its IdP, middleware and reader. */
export function demoServerOptionsFor(
  sim: {
    idp: { baseUrl: string; realm: string };
    middleware: { url: string };
    localService: { url: string };
    workstationId: string;
    deviceId: string;
  },
  client: { clientId: string; clientSecret: string },
  user: { username: string; password: string },
): DemoServerOptions {
  return {
    issuerUrl: sim.idp.baseUrl,
    realm: sim.idp.realm,
    ...client,
    integratorId: client.clientId,
    middlewareUrl: sim.middleware.url,
    localServiceUrl: sim.localService.url,
    kiosk: { workstationId: sim.workstationId, deviceId: sim.deviceId },
    user,
  };
}

export async function startDemoServer(options: DemoServerOptions): Promise<RunningDemoServer> {
  let url = '';
  const { app, sessions, bump } = createDemoApp(options, () => url);
  const listening = await listen(app, options.host, options.port ?? 0);
  url = listening.url;
  let offline = false;
  listening.server.on('connection', (socket) => {
    if (offline) socket.destroy();
  });
  const setOffline = (value: boolean) => {
    offline = value;
    if (offline) listening.server.closeAllConnections();
  };
  return { url, port: listening.port, sessions, bumpKioskVersion: bump, setOffline, close: () => closeServer(listening.server) };
}
