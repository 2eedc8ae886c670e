/**
 * The whole simulator in one call: a real IdP (oidc-provider), the simulated middleware and the simulated
 * workstation with its local hardware service, each a real HTTP server on 127.0.0.1. Used by
 * `npm run simulate`, by `npm start` (with the demo pages on top) and by the tests (all ports 0).
 */
import { startIdp, type RunningIdp } from './idp.js';
import { startLocalService, type RunningLocalService } from './local-service.js';
import { startMiddleware, type RunningMiddleware } from './middleware.js';
import type { AllowedOrigins } from './http-util.js';
import { DEFAULT_DEVICE_ID, DEFAULT_WORKSTATION_ID } from './workstation.js';

export interface SimulatorOptions {
  host?: string;
  idpPort?: number;
  middlewarePort?: number;
  /** The local hardware service; the SDK's default is 18065. */
  localServicePort?: number;
  realm?: string;
  /** The integrator's confidential client, registered at the IdP. Its id is also the integrator (tenant) id. */
  clientId: string;
  clientSecret: string;
  /** More integrators registered at the IdP (each its own tenant at the middleware). */
  otherClients?: Array<{ clientId: string; clientSecret: string }>;
  workstationId?: string;
  deviceId?: string;
  captureDelayMs?: [number, number];
  accessTokenTtl?: number;
  allowedOrigins?: AllowedOrigins;
}

export interface RunningSimulator {
  idp: RunningIdp;
  middleware: RunningMiddleware;
  localService: RunningLocalService;
  workstationId: string;
  deviceId: string;
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const host = options.host ?? '127.0.0.1';
  const workstationId = options.workstationId ?? DEFAULT_WORKSTATION_ID;
  const deviceId = options.deviceId ?? DEFAULT_DEVICE_ID;
  const started: Array<{ close(): Promise<void> }> = [];
  try {
    const idp = await startIdp({
      host,
      port: options.idpPort ?? 0,
      ...(options.realm ? { realm: options.realm } : {}),
      clients: [{ clientId: options.clientId, clientSecret: options.clientSecret }, ...(options.otherClients ?? [])],
      ...(options.accessTokenTtl ? { accessTokenTtl: options.accessTokenTtl } : {}),
    });
    started.push(idp);
    const localService = await startLocalService({
      host,
      port: options.localServicePort ?? 0,
      workstationId,
      devices: [{ deviceId }],
      ...(options.captureDelayMs ? { captureDelayMs: options.captureDelayMs } : {}),
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    });
    started.push(localService);
    const middleware = await startMiddleware({
      host,
      port: options.middlewarePort ?? 0,
      issuer: idp.issuer,
      jwksUri: idp.jwksUri,
      audience: idp.audience,
      workstations: { [workstationId]: localService.url },
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    });
    started.push(middleware);
    return {
      idp,
      middleware,
      localService,
      workstationId,
      deviceId,
      close: () => closeAll(started),
    };
  } catch (error) {
    await closeAll(started);
    throw error;
  }
}

async function closeAll(parts: Array<{ close(): Promise<void> }>): Promise<void> {
  await Promise.allSettled([...parts].reverse().map((p) => p.close()));
}
