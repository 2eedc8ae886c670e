// A server of the broker section, in its own process so the load generator (autocannon, in the bench
// process) does not share its event loop. Modes:
//  `broker`: the reference broker through toNodeHandler (the Express / node:http adapter), in front of
//            the real IdP of simulator/src/idp.ts;
//  `sidecar`: `bioid-broker serve` (broker/src/serve.ts) with logging at its default level and metrics on,
//            its gate answering at once;
//  `forward-auth`: `bioid-broker serve` itself, its gate asking a session check (BENCH_SESSION_CHECK_URL);
//  `session-check`: a bare node:http session check answering 204 to the bench's cookie, 401 to any other (the
//                   integrator's app, as fast as it gets);
//  `bare`: a plain node:http handler that answers the same JSON with the same headers.
//  `idp`: the real IdP of simulator/src/idp.ts alone, for the others (BENCH_IDP="<base URL> <realm>").
// Prints `{ "port": N }` once listening; then answers each `cpu` line on stdin with `{ "cpuUs": N }`, the
// CPU time this process has used (user + system, µs), so the bench can tell a saturated server from one
// the load generator could not keep busy; exits when stdin ends.
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

const mode = process.argv[2];
const CLIENT = { clientId: 'bench', clientSecret: 'bench-secret' };
let handler;
let idp;
let running;

/**
 * The IdP: BENCH_IDP ("<base URL> <realm>", an `idp` child) when given, else the real IdP of
 * simulator/src/idp.ts in this process. The servers measured take theirs from another process: oidc-provider
 * turns on an AsyncLocalStorage at its first request, and with it a hook on every promise of the process
 * (about 3 µs more per cached token request, measured with --cpu-prof), which a production IdP never adds.
 */
async function startBenchIdp() {
  if (process.env.BENCH_IDP) {
    const [issuerUrl, realm] = process.env.BENCH_IDP.split(' ');
    return { issuerUrl, realm, ...CLIENT };
  }
  const { startIdp } = await import('../simulator/src/idp.ts');
  idp = await startIdp({ clients: [CLIENT], port: 0 });
  return { issuerUrl: idp.baseUrl, realm: idp.realm, ...CLIENT };
}

if (mode === 'idp') {
  const { startIdp } = await import('../simulator/src/idp.ts');
  idp = await startIdp({ clients: [CLIENT], port: 0 });
  process.stdout.write(`${JSON.stringify({ port: Number(new URL(idp.baseUrl).port), idp: `${idp.baseUrl} ${idp.realm}` })}\n`);
} else if (mode === 'broker') {
  const { createTokenBroker, toNodeHandler } = await import('../src/broker/index.ts');
  handler = toNodeHandler(createTokenBroker({ ...(await startBenchIdp()), authorize: () => true }));
} else if (mode === 'sidecar') {
  // bioid-broker serve itself, logging at its default level (info: one line per request, to /dev/null
  // rather than a pipe nobody reads) and metrics on, with a gate that answers at once.
  const { openSync } = await import('node:fs');
  const { serve } = await import('../broker/src/serve.ts');
  const idpOptions = await startBenchIdp();
  running = await serve({
    env: {
      BIOID_SESSION_CHECK_URL: 'http://127.0.0.1:9/unused',
      BIOID_CLIENT_ID: CLIENT.clientId,
      BIOID_CLIENT_SECRET: CLIENT.clientSecret,
      BIOID_AUTH_URL: idpOptions.issuerUrl,
      BIOID_REALM: idpOptions.realm,
      BIOID_PORT: '0',
      BIOID_METRICS_PORT: '0',
    },
    logFd: openSync('/dev/null', 'w'),
    gate: { authorize: async () => true, tokenExchange: undefined },
  });
} else if (mode === 'forward-auth') {
  const { serve } = await import('../broker/src/serve.ts');
  const idpOptions = await startBenchIdp();
  running = await serve({
    env: {
      BIOID_SESSION_CHECK_URL: process.env.BENCH_SESSION_CHECK_URL,
      BIOID_CLIENT_ID: CLIENT.clientId,
      BIOID_CLIENT_SECRET: CLIENT.clientSecret,
      BIOID_AUTH_URL: idpOptions.issuerUrl,
      BIOID_REALM: idpOptions.realm,
      BIOID_PORT: '0',
    },
    write: () => {},
  });
} else if (mode === 'session-check') {
  // 204 to the bench's session cookie (bench/broker.mjs), 401 to any other: the sidecar's made-up cookie
  // must be refused before it trusts a "signed in" (docs/backends.md, "The probe").
  handler = (req, res) => res.writeHead(req.headers.cookie === 'session=bench' ? 204 : 401, { 'Cache-Control': 'no-store' }).end();
} else if (mode === 'bare') {
  const body = process.env.BENCH_BODY ?? '{}';
  handler = (_req, res) => {
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      Vary: 'Origin',
    });
    res.end(body);
  };
} else {
  throw new Error('usage: broker-server.mjs broker|sidecar|forward-auth|session-check|bare');
}

const server = mode === 'idp' ? undefined : (running?.server ?? createServer(handler));
const announce = () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
if (running) announce();
else server?.listen(0, '127.0.0.1', announce);
const stop = async () => {
  server?.closeAllConnections();
  server?.close();
  await idp?.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpuUs: user + system })}\n`);
});
process.on('SIGTERM', stop);
