#!/usr/bin/env node
/**
 * `bioid-simulator`: the operator's side (a real OpenID provider on the Keycloak-style path, the simulated
 * middleware that checks every JWT, a workstation with a simulated reader behind its local hardware
 * service) and a development token broker standing in for the integrator's backend, in one process on
 * 127.0.0.1. Prints what to paste into a page, then one machine-readable line
 * `SIMULATOR_READY {json}` for scripts and tests. Ctrl-C or SIGTERM closes every server and exits 0.
 */
import { readFileSync } from 'node:fs';
import { closeOnSignals, readSimulatorConfig, SIMULATOR_SETTINGS, usage, UsageError, type SimulatorConfig } from './config.js';
import type { RunningDevBroker } from './dev-broker.js';
import type { RunningSimulator } from './simulator.js';

const HOST = '127.0.0.1';
// The same relative path from simulator/src (run from source) and simulator/dist (the installed bin).
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const HELP = `bioid-simulator ${version}: a stand-in for the biometrics middleware, its identity provider, a
workstation with a fingerprint reader, and your backend's token broker, for developing a page with
bioid-sdk without hardware or accounts. Everything listens on ${HOST} only.

Usage: bioid-simulator [options]

${usage(SIMULATOR_SETTINGS)}

It prints the <script> tag and the attributes to paste (middleware-url, token-endpoint, integrator-id,
local-service-url). Docs: node_modules/bioid-sdk/docs/simulator.md (the bioid-sdk package ships them).`;

export interface Ready {
  middlewareUrl: string;
  tokenEndpoint: string;
  signInUrl: string;
  integratorId: string;
  localServiceUrl: string;
  issuerUrl: string;
  realm: string;
  tokenUrl: string;
  workstationId: string;
  deviceId: string;
  enrolled: string[];
}

function pasteText(config: SimulatorConfig, ready: Ready, finger: string | null): string {
  const secret = config.defaulted.has('clientSecret') ? config.clientSecret : '<your BIOID_CLIENT_SECRET>';
  const subject = ready.enrolled[0] ?? 'alice';
  const enrolled = ready.enrolled.length
    ? `${ready.enrolled.join(', ')} (with ${finger ?? 'the finger on the sensor'}, the finger now on the sensor)`
    : 'nobody (enroll first: <bio-enroll> with the same attributes)';
  return `
bioid-simulator ${version} is running.

1. Serve your page from http://${HOST}:<any port> (same site as the broker, so the browser sends its
   cookie), with bioid-elements.js from node_modules/bioid-sdk/dist/bioid-elements.js, and paste:

<script src="/bioid-elements.js"></script>
<bio-verify middleware-url="${ready.middlewareUrl}"
            token-endpoint="${ready.tokenEndpoint}"
            integrator-id="${ready.integratorId}"
            local-service-url="${ready.localServiceUrl}"
            subject-id="${subject}"></bio-verify>

2. Sign in to the development broker once in that browser (sets its session cookie; ?return_to=<your page>
   comes back; login-url="${ready.signInUrl}" on the tag shows that link when the session is missing):
   ${ready.signInUrl}

  middleware-url      ${ready.middlewareUrl}   simulated middleware: checks every token against the IdP
  token-endpoint      ${ready.tokenEndpoint}   development broker: bioid-sdk/broker behind /signin
  integrator-id       ${ready.integratorId}
  local-service-url   ${ready.localServiceUrl}   local hardware service (workstation ${ready.workstationId}, reader ${ready.deviceId})
  enrolled            ${enrolled}

Your own backend instead (bioid-sdk/broker's brokerOptionsFromEnv, and BioID on your server):
  BIOID_AUTH_URL=${ready.issuerUrl} BIOID_REALM=${ready.realm} BIOID_CLIENT_ID=${ready.integratorId}
  BIOID_CLIENT_SECRET=${secret} BIOID_INTEGRATOR_ID=${ready.integratorId} BIOID_MIDDLEWARE_URL=${ready.middlewareUrl}
  (the IdP's token endpoint: ${ready.tokenUrl})
The simulated reader: POST ${ready.localServiceUrl}/sim/finger {"finger":"finger-b"} (finger-a to finger-d, null: none),
  /sim/device {"connected":false}, /sim/workstation {"online":false}

Ctrl-C stops it.`;
}

/**
 * oidc-provider warns at import on Node 20 ("Unsupported runtime"), where the simulator works
 * (docs/simulator.md says so once); a newcomer would take the warning for an error, so that one line is
 * dropped. Every other warning passes.
 */
async function withoutRuntimeWarning<T>(load: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('oidc-provider WARNING: Unsupported runtime')) warn(...args);
  };
  try {
    return await load();
  } finally {
    console.warn = warn;
  }
}

async function main(): Promise<void> {
  const config = readSimulatorConfig(process.argv.slice(2), process.env);
  if (config.help) {
    console.log(HELP);
    return;
  }
  // Loaded only to run: `--help` and a wrong option answer without starting oidc-provider (whose import
  // alone warns on Node 20).
  const [{ startSimulator }, { startDevBroker }, { enrollSubjects }] = await withoutRuntimeWarning(() =>
    Promise.all([import('./simulator.js'), import('./dev-broker.js'), import('./seed.js')]),
  );
  let sim: RunningSimulator | undefined;
  let broker: RunningDevBroker | undefined;
  const stop = async () => {
    await broker?.close();
    await sim?.close();
  };
  closeOnSignals(stop);
  try {
    sim = await startSimulator({
      host: HOST,
      idpPort: config.idpPort,
      middlewarePort: config.middlewarePort,
      localServicePort: config.localServicePort,
      realm: config.realm,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      captureDelayMs: config.captureDelayMs,
    });
    broker = await startDevBroker({
      host: HOST,
      port: config.brokerPort,
      issuerUrl: sim.idp.baseUrl,
      realm: sim.idp.realm,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      middlewareUrl: sim.middleware.url,
    });
    await enrollSubjects(config.enroll, {
      issuerUrl: sim.idp.baseUrl,
      realm: sim.idp.realm,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      middlewareUrl: sim.middleware.url,
      localServiceUrl: sim.localService.url,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const ready: Ready = {
    middlewareUrl: sim.middleware.url,
    tokenEndpoint: broker.tokenEndpoint,
    signInUrl: broker.signInUrl,
    integratorId: config.clientId,
    localServiceUrl: sim.localService.url,
    issuerUrl: sim.idp.baseUrl,
    realm: sim.idp.realm,
    tokenUrl: sim.idp.tokenEndpoint,
    workstationId: sim.workstationId,
    deviceId: sim.deviceId,
    enrolled: config.enroll,
  };
  console.log(pasteText(config, ready, sim.localService.workstation.finger?.id ?? null));
  console.log(`SIMULATOR_READY ${JSON.stringify(ready)}`);
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`bioid-simulator: ${error.message}`);
    process.exit(2);
  }
  console.error(`bioid-simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  if ((error as { code?: string }).code === 'EADDRINUSE') {
    console.error('A port is taken: choose others (bioid-simulator --help), or 0 for any free port.');
  }
  process.exit(1);
});
