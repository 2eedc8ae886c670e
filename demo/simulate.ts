/**
 * `npm run simulate`: the simulator without the demo pages, for integrators developing their own page:
 * a real IdP, the simulated middleware and the simulated workstation's local hardware service, each a
 * process of its own.
 */
import { closeOnSignals, readConfig, USAGE } from './config.js';
import { startWorld } from './processes.js';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(`npm run simulate -- [options]\n${USAGE}`);
    return;
  }
  const config = readConfig(process.argv.slice(2), process.env);
  const world = await startWorld(config, false);
  closeOnSignals(() => world.stop());
  const secret = config.defaulted.has('clientSecret') ? `"${config.clientSecret}" (demo default)` : '(from BIOID_CLIENT_SECRET, not shown)';
  console.log(`
bioid-sdk simulator is running (one process per part).

  Identity provider:      ${world.idp.baseUrl}
    issuerUrl / realm     ${world.idp.baseUrl} / ${world.idp.realm}
    token endpoint        ${world.idp.tokenEndpoint}
    integrator client     id "${config.clientId}", secret ${secret}
  Simulated middleware:   ${world.middlewareUrl}   (integratorId "${config.clientId}")
  Local hardware service: ${world.localServiceUrl}   (workstation ${world.workstationId}, reader ${world.deviceId})
  Simulator controls:     POST ${world.localServiceUrl}/sim/finger {"finger":"finger-a"|"finger-b"|"finger-c"|"finger-d"|null}
                          POST ${world.localServiceUrl}/sim/device {"connected":false}
                          POST ${world.localServiceUrl}/sim/workstation {"online":false}

Press Ctrl-C to stop.
SIMULATOR_READY ${world.middlewareUrl}`);
}

main().catch((error: unknown) => {
  console.error(`bioid-sdk simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
