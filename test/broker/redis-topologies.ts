/**
 * Throwaway Redis topologies on 127.0.0.1 for the store's topology tests: a TLS server (certificates made by
 * `openssl` in a temporary folder), a master with a replica watched by three sentinels, and a cluster of
 * masters. Debian's redis-server (scripts/browsers.mjs provisions it) runs every role: `--sentinel` makes
 * it a sentinel, `--cluster-enabled yes` a cluster node. Each process is started here, waited for by its
 * log line (never a fixed pause), and killed by `close`, which removes the folder too.
 *
 * Sentinels and cluster nodes tell their clients each other's addresses, so they need real ports: a port is
 * taken from the system (listen on 0, close), which another process could take first; startup then fails
 * with a clear error rather than reaching the wrong server.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { createClient } from 'redis';
import { redisServerPath } from '../../scripts/browsers.mjs';

const run = promisify(execFile);

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisProcess {
  port: number;
  /** SIGKILL, as a crashed host would go: no goodbye to replicas, sentinels or clients. */
  kill(): Promise<void>;
  /** The same server started again (after `kill`), on the same port with the same arguments and files. */
  restart(): Promise<RedisProcess>;
}

/** A temporary folder whose processes `close` kills before removing it. */
export class RedisFolder {
  readonly dir = mkdtempSync(join(tmpdir(), 'bioid-redis-topology-'));
  private readonly children = new Set<ChildProcess>();

  /**
   * redis-server with `args` (or a config file's path first), resolved once it logs `ready` (a line
   * matching it); its own errors fail the start.
   */
  async start(port: number, args: readonly string[], ready: RegExp = /Ready to accept connections/): Promise<RedisProcess> {
    const child = spawn(redisServerPath(), [...args], { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.add(child);
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server on port ${port} did not start within 10 s:\n${log}`)), 10_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server on port ${port} exited (code ${code}):\n${log}`));
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        log += `${line}\n`;
        if (ready.test(line)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const kill = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    };
    return { port, kill, restart: () => this.start(port, args, ready) };
  }

  file(name: string, text: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    return path;
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.children].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** What every test server shares: loopback only, nothing saved. */
const BASE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];

// ---- TLS ----

export interface Certificates {
  /** The private CA's certificate, and another CA's (which signed nothing here). */
  ca: string;
  otherCa: string;
  /** The server's certificate and key, for 127.0.0.1 (an IP SAN), signed by `ca`. */
  serverCert: string;
  serverKey: string;
  /** A client certificate and key signed by `ca`, for mutual TLS. */
  clientCert: string;
  clientKey: string;
  /** A client certificate and key signed by `otherCa`: one a mutual-TLS server refuses. */
  strangerCert: string;
  strangerKey: string;
}

