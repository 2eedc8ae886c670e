// Faults on real sockets (node:http on 127.0.0.1, port 0): what the in-memory network cannot fake.
import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BioID, BioIDError, createFingerprintReader } from '../../src/index.js';

type Behaviour = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
const behaviours: Record<string, Behaviour> = {
  '/reset': (req) => req.socket.destroy(),
  '/hang': () => {},
  '/slow-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"candidates": [');
  },
  '/short-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.end('{"candidates": [');
    res.socket?.destroy();
  },
  '/html-error': (_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
  },
  '/idp-slow': () => {},
};

let server: Server;
let base: string;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

before(async () => {
  process.on('unhandledRejection', onUnhandled);
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const key = Object.keys(behaviours).find((k) => path.startsWith(k));
    if (key) return behaviours[key]!(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  process.off('unhandledRejection', onUnhandled);
  assert.deepStrictEqual(unhandled, [], 'no unhandled rejections');
});

const PIN = { workstationId: 'w', deviceId: 'd' };
const readerAt = (path: string, timeoutMs = 300) =>
  createFingerprintReader({ ...PIN, getToken: 'token', middlewareUrl: `${base}${path}`, timeoutMs });
const code = (expected: string, message?: RegExp) => (e: unknown) =>
  e instanceof BioIDError && e.code === expected && (!message || message.test(e.message));

describe('middleware faults on real sockets', () => {
  it('a connection reset is a network error naming the URL', async () => {
    await rejectsWith(readerAt('/reset').search(), code('network', new RegExp(`Could not reach the middleware at ${base}/reset`)));
  });

  it('a hang past timeoutMs is a timeout', async () => {
    await rejectsWith(readerAt('/hang', 100).search(), code('timeout', /did not answer within 100 ms/));
  });

  it('a body that stops mid-way is bounded by timeoutMs too (headers arrived, body never ends)', async () => {
    await rejectsWith(readerAt('/slow-body', 150).search(), code('timeout'));
  });

  it('a body cut short by the server is a network error, not a JSON crash', async () => {
    await rejectsWith(
      readerAt('/short-body').search(),
      (e: unknown) => e instanceof BioIDError && ['network', 'bad-response'].includes(e.code),
    );
  });

  it('an HTML error page from a proxy is a middleware error that says so', async () => {
    await rejectsWith(readerAt('/html-error').search(), code('middleware', /HTTP 502: an HTML page/));
  });

  it('a local service that is not running is unreachable, with advice', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve)); // nothing listens there now
    const reader = createFingerprintReader({ getToken: 't', middlewareUrl: base, localServiceUrl: `http://127.0.0.1:${port}` });
    await rejectsWith(reader.target(), code('local-service-unreachable', /companion application/));
  });

  it('an identity provider slower than timeoutMs is a timeout, and the secret is not in the error', async () => {
    const bio = new BioID({
      middlewareUrl: base,
      integratorId: 'tenant',
      timeoutMs: 100,
      ...PIN,
      auth: { type: 'idpClientCredentials', clientId: 'c', clientSecret: 'very-secret-value', issuerUrl: `${base}/idp-slow`, realm: 'r' },
    });
    const error = await bio.reader.search().catch((e: unknown) => e);
    assert.ok(code('timeout', /identity provider/)(error), String(error));
    assert.ok(!String((error as Error).stack).includes('very-secret-value'));
  });
});
