/**
 * One part of the simulated world (simulator/src) or the demo app as a process of its own (`npm start` starts one
 * per part): `node --import tsx demo/part.ts <idp|local-service|middleware|app>`, configured by the JSON
 * in the environment variable BIOID_PART (environment, not argv: the demo client secret must not show in
 * process listings). Prints one line `PART_READY <json>` with its address when it listens, and closes on
 * SIGINT/SIGTERM or when its supervisor goes away (the IPC channel closes), so no part is left orphaned.
 */
import type { DemoServerOptions } from './server.js';
import type { StartIdpOptions } from '../simulator/src/idp.js';
import type { LocalServiceOptions } from '../simulator/src/local-service.js';
import type { MiddlewareOptions } from '../simulator/src/middleware.js';

export interface PartConfigs {
  idp: StartIdpOptions;
  'local-service': LocalServiceOptions;
  middleware: MiddlewareOptions;
  app: DemoServerOptions;
}
export type PartName = keyof PartConfigs;

/** Each part loads only its own code (the IdP's oidc-provider stays out of the other processes). */
async function start(name: PartName, config: unknown): Promise<{ info: Record<string, unknown>; close(): Promise<void> }> {
  switch (name) {
    case 'idp': {
      const { startIdp } = await import('../simulator/src/idp.js');
      const idp = await startIdp(config as StartIdpOptions);
      const { baseUrl, realm, issuer, tokenEndpoint, jwksUri, audience } = idp;
      return { info: { url: baseUrl, baseUrl, realm, issuer, tokenEndpoint, jwksUri, audience }, close: () => idp.close() };
    }
    case 'local-service': {
      const { startLocalService } = await import('../simulator/src/local-service.js');
      const service = await startLocalService(config as LocalServiceOptions);
      return { info: { url: service.url }, close: () => service.close() };
    }
    case 'middleware': {
      const { startMiddleware } = await import('../simulator/src/middleware.js');
      const middleware = await startMiddleware(config as MiddlewareOptions);
      return { info: { url: middleware.url }, close: () => middleware.close() };
    }
    case 'app': {
      const { startDemoServer } = await import('./server.js');
      const app = await startDemoServer(config as DemoServerOptions);
      return { info: { url: app.url }, close: () => app.close() };
    }
    default:
      throw new Error(`Unknown part "${String(name)}"; one of idp, local-service, middleware, app.`);
  }
}

async function main(): Promise<void> {
  const name = process.argv[2] as PartName;
  const config: unknown = JSON.parse(process.env.BIOID_PART ?? '{}');
  delete process.env.BIOID_PART; // not inherited by anything this part might start
  const part = await start(name, config);
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    part.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
  console.log(`PART_READY ${JSON.stringify(part.info)}`);
}

main().catch((error: unknown) => {
  console.error(`demo part "${process.argv[2]}" failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
