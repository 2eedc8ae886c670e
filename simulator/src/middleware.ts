/**
 * The simulated biometrics middleware (docs/wire-contract.md).
 *
 * - Every request needs `Authorization: Bearer <JWT>`, verified with jose against the IdP's JWKS:
 *   signature, issuer, audience `biometrics-middleware`, expiry. Otherwise 401 `{error, message}`.
 * - The tenant is the token's client (claim `client_id`, else `azp`, else `sub`). Orchestrator dispatch
 *   also needs `X-Integrator-Id` (400 without), and it must name the token's own client (403 otherwise):
 *   an integrator cannot act for another tenant by changing a header.
 * - Enrolled templates, verifications and searches are kept in memory per tenant.
 * - Captures are dispatched to the workstation over its /link channel (see local-service.ts); an
 *   unreachable or offline workstation is 503 "Target workstation is not currently live."
 * - GET /verifications/{id} lets the integrator's server confirm a verification id it received from a
 *   browser (a client-side match is never proof).
 */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { WORKSTATION_OFFLINE_TEXT } from 'bioid-sdk';
import { compareTemplates, MATCH_THRESHOLD } from './fingers.js';
import { closeServer, cors, jsonErrors, listen, route, sendError, type AllowedOrigins } from './http-util.js';
import { SimError } from './workstation.js';

export const MIDDLEWARE_AUDIENCE = 'biometrics-middleware';

export interface MiddlewareOptions {
  host?: string;
  port?: number;
  /** The IdP's issuer identifier and JWKS address (`RunningIdp.issuer`, `.jwksUri`). */
  issuer: string;
  jwksUri: string;
  audience?: string;
  /** Workstations the orchestrator can reach: id -> base URL of its local service (/link channel). */
  workstations: Record<string, string>;
  allowedOrigins?: AllowedOrigins;
  /** Bound on one dispatch to a workstation (capture included). Default 20 s. */
  dispatchTimeoutMs?: number;
}

interface Enrollment {
  enrollmentId: string;
  createdAt: string;
  quality: number;
  template: number[];
  agentId?: string;
}

interface Verification {
  verificationId: string;
  subjectId: string;
  match: boolean;
  score: number;
  createdAt: string;
  workstationId: string;
  deviceId: string;
  agentId?: string;
}

export interface RunningMiddleware {
  url: string;
  port: number;
  /** Number of requests rejected with 401, for tests. */
  readonly rejectedTokens: number;
  close(): Promise<void>;
}

type Operation = 'enroll' | 'verify' | 'search';

