/**
 * The simulated local hardware service (the workstation's companion application), default port 18065:
 *  - GET /status, POST /test-capture: the wire contract of docs/wire-contract.md, called by the SDK;
 *  - /sim/*: the simulator control API (finger on the sensor, plug/unplug, workstation online/offline),
 *    used by the demo pages' controls and by tests;
 *  - /link/*: the channel the simulated middleware's orchestrator dispatches captures over. A real
 *    workstation keeps such a link open to the middleware; "offline" means this link is down (503),
 *    while /status keeps answering, as a companion app whose uplink dropped would.
 * /link has no CORS: only the middleware (a server) calls it.
 */
import express from 'express';
import { fingerprintImage, FINGERS } from './fingers.js';
import { closeServer, cors, jsonErrors, listen, route, sendError, type AllowedOrigins } from './http-util.js';
import { SimError, SimulatedWorkstation, type WorkstationOptions } from './workstation.js';
import { WORKSTATION_OFFLINE_TEXT } from 'bioid-sdk';

export interface LocalServiceOptions extends WorkstationOptions {
  host?: string;
  port?: number;
  allowedOrigins?: AllowedOrigins;
}

export interface RunningLocalService {
  url: string;
  port: number;
  workstation: SimulatedWorkstation;
  close(): Promise<void>;
}

export function createLocalServiceApp(workstation: SimulatedWorkstation, allowedOrigins: AllowedOrigins = 'loopback') {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '16kb' }));
  app.use(['/status', '/test-capture', '/sim'], cors(allowedOrigins, ['Content-Type', 'Accept'], true));
  app.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  app.get('/status', (_req, res) => {
    res.json(workstation.status());
  });

  app.post(
    '/test-capture',
    route(async (req, res) => {
      const capture = await workstation.capture(req.body?.deviceId);
      res.json({ deviceId: capture.deviceId, quality: capture.quality, image: fingerprintImage(capture.fingerId) });
    }),
  );

  // --- simulator controls ---
  const state = () => ({
    workstationId: workstation.workstationId,
    online: workstation.online,
    finger: workstation.finger?.id ?? null,
    fingers: FINGERS,
    devices: workstation.status().devices,
  });
  app.get('/sim/state', (_req, res) => {
    res.json(state());
  });
  app.post('/sim/finger', (req, res) => {
    const finger = req.body?.finger;
    if (finger !== null && typeof finger !== 'string') {
      throw new SimError(400, 'bad_request', 'finger must be a finger id or null.');
    }
    workstation.setFinger(finger);
    res.json(state());
  });
  app.post('/sim/device', (req, res) => {
    const { connected, deviceId } = req.body ?? {};
    if (typeof connected !== 'boolean') throw new SimError(400, 'bad_request', 'connected must be true or false.');
    workstation.setDeviceConnected(connected, typeof deviceId === 'string' ? deviceId : undefined);
    res.json(state());
  });
  app.post('/sim/workstation', (req, res) => {
    const online = req.body?.online;
    if (typeof online !== 'boolean') throw new SimError(400, 'bad_request', 'online must be true or false.');
    workstation.online = online;
    res.json(state());
  });

  // --- orchestrator link (middleware -> workstation) ---
  app.use('/link', (_req, res, next) => {
    if (!workstation.online) return sendError(res, 503, 'workstation_offline', WORKSTATION_OFFLINE_TEXT);
    next();
  });
  app.get('/link/state', (_req, res) => {
    res.json({ ...workstation.status(), live: true });
  });
  app.post(
    '/link/capture',
    route(async (req, res) => {
      const capture = await workstation.capture(req.body?.deviceId);
      if (!workstation.online) return sendError(res, 503, 'workstation_offline', WORKSTATION_OFFLINE_TEXT);
      res.json({ deviceId: capture.deviceId, quality: capture.quality, template: capture.template });
    }),
  );

  app.use((_req, res) => sendError(res, 404, 'not_found', 'No such endpoint on the local hardware service.'));
  app.use(jsonErrors('The simulated local hardware service'));
  return app;
}

export async function startLocalService(options: LocalServiceOptions = {}): Promise<RunningLocalService> {
  const workstation = new SimulatedWorkstation(options);
  const { server, url, port } = await listen(createLocalServiceApp(workstation, options.allowedOrigins), options.host, options.port ?? 0);
  return { url, port, workstation, close: () => closeServer(server) };
}