/** PEM files made by openssl in `folder` (EC P-256: quick to make). */
export async function makeCertificates(folder: RedisFolder): Promise<Certificates> {
  const path = (name: string) => join(folder.dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: folder.dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string) =>
    openssl('req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`);
  await Promise.all([ca('test-ca'), ca('other-ca')]);
  const leaf = async (name: string, serial: string, extensions: string, signer = 'test-ca') => {
    await openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    const ext = folder.file(`${name}.ext`, extensions);
    await openssl(
      ...['x509', '-req', '-in', `${name}.csr`, '-CA', `${signer}.pem`, '-CAkey', `${signer}.key`, '-set_serial', serial],
      ...['-out', `${name}.pem`, '-days', '2', '-extfile', ext],
    );
  };
  await Promise.all([
    leaf('server', '1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n'),
    leaf('client', '2', 'extendedKeyUsage=clientAuth\n'),
    leaf('stranger', '3', 'extendedKeyUsage=clientAuth\n', 'other-ca'),
  ]);
  return {
    ca: path('test-ca.pem'),
    otherCa: path('other-ca.pem'),
    serverCert: path('server.pem'),
    serverKey: path('server.key'),
    clientCert: path('client.pem'),
    clientKey: path('client.key'),
    strangerCert: path('stranger.pem'),
    strangerKey: path('stranger.key'),
  };
}

/** A server on a TLS port only; `mutual` makes it require a client certificate its CA signed. */
export async function startTlsRedis(folder: RedisFolder, certs: Certificates, mutual: boolean): Promise<RedisProcess> {
  const port = await freePort();
  return folder.start(port, [
    ...BASE,
    ...['--port', '0', '--tls-port', String(port)],
    ...['--tls-cert-file', certs.serverCert, '--tls-key-file', certs.serverKey, '--tls-ca-cert-file', certs.ca],
    ...['--tls-auth-clients', mutual ? 'yes' : 'no'],
  ]);
}

// ---- Sentinel ----

export interface SentinelSet {
  master: RedisProcess;
  replica: RedisProcess;
  sentinels: RedisProcess[];
  /** The master's name the sentinels watch. */
  name: string;
  /** The sentinels' URLs, comma-separated, as BIOID_TOKEN_STORE_SENTINEL_URLS takes them. */
  urls: string;
  /** Resolves once a sentinel names a master other than the first one (the failover is done). */
  failedOver(): Promise<void>;
}

/**
 * A master, its replica (in sync before the sentinels start) and three sentinels that know each other and
 * the replica. Redis's shortest useful timings: the master is down after 200 ms of silence, a failover may
 * be retried after 1 s.
 */
export async function startSentinels(folder: RedisFolder): Promise<SentinelSet> {
  const name = 'bioid-store';
  const [masterPort, replicaPort, ...sentinelPorts] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  // A replica's first sync waits 5 s by default for more replicas to share it; there is one.
  const master = await folder.start(masterPort, [...BASE, '--port', String(masterPort), '--repl-diskless-sync-delay', '0']);
  const replica = await folder.start(
    replicaPort,
    [...BASE, '--port', String(replicaPort), '--replicaof', '127.0.0.1', String(masterPort)],
    /MASTER <-> REPLICA sync: Finished with success/,
  );
  const ids = sentinelPorts.map((_, i) => String(i + 1).repeat(40));
  const sentinels = await Promise.all(
    sentinelPorts.map((port, i) =>
      folder.start(
        port,
        [
          folder.file(
            `sentinel-${port}.conf`,
            [
              `port ${port}`,
              'bind 127.0.0.1',
              `dir ${folder.dir}`,
              `sentinel myid ${ids[i]}`,
              `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
              `sentinel down-after-milliseconds ${name} 200`,
              `sentinel failover-timeout ${name} 1000`,
              // Told at start what hello messages (every 2 s) and INFO (every 10 s) would find later.
              `sentinel known-replica ${name} 127.0.0.1 ${replicaPort}`,
              ...sentinelPorts.flatMap((other, j) => (j === i ? [] : [`sentinel known-sentinel ${name} 127.0.0.1 ${other} ${ids[j]}`])),
            ].join('\n'),
          ),
          '--sentinel',
        ],
        /\+monitor master/,
      ),
    ),
  );
  const asks = sentinelPorts.map((port) => createClient({ socket: { host: '127.0.0.1', port } }));
  try {
    await Promise.all(asks.map((ask) => ask.connect()));
    // A failover needs the quorum (2) to know each other (hello messages, every 2 s) and the replica.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const known = await Promise.all(
        asks.map(async (ask) => {
          const others = (await ask.sendCommand(['SENTINEL', 'SENTINELS', name])) as unknown[];
          const replicas = (await ask.sendCommand(['SENTINEL', 'REPLICAS', name])) as unknown[];
          return others.length === 2 && replicas.length === 1;
        }),
      );
      if (known.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error('the sentinels did not find each other and the replica within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await Promise.all(asks.map((ask) => ask.close().catch(() => {})));
  }
  const failedOver = async () => {
    const ask = createClient({ socket: { host: '127.0.0.1', port: sentinelPorts[0]! } });
    await ask.connect();
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [, port] = (await ask.sendCommand(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name])) as string[];
        if (Number(port) !== masterPort) return;
        if (Date.now() > deadline) throw new Error('no failover within 20 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await ask.close().catch(() => {});
    }
  };
  return { master, replica, sentinels, name, urls: sentinelPorts.map((port) => `redis://127.0.0.1:${port}`).join(','), failedOver };
}

// ---- Cluster ----

export interface RedisCluster {
  masters: RedisProcess[];
  /** The seed nodes, comma-separated, as BIOID_TOKEN_STORE_CLUSTER_URLS takes them. */
  urls: string;
}

/**
 * `count` masters sharing the 16384 slots in equal ranges (what `redis-cli --cluster create` does, said
 * to each node directly). A slot range whose master is down leaves the others serving
 * (cluster-require-full-coverage no); a node is failed after 500 ms of silence.
 */
export async function startCluster(folder: RedisFolder, count = 3): Promise<RedisCluster> {
  const ports = await Promise.all(Array.from({ length: count * 2 }, () => freePort()));
  const masters = await Promise.all(
    Array.from({ length: count }, (_, i) => {
      const [port, bus] = [ports[2 * i]!, ports[2 * i + 1]!];
      return folder.start(port, [
        ...BASE,
        ...['--port', String(port), '--cluster-enabled', 'yes', '--cluster-port', String(bus)],
        ...['--cluster-config-file', join(folder.dir, `nodes-${port}.conf`), '--cluster-node-timeout', '500'],
        ...['--cluster-require-full-coverage', 'no'],
      ]);
    }),
  );
  const nodes = masters.map(({ port }) => createClient({ socket: { host: '127.0.0.1', port } }));
  try {
    await Promise.all(nodes.map((node) => node.connect()));
    const per = Math.ceil(16384 / count);
    await Promise.all(
      nodes.map((node, i) => node.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', String(i * per), String(Math.min(16383, (i + 1) * per - 1))])),
    );
    await Promise.all(
      masters
        .slice(1)
        .map((m, i) => nodes[0]!.sendCommand(['CLUSTER', 'MEET', '127.0.0.1', String(m.port), String(ports[2 * (i + 1) + 1])])),
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      const states = await Promise.all(nodes.map((node) => node.sendCommand(['CLUSTER', 'INFO'])));
      const formed = (info: string) =>
        /cluster_state:ok/.test(info) &&
        /cluster_slots_assigned:16384\b/.test(info) &&
        new RegExp(`cluster_known_nodes:${count}\\b`).test(info);
      if (states.every((info) => formed(String(info)))) {
        break;
      }
      if (Date.now() > deadline) throw new Error(`the cluster did not form within 10 s: ${String(states[0])}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await Promise.all(nodes.map((node) => node.close().catch(() => {})));
  }
  return { masters, urls: masters.map(({ port }) => `redis://127.0.0.1:${port}`).join(',') };
}