export function createMiddlewareApp(options: MiddlewareOptions) {
  const audience = options.audience ?? MIDDLEWARE_AUDIENCE;
  const jwks = createRemoteJWKSet(new URL(options.jwksUri));
  const dispatchTimeoutMs = options.dispatchTimeoutMs ?? 20_000;
  const enrollments = new Map<string, Map<string, Enrollment[]>>(); // tenant -> subject -> records
  const verifications = new Map<string, Map<string, Verification>>(); // tenant -> id -> verification
  const stats = { rejectedTokens: 0 };

  const tenantMap = <T>(store: Map<string, Map<string, T>>, tenant: string) => {
    let map = store.get(tenant);
    if (!map) store.set(tenant, (map = new Map()));
    return map;
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(cors(options.allowedOrigins ?? 'loopback', ['Authorization', 'Content-Type', 'Accept', 'X-Integrator-Id']));
  app.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  // Authentication: every route below needs a valid token (Express 5 forwards a rejected promise).
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const match = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '');
    const reject = (message: string) => {
      stats.rejectedTokens += 1;
      res.set('WWW-Authenticate', 'Bearer realm="biometrics-middleware", error="invalid_token"');
      sendError(res, 401, 'invalid_token', message);
    };
    if (!match) return reject('A bearer token is required (Authorization: Bearer <token>).');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(match[1]!, jwks, { issuer: options.issuer, audience, requiredClaims: ['exp'] }));
    } catch (error) {
      // The jose code says what failed (expired, bad signature, wrong audience) without echoing the token.
      const code = (error as { code?: string }).code ?? 'ERR_JWT_INVALID';
      return reject(`The bearer token was not accepted (${code}).`);
    }
    const tenant = [payload.client_id, payload.azp, payload.sub].find((v): v is string => typeof v === 'string' && v !== '');
    if (!tenant) return reject('The bearer token names no client (client_id, azp or sub).');
    res.locals.tenant = tenant;
    next();
  });
  app.use(express.json({ limit: '16kb' }));

  const linkCall = async (baseUrl: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    let reply: globalThis.Response;
    try {
      reply = await fetch(new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`), {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(dispatchTimeoutMs),
      });
    } catch {
      throw new SimError(503, 'workstation_offline', WORKSTATION_OFFLINE_TEXT);
    }
    const json = (await reply.json().catch(() => ({}))) as Record<string, unknown>;
    if (reply.status === 503) throw new SimError(503, 'workstation_offline', WORKSTATION_OFFLINE_TEXT);
    if (!reply.ok) {
      throw new SimError(
        reply.status,
        String(json.error ?? 'workstation_error'),
        String(json.message ?? `The workstation answered HTTP ${reply.status}.`),
      );
    }
    return json;
  };

  const workstationUrl = (workstationId: string): string => {
    const url = options.workstations[workstationId];
    if (!url) throw new SimError(404, 'unknown_workstation', `Workstation "${workstationId}" is not registered with this middleware.`);
    return url;
  };

  // Workstation liveness (optional call of the wire contract).
  app.get(
    '/orchestrator/workstations/:workstationId',
    route(async (req, res) => {
      const workstationId = String(req.params.workstationId);
      const url = workstationUrl(workstationId);
      try {
        const state = await linkCall(url, 'link/state');
        res.json({
          workstationId,
          live: true,
          devices: ((state.devices as Array<{ deviceId: string; connected: boolean }>) ?? []).map((d) => ({
            deviceId: d.deviceId,
            connected: d.connected,
          })),
        });
      } catch (error) {
        if (error instanceof SimError && error.status === 503) return void res.json({ workstationId, live: false, devices: [] });
        throw error;
      }
    }),
  );

  app.post(
    '/orchestrator/:operation',
    route(async (req, res) => {
      const operation = String(req.params.operation) as Operation;
      if (!['enroll', 'verify', 'search'].includes(operation)) {
        return sendError(res, 404, 'not_found', `Unknown orchestrator operation "${operation}"; use enroll, verify or search.`);
      }
      const tenant = res.locals.tenant as string;
      const integratorId = req.get('x-integrator-id');
      if (!integratorId) return sendError(res, 400, 'missing_integrator_id', 'Orchestrator dispatch requires the X-Integrator-Id header.');
      if (integratorId !== tenant) {
        return sendError(res, 403, 'integrator_mismatch', 'X-Integrator-Id does not match the integrator the bearer token was issued to.');
      }
      const body = (req.body ?? {}) as Record<string, unknown>;
      const field = (name: string, required: boolean): string | undefined => {
        const value = body[name];
        if (value === undefined && !required) return undefined;
        if (typeof value !== 'string' || value.trim() === '') {
          throw new SimError(400, 'bad_request', `${name} is ${required ? 'required and ' : ''}must be a non-empty string.`);
        }
        return value;
      };
      const workstationId = field('workstationId', true)!;
      const deviceId = field('deviceId', true)!;
      const subjectId = field('subjectId', operation !== 'search');
      const agentId = field('agentId', false);
      const subjects = tenantMap(enrollments, tenant);
      if (operation === 'verify' && !subjects.get(subjectId!)?.length) {
        return sendError(res, 404, 'subject_not_enrolled', `Subject "${subjectId}" has no enrolled fingerprint; enroll it first.`);
      }

      const url = workstationUrl(workstationId);
      const capture = await linkCall(url, 'link/capture', { deviceId });
      const template = capture.template as number[];
      const quality = capture.quality as number;
      const createdAt = new Date().toISOString();

      if (operation === 'enroll') {
        const enrollmentId = `enr_${randomUUID()}`;
        const records = subjects.get(subjectId!) ?? [];
        records.push({ enrollmentId, createdAt, quality, template, ...(agentId ? { agentId } : {}) });
        subjects.set(subjectId!, records);
        return void res.json({ subjectId, enrollmentId, quality });
      }
      if (operation === 'verify') {
        const score = Math.max(...subjects.get(subjectId!)!.map((r) => compareTemplates(r.template, template)));
        const verification: Verification = {
          verificationId: `ver_${randomUUID()}`,
          subjectId: subjectId!,
          match: score >= MATCH_THRESHOLD,
          score,
          createdAt,
          workstationId,
          deviceId,
          ...(agentId ? { agentId } : {}),
        };
        tenantMap(verifications, tenant).set(verification.verificationId, verification);
        return void res.json({ subjectId, match: verification.match, score, verificationId: verification.verificationId });
      }
      const candidates = [...subjects.entries()]
        .map(([candidate, records]) => ({
          subjectId: candidate,
          score: Math.max(...records.map((r) => compareTemplates(r.template, template))),
        }))
        .filter((c) => c.score >= MATCH_THRESHOLD)
        .sort((a, b) => b.score - a.score)
        .slice(0, 5);
      res.json({ candidates, searchId: `sea_${randomUUID()}` });
    }),
  );

  app.get('/biometrics/:subjectId', (req: Request, res: Response) => {
    const subjectId = String(req.params.subjectId);
    const records = tenantMap(enrollments, res.locals.tenant as string).get(subjectId) ?? [];
    res.json({ subjectId, records: records.map(({ enrollmentId, createdAt, quality }) => ({ enrollmentId, createdAt, quality })) });
  });

  app.get('/verifications/:verificationId', (req: Request, res: Response) => {
    const verification = tenantMap(verifications, res.locals.tenant as string).get(String(req.params.verificationId));
    if (!verification) return sendError(res, 404, 'unknown_verification', 'No verification with this id for this integrator.');
    res.json(verification);
  });

  app.use((_req: Request, res: Response) => sendError(res, 404, 'not_found', 'No such endpoint on the middleware.'));
  app.use(jsonErrors('The simulated middleware'));
  return { app, stats };
}

export async function startMiddleware(options: MiddlewareOptions): Promise<RunningMiddleware> {
  const { app, stats } = createMiddlewareApp(options);
  const { server, url, port } = await listen(app, options.host, options.port ?? 0);
  return {
    url,
    port,
    get rejectedTokens() {
      return stats.rejectedTokens;
    },
    close: () => closeServer(server),
  };
}
