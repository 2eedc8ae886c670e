/**
 * `npm start` (through scripts/start.mjs): the simulated world plus the demo app, each part a process
 * of its own on 127.0.0.1 (demo/processes.ts). Prints the URLs and the demo credentials; Ctrl-C or
 * SIGTERM stops every part.
 */
import { closeOnSignals, readConfig, USAGE } from './config.js';
import { startWorld } from './processes.js';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(`npm start -- [options]\n${USAGE}`);
    return;
  }
  const config = readConfig(process.argv.slice(2), process.env);
  const world = await startWorld(config);
  closeOnSignals(() => world.stop());
  // Only the printed demo defaults are shown; a secret or password from the environment never is.
  const secret = config.defaulted.has('clientSecret')
    ? `"${config.clientSecret}" (demo default; set BIOID_CLIENT_SECRET)`
    : '(from BIOID_CLIENT_SECRET, not shown)';
  const password = config.defaulted.has('password') ? `"${config.password}"` : '(from BIOID_DEMO_PASSWORD, not shown)';
  console.log(`
bioid-sdk demo is running (one process per part).

  Demo app:               ${world.appUrl}/
    sign in with          user "${config.username}", password ${password}
  Identity provider:      ${world.idp.baseUrl}  (realm ${world.idp.realm}, token endpoint ${world.idp.tokenEndpoint})
    integrator client     id "${config.clientId}", secret ${secret}
  Simulated middleware:   ${world.middlewareUrl}
  Local hardware service: ${world.localServiceUrl}  (workstation ${world.workstationId}, reader ${world.deviceId})

Press Ctrl-C to stop.
DEMO_READY ${world.appUrl}/`);
}

main().catch((error: unknown) => {
  const text = error instanceof Error ? error.message : String(error);
  console.error(`bioid-sdk demo failed to start: ${text}`);
  if ((error as { code?: string }).code === 'EADDRINUSE') {
    console.error('A port is taken; set other ports (npm start -- --help).');
  }
  process.exit(1);
});
