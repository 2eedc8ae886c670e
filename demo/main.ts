/**
 * `npm start` (through scripts/start.mjs): the simulator plus the demo app, all on 127.0.0.1.
 * Prints the URLs and the demo credentials; Ctrl-C or SIGTERM stops every server.
 */
import { closeOnSignals, readConfig, USAGE } from './config.js';
import { startDemoServer } from './server.js';
import { startSimulator } from './sim/simulator.js';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(`npm start -- [options]\n${USAGE}`);
    return;
  }
  const config = readConfig(process.argv.slice(2), process.env);
  const sim = await startSimulator({
    idpPort: config.idpPort,
    middlewarePort: config.middlewarePort,
    localServicePort: config.localServicePort,
    realm: config.realm,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    captureDelayMs: config.captureDelayMs,
  });
  let demo;
  try {
    demo = await startDemoServer({
      port: config.demoPort,
      issuerUrl: sim.idp.baseUrl,
      realm: sim.idp.realm,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      integratorId: config.clientId,
      middlewareUrl: sim.middleware.url,
      localServiceUrl: sim.localService.url,
      kiosk: { workstationId: sim.workstationId, deviceId: sim.deviceId },
      user: { username: config.username, password: config.password },
    });
  } catch (error) {
    await sim.close();
    throw error;
  }
  const running = demo;
  closeOnSignals(async () => {
    await running.close();
    await sim.close();
  });
  // Only the printed demo defaults are shown; a secret or password from the environment never is.
  const secret = config.defaulted.has('clientSecret') ? `"${config.clientSecret}" (demo default; set BIOID_CLIENT_SECRET)` : '(from BIOID_CLIENT_SECRET, not shown)';
  const password = config.defaulted.has('password') ? `"${config.password}"` : '(from BIOID_DEMO_PASSWORD, not shown)';
  console.log(`
bioid-sdk demo is running.

  Demo app:               ${running.url}/
    sign in with          user "${config.username}", password ${password}
  Identity provider:      ${sim.idp.baseUrl}  (realm ${sim.idp.realm}, token endpoint ${sim.idp.tokenEndpoint})
    integrator client     id "${config.clientId}", secret ${secret}
  Simulated middleware:   ${sim.middleware.url}
  Local hardware service: ${sim.localService.url}  (workstation ${sim.workstationId}, reader ${sim.deviceId})

Press Ctrl-C to stop.
DEMO_READY ${running.url}/`);
}

main().catch((error: unknown) => {
  const text = error instanceof Error ? error.message : String(error);
  console.error(`bioid-sdk demo failed to start: ${text}`);
  if ((error as { code?: string }).code === 'EADDRINUSE') {
    console.error('A port is taken; set other ports (npm start -- --help).');
  }
  process.exit(1);
});
