/**
 * `npm run simulate`: the simulator without the demo pages, for integrators developing their own page:
 * a real IdP, the simulated middleware and the simulated workstation's local hardware service.
 */
import { closeOnSignals, readConfig, USAGE } from './config.js';
import { startSimulator } from './sim/simulator.js';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(`npm run simulate -- [options]\n${USAGE}`);
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
  closeOnSignals(() => sim.close());
  const secret = config.defaulted.has('clientSecret') ? `"${config.clientSecret}" (demo default)` : '(from BIOID_CLIENT_SECRET, not shown)';
  console.log(`
bioid-sdk simulator is running.

  Identity provider:      ${sim.idp.baseUrl}
    issuerUrl / realm     ${sim.idp.baseUrl} / ${sim.idp.realm}
    token endpoint        ${sim.idp.tokenEndpoint}
    integrator client     id "${config.clientId}", secret ${secret}
  Simulated middleware:   ${sim.middleware.url}   (integratorId "${config.clientId}")
  Local hardware service: ${sim.localService.url}   (workstation ${sim.workstationId}, reader ${sim.deviceId})
  Simulator controls:     POST ${sim.localService.url}/sim/finger {"finger":"finger-a"|"finger-b"|"finger-c"|"finger-d"|null}
                          POST ${sim.localService.url}/sim/device {"connected":false}
                          POST ${sim.localService.url}/sim/workstation {"online":false}

Press Ctrl-C to stop.
SIMULATOR_READY ${sim.middleware.url}`);
}

main().catch((error: unknown) => {
  console.error(`bioid-sdk simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
