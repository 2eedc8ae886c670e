/**
 * Starts the parts of the simulated world (simulator/src) and the demo app as separate processes
 * (demo/part.ts), in dependency order, and stops them all, last started first. Used by `npm start`
 * (demo/main.ts); `bioid-simulator` (`npm run simulate`) runs the simulator's parts in one process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { DemoConfig } from './config.js';
import type { PartConfigs, PartName } from './part.js';
import { DEFAULT_DEVICE_ID, DEFAULT_WORKSTATION_ID } from '../simulator/src/workstation.js';

const PART_ENTRY = join(dirname(fileURLToPath(import.meta.url)), 'part.ts');
const HOST = '127.0.0.1';

interface RunningPart {
  name: PartName;
  info: Record<string, string>;
  child: ChildProcess;
}

export interface World {
  idp: { baseUrl: string; realm: string; tokenEndpoint: string };
  middlewareUrl: string;
  localServiceUrl: string;
  workstationId: string;
  deviceId: string;
  appUrl: string;
  stop(): Promise<void>;
}

function startPart<N extends PartName>(name: N, config: PartConfigs[N]): Promise<RunningPart> {
  const child = spawn(process.execPath, ['--import', 'tsx', PART_ENTRY, name], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, BIOID_PART: JSON.stringify(config), NODE_NO_WARNINGS: '1' },
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null) => reject(new Error(`the ${name} process exited (code ${code}) before it was ready`));
    child.once('exit', onExit);
    lines.on('line', (line) => {
      if (!line.startsWith('PART_READY ')) return void console.log(line);
      child.off('exit', onExit);
      resolve({ name, child, info: JSON.parse(line.slice('PART_READY '.length)) as Record<string, string> });
    });
  });
}

function stopPart(part: RunningPart): Promise<void> {
  if (part.child.exitCode !== null || part.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => part.child.kill('SIGKILL'), 5000);
    part.child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    part.child.kill('SIGTERM');
  });
}

/** IdP, local service (the workstation), middleware and the demo app: four processes. */
export async function startWorld(config: DemoConfig): Promise<World> {
  const started: RunningPart[] = [];
  const stop = async () => {
    for (const part of [...started].reverse()) await stopPart(part);
  };
  try {
    const workstationId = DEFAULT_WORKSTATION_ID;
    const deviceId = DEFAULT_DEVICE_ID;
    const idp = await startPart('idp', {
      host: HOST,
      port: config.idpPort,
      realm: config.realm,
      clients: [{ clientId: config.clientId, clientSecret: config.clientSecret }],
    });
    started.push(idp);
    const local = await startPart('local-service', {
      host: HOST,
      port: config.localServicePort,
      workstationId,
      devices: [{ deviceId }],
      captureDelayMs: config.captureDelayMs,
    });
    started.push(local);
    const middleware = await startPart('middleware', {
      host: HOST,
      port: config.middlewarePort,
      issuer: idp.info.issuer!,
      jwksUri: idp.info.jwksUri!,
      audience: idp.info.audience!,
      workstations: { [workstationId]: local.info.url! },
    });
    started.push(middleware);
    const app = await startPart('app', {
      host: HOST,
      port: config.demoPort,
      issuerUrl: idp.info.baseUrl!,
      realm: idp.info.realm!,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      integratorId: config.clientId,
      middlewareUrl: middleware.info.url!,
      localServiceUrl: local.info.url!,
      kiosk: { workstationId, deviceId },
      user: { username: config.username, password: config.password },
      // Only the printed default is shown; a password from the environment never is (demo/main.ts).
      showCredentials: config.defaulted.has('password'),
      ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
    });
    started.push(app);
    return {
      idp: { baseUrl: idp.info.baseUrl!, realm: idp.info.realm!, tokenEndpoint: idp.info.tokenEndpoint! },
      middlewareUrl: middleware.info.url!,
      localServiceUrl: local.info.url!,
      workstationId,
      deviceId,
      appUrl: app.info.url!,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
