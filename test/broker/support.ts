/**
 * Helpers of the broker tests: a captured logger, a recording fetch that still goes to the real network,
 * small node:http servers on 127.0.0.1:0, and broker requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { RunningIdp } from '../../simulator/src/idp.js';
import { createTokenBroker, type TokenBrokerOptions } from '../../src/broker/index.js';

export const CLIENT = { clientId: 'acme-broker', clientSecret: 's3cret-Do-Not-Leak-7f2a' };
export const APP_ORIGIN = 'https://app.example.com';

export function captureLog() {
  const lines: string[] = [];
  return { lines, logger: (line: string) => void lines.push(line), text: () => lines.join('\n') };
}

/** A broker for CLIENT at `idp` that lets everyone in, logging into a captured log; `overrides` win. */
export function brokerAgainst(idp: RunningIdp, overrides: Partial<TokenBrokerOptions> = {}) {
  const log = captureLog();
  const broker = createTokenBroker({
    issuerUrl: idp.baseUrl,
    realm: idp.realm,
    ...CLIENT,
    authorize: () => true,
    logger: log.logger,
    ...overrides,
  });
  return { broker, log };
}

/** The platform fetch, with every request's form body kept for assertions. */
export function recordingFetch() {
  const forms: URLSearchParams[] = [];
  const fetchImpl = async (input: string, init?: RequestInit) => {
    if (typeof init?.body === 'string') forms.push(new URLSearchParams(init.body));
    return fetch(input, init);
  };
  return { forms, fetchImpl };
}

/** A GET to the broker as the elements send it (credentials, anti-CSRF header). */
export function brokerRequest(init: { method?: string; headers?: Record<string, string>; csrf?: boolean } = {}): Request {
  const headers: Record<string, string> = { ...(init.csrf === false ? {} : { 'X-CSRF': '1' }), ...init.headers };
  return new Request('https://backend.example.com/bioid/token', { method: init.method ?? 'GET', headers });
}

export async function readJson(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

export async function verifyMiddlewareToken(idp: RunningIdp, token: string): Promise<JWTPayload> {
  const jwks = createRemoteJWKSet(new URL(idp.jwksUri));
  const { payload } = await jwtVerify(token, jwks, { issuer: idp.issuer, audience: idp.audience });
  return payload;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface LocalServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startServer(listener: RequestListener): Promise<LocalServer> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Real turns of the event loop until `done`, for work that needs no timer of its own (promise chains, a
 * hash that WebCrypto computes off the loop): the wait ends on the state, however busy the machine. The
 * bound sets no pace; it only ends a wait for a state that never comes, which the caller's assertion names.
 */
export async function turnsUntil(done: () => boolean, boundMs = 10_000): Promise<void> {
  const end = performance.now() + boundMs;
  while (!done() && performance.now() < end) await new Promise((resolve) => setImmediate(resolve));
}

export function elapsedSince(start: number): number {
  return performance.now() - start;
}

export interface MiddlewareStub extends LocalServer {
  /** One entry per request: path, whether its bearer verified, its claims, its X-Integrator-Id. */
  calls: { path: string; authorized: boolean; sub?: string | undefined; integratorId?: string | undefined; body?: unknown }[];
}

/**
 * A stand-in for the middleware's orchestrator (docs/wire-contract.md): verifies the bearer JWT against the IdP's
 * JWKS (issuer and audience), answers 401 otherwise, and answers `POST /orchestrator/verify`.
 */
export async function startMiddlewareStub(idp: RunningIdp): Promise<MiddlewareStub> {
  const calls: MiddlewareStub['calls'] = [];
  const jwks = createRemoteJWKSet(new URL(idp.jwksUri));
  const server = await startServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const text = await readBody(req);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const integratorId = req.headers['x-integrator-id'] as string | undefined;
    let sub: string | undefined;
    try {
      if (!bearer) throw new Error('no bearer');
      ({
        payload: { sub },
      } = await jwtVerify(bearer, jwks, { issuer: idp.issuer, audience: idp.audience }));
    } catch {
      calls.push({ path, authorized: false, integratorId });
      res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    calls.push({ path, authorized: true, sub, integratorId, body });
    if (req.method === 'POST' && path === '/orchestrator/verify') {
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ subjectId: body?.subjectId, match: true, score: 0.97, verificationId: `v-${calls.length}` }));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'not_found' }));
  });
  return { ...server, calls };
}
