// A server of the broker section, in its own process so the load generator (autocannon, in the bench
// process) does not share its event loop. `broker`: the reference broker (createTokenBroker through the
// node:http adapter) in front of the real IdP of simulator/src/idp.ts. `bare`: a plain node:http handler that
// answers the same JSON with the same headers. Prints `{ "port": N }` once listening; exits when stdin ends.
import { createServer } from 'node:http';

const mode = process.argv[2];
let handler;
let idp;
if (mode === 'broker') {
  const { startIdp } = await import('../simulator/src/idp.ts');
  const { createTokenBroker, toNodeHandler } = await import('../src/broker/index.ts');
  idp = await startIdp({ clients: [{ clientId: 'bench', clientSecret: 'bench-secret' }], port: 0 });
  handler = toNodeHandler(
    createTokenBroker({
      issuerUrl: idp.baseUrl,
      realm: idp.realm,
      clientId: 'bench',
      clientSecret: 'bench-secret',
      authorize: () => true,
    }),
  );
} else if (mode === 'bare') {
  const body = process.env.BENCH_BODY ?? '{}';
  handler = (_req, res) => {
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(body);
  };
} else {
  throw new Error('usage: broker-server.mjs broker|bare');
}

const server = createServer(handler);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
const stop = async () => {
  server.closeAllConnections();
  server.close();
  await idp?.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
