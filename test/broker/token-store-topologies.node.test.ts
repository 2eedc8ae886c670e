/**
 * The shared token store on the Redis topologies operators run (docs/operations.md: "The store over TLS",
 * "The store on Sentinel", "The store on a Cluster"), each through two `bioid-broker serve` sidecars started
 * with that topology's variables alone, against real servers (test/broker/redis-topologies.ts) and the
 * simulator's identity provider in RFC 8693 mode: one exchange per user across the sidecars; a CA that did
 * not sign the store keeps them unready with a hint; a Sentinel failover and a Cluster master's death cost
 * no request, and sharing resumes by itself.
 */
import { assert } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { createClient } from 'redis';
import { startIdp, type RunningIdp } from '../../simulator/src/idp.js';
import { serve, type RunningBroker } from '../../broker/src/serve.js';
import { tokenStoreFromEnv } from '../../src/broker/index.js';
import { startSessionCheck } from './bin-support.js';
import {
  RedisFolder,
  makeCertificates,
  startCluster,
  startSentinels,
  startTlsRedis,
  type Certificates,
  type RedisCluster,
  type RedisProcess,
  type SentinelSet,
} from './redis-topologies.js';
import { CLIENT } from './support.js';

const KEY = randomBytes(32).toString('base64');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until `done()`, at most `ms`. */
async function until(done: () => boolean | Promise<boolean>, ms: number, why: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) assert.fail(why());
    await sleep(20);
  }
}

describe('shared token store on TLS, Sentinel and Cluster: bioid-broker serve with each topology’s variables alone', function () {
  // The servers start together in before(); each test's own waits are bounded below.
  this.timeout(30_000);
  let idp: RunningIdp;
  let folder: RedisFolder;
  let certs: Certificates;
  let tls: RedisProcess;
  let mutual: RedisProcess;
  let sentinels: SentinelSet;
  let cluster: RedisCluster;
  let sessions: Awaited<ReturnType<typeof startSessionCheck>>;
  /** The signed-in users and their subject tokens, as the session check answers them. */
  const users: string[] = [];
  const subjects = new Map<string, string>();
  let made = 0;

  before(async function () {
    this.timeout(60_000);
    folder = new RedisFolder();
    [idp, certs, sentinels, cluster] = await Promise.all([
      startIdp({ clients: [CLIENT] }),
      makeCertificates(folder),
      startSentinels(folder),
      startCluster(folder),
    ]);
    [tls, mutual] = await Promise.all([startTlsRedis(folder, certs, false), startTlsRedis(folder, certs, true)]);
    sessions = await startSessionCheck(users, subjects);
  });
  after(async () => {
    await sessions?.close();
    await folder?.close();
    await idp?.close();
  });

  async function newUsers(count: number): Promise<string[]> {
    const names = Array.from({ length: count }, () => `user-${(made += 1)}`);
    await Promise.all(names.map(async (name) => subjects.set(name, await idp.userToken(name))));
    users.push(...names);
    return names;
  }

  const ask = (sidecar: RunningBroker, user: string) => fetch(`${sidecar.url}/`, { headers: { 'X-CSRF': '1', Cookie: `sid=${user}` } });

  interface Group {
    sidecars: RunningBroker[];
    lines: string[];
    close(): Promise<void>;
  }

  /** `count` sidecars on `store`, each with its metrics listener; `readyWaitMs` is STORE_READY_WAIT_MS. */
  async function start(store: Record<string, string>, count = 2, readyWaitMs = 60_000): Promise<Group> {
    const lines: string[] = [];
    const env = {
      BIOID_CLIENT_ID: CLIENT.clientId,
      BIOID_CLIENT_SECRET: CLIENT.clientSecret,
      BIOID_AUTH_URL: idp.baseUrl,
      BIOID_REALM: idp.realm,
      BIOID_SESSION_CHECK_URL: `${sessions.url}/session`,
      BIOID_TOKEN_EXCHANGE: 'true',
      BIOID_PORT: '0',
      BIOID_METRICS_PORT: '0',
      BIOID_TOKEN_STORE_KEY: KEY,
      // Counted (one exchange per user): a busy 2-core machine must not make a sidecar give up on the
      // store or on the other's lock. Still far below a failover's silence, which the metrics then show.
      BIOID_TOKEN_STORE_TIMEOUT_MS: '1000',
      BIOID_TOKEN_STORE_LOCK_WAIT_MS: '10000',
      ...store,
    };
    const sidecars = await Promise.all(
      Array.from({ length: count }, () => serve({ env, write: (line) => void lines.push(line), storeReadyWaitMs: readyWaitMs })),
    );
    return { sidecars, lines, close: async () => void (await Promise.all(sidecars.map((sidecar) => sidecar.close()))) };
  }

  /** Every sidecar's /readyz turned 200: the store answered each (readyWaitMs is far longer than this). */
  async function ready(group: Group): Promise<void> {
    for (const sidecar of group.sidecars) {
      await until(
        async () => (await fetch(`${sidecar.url}/readyz`)).status === 200,
        10_000,
        () => `/readyz stayed 503:\n${group.lines.join('\n')}`,
      );
    }
  }

  /** `count` new users, each asked of every sidecar at once: one token per user, one exchange per user. */
  async function sharesOneExchangePerUser(group: Group, count: number): Promise<void> {
    const names = await newUsers(count);
    const before = idp.tokenRequests;
    const tokens = await Promise.all(
      names.map(async (name) => {
        const answers = await Promise.all(group.sidecars.map((sidecar) => ask(sidecar, name)));
        assert.deepStrictEqual(
          answers.map((answer) => answer.status),
          group.sidecars.map(() => 200),
        );
        return new Set(await Promise.all(answers.map(async (answer) => ((await answer.json()) as { access_token: string }).access_token)));
      }),
    );
    assert.deepStrictEqual(
      tokens.map((set) => set.size),
      names.map(() => 1),
      'each user has one token across the sidecars',
    );
    assert.strictEqual(idp.tokenRequests - before, count, 'one exchange per user');
  }

  /** bioid_broker_store_errors_total, all operations, of the sidecars together. */
  async function storeErrors(group: Group): Promise<number> {
    let total = 0;
    for (const sidecar of group.sidecars) {
      const text = await (await fetch(sidecar.metricsUrl!)).text();
      for (const match of text.matchAll(/^bioid_broker_store_errors_total\{[^}]*\} (\d+)/gm)) total += Number(match[1]);
    }
    return total;
  }

  /**
   * Fresh users asked of every sidecar at once, round after round, until `stop()`: each round reaches the
   * store (a lock, a read, a write), so a store that is away is met by every round. Counts the answers.
   */
  function load(group: Group) {
    let running = true;
    const counts = { answered: 0, failed: [] as number[] };
    const done = (async () => {
      while (running) {
        const [name] = await newUsers(1);
        const answers = await Promise.all(group.sidecars.map((sidecar) => ask(sidecar, name!)));
        for (const answer of answers) {
          if (answer.status === 200) counts.answered += 1;
          else counts.failed.push(answer.status);
          await answer.arrayBuffer();
        }
      }
    })();
    return {
      counts,
      stop: async () => {
        running = false;
        await done;
      },
    };
  }

  /** One sidecar that cannot use the store: its store-connection-error line, and /readyz once the wait is over. */
  async function refused(store: Record<string, string>) {
    const readyWaitMs = 300;
    const started = Date.now();
    const group = await start(store, 1, readyWaitMs);
    try {
      // The line with the hint: a reset may come before the TLS alert that says why.
      const errorLine = () =>
        group.lines
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((line) => line.event === 'store-connection-error' && line.fix);
      await until(
        () => errorLine() !== undefined,
        10_000,
        () => `no store-connection-error line:\n${group.lines.join('\n')}`,
      );
      // Past STORE_READY_WAIT_MS (shortened here), a store that did not answer stops keeping an instance
      // out, unless the fault is this instance's configuration: the behaviour under test.
      await sleep(Math.max(0, readyWaitMs + 50 - (Date.now() - started)));
      const readiness = await fetch(`${group.sidecars[0]!.url}/readyz`);
      return { status: readiness.status, body: await readiness.text(), line: errorLine()!, lines: group.lines };
    } finally {
      await group.close();
    }
  }

  /** The parts of PEM files that no line may hold: their base64 bodies, line by line. */
  const pemLines = (...paths: string[]) =>
    paths.flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.length > 20 && !line.startsWith('-----')),
    );

  it('rediss:// with BIOID_TOKEN_STORE_CA_FILE (a private CA): the sidecars turn ready and share, one exchange per user', async () => {
    const group = await start({ BIOID_TOKEN_STORE_URL: `rediss://127.0.0.1:${tls.port}`, BIOID_TOKEN_STORE_CA_FILE: certs.ca });
    try {
      await ready(group);
      await sharesOneExchangePerUser(group, 5);
    } finally {
      await group.close();
    }
  });

  it('mutual TLS with BIOID_TOKEN_STORE_CERT_FILE and BIOID_TOKEN_STORE_KEY_FILE: the sidecars turn ready and share, one exchange per user', async () => {
    const url = `rediss://127.0.0.1:${mutual.port}`;
    const group = await start({
      BIOID_TOKEN_STORE_URL: url,
      BIOID_TOKEN_STORE_CA_FILE: certs.ca,
      BIOID_TOKEN_STORE_CERT_FILE: certs.clientCert,
      BIOID_TOKEN_STORE_KEY_FILE: certs.clientKey,
    });
    try {
      await ready(group);
      await sharesOneExchangePerUser(group, 5);
    } finally {
      await group.close();
    }
  });

  it('a CA that did not sign the store’s certificate: /readyz stays 503 with a hint naming BIOID_TOKEN_STORE_CA_FILE; no line holds a certificate or key', async () => {
    const wrong = await refused({ BIOID_TOKEN_STORE_URL: `rediss://127.0.0.1:${tls.port}`, BIOID_TOKEN_STORE_CA_FILE: certs.otherCa });
    assert.strictEqual(wrong.status, 503);
    assert.deepStrictEqual(JSON.parse(wrong.body), { status: 'unready', reason: 'store-not-answered' });
    assert.match(String(wrong.line.error), /not signed by a CA this instance trusts/);
    assert.strictEqual(wrong.line.fix, "set BIOID_TOKEN_STORE_CA_FILE to the PEM file of the CA that signed the store's certificate");
    const text = wrong.lines.join('\n');
    for (const part of pemLines(certs.otherCa, certs.ca, certs.serverKey, certs.clientKey)) assert.notInclude(text, part);
  });

  it('mutual TLS without a client certificate, or with one the store’s CA did not sign: /readyz 503 with a hint naming BIOID_TOKEN_STORE_CERT_FILE and _KEY_FILE, no line holds a key, and the reset that follows the refusal does not end the process', async () => {
    const url = `rediss://127.0.0.1:${mutual.port}`;
    // The store's sockets to this server, as tls.connect (which node-redis calls) makes them.
    const tls = createRequire(import.meta.url)('node:tls') as { connect: (...args: unknown[]) => Socket };
    const connect = tls.connect;
    const sockets: Socket[] = [];
    tls.connect = function (this: unknown, ...args: unknown[]) {
      const socket = connect.apply(this, args);
      if ((args[0] as { port?: number }).port === mutual.port) sockets.push(socket);
      return socket;
    };
    const [none, stranger] = await Promise.all([
      refused({ BIOID_TOKEN_STORE_URL: url, BIOID_TOKEN_STORE_CA_FILE: certs.ca }),
      refused({
        BIOID_TOKEN_STORE_URL: url,
        BIOID_TOKEN_STORE_CA_FILE: certs.ca,
        BIOID_TOKEN_STORE_CERT_FILE: certs.strangerCert,
        BIOID_TOKEN_STORE_KEY_FILE: certs.strangerKey,
      }),
    ]).finally(() => (tls.connect = connect));
    // After its alert the server resets the connection: node emits that as a second 'error' on the socket,
    // as it does at random on a real one. An error nobody listens for would end the sidecar's process.
    assert.isNotEmpty(sockets);
    for (const socket of sockets) socket.emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    for (const wrong of [none, stranger]) {
      assert.strictEqual(wrong.status, 503);
      assert.deepStrictEqual(JSON.parse(wrong.body), { status: 'unready', reason: 'store-not-answered' });
      assert.match(String(wrong.line.error), /the store refused this instance's client certificate/);
      assert.strictEqual(
        wrong.line.fix,
        'set BIOID_TOKEN_STORE_CERT_FILE and BIOID_TOKEN_STORE_KEY_FILE to a client certificate signed by a CA the store trusts, and its key',
      );
      const text = wrong.lines.join('\n');
      for (const part of pemLines(certs.strangerKey, certs.strangerCert, certs.clientKey, certs.serverKey)) assert.notInclude(text, part);
    }
  });

  it('Sentinel: one master, one replica, three sentinels; the master killed mid-run costs no request, the store errors show the window, and sharing resumes by itself', async () => {
    const group = await start({
      BIOID_TOKEN_STORE_SENTINEL_URLS: sentinels.urls,
      BIOID_TOKEN_STORE_SENTINEL_MASTER: sentinels.name,
      // The default bound: while the master is away, node-redis holds the commands for the new one, and a
      // bound stretched for a busy process (up to ten times, src/broker/store/shared-tokens.ts) must stay shorter
      // than the failover for the metrics to show it, as they do in production.
      BIOID_TOKEN_STORE_TIMEOUT_MS: '100',
    });
    // A round of one new user over both sidecars costs one exchange: the store shares. At this bound a
    // loaded 2-core machine can keep Redis (another process) from answering one round in time, and that
    // round rightly fails open with an exchange of its own; so the test waits for a sharing round, up to
    // 15 s, instead of asserting that the first one shares.
    const shares = (when: string) =>
      until(
        async () => {
          const [name] = await newUsers(1);
          const before = idp.tokenRequests;
          await Promise.all(group.sidecars.map(async (sidecar) => (await ask(sidecar, name!)).arrayBuffer()));
          return idp.tokenRequests - before === 1;
        },
        15_000,
        () => `no round shared one exchange ${when} within 15 s:\n${group.lines.join('\n')}`,
      );
    try {
      await ready(group);
      await shares('before the failover');
      const errorsBefore = await storeErrors(group);
      const traffic = load(group);
      await until(
        () => traffic.counts.answered >= 4,
        10_000,
        () => 'the load did not start',
      );
      await sentinels.master.kill();
      await sentinels.failedOver();
      // The sidecars follow the new master by themselves: a round costs one exchange again.
      await shares('after the failover');
      await traffic.stop();
      assert.deepStrictEqual(traffic.counts.failed, [], 'no request failed');
      assert.isAbove(traffic.counts.answered, 4);
      const errorsAfter = await storeErrors(group);
      assert.isAbove(errorsAfter, errorsBefore, 'bioid_broker_store_errors_total counted the failover');
    } finally {
      await group.close();
    }
  });

  it('Cluster of three masters: 50 cold requests over two sidecars cost one exchange; users’ keys spread over the masters; one master killed costs no request, the store errors show the window, and sharing resumes by itself once it is back', async function () {
    // Two waits of the file's kind: the master's death, then its return.
    this.timeout(45_000);
    const group = await start({ BIOID_TOKEN_STORE_CLUSTER_URLS: cluster.urls });
    const nodes = cluster.masters.map(({ port }) => createClient({ socket: { host: '127.0.0.1', port } }));
    // The test's own view of the masters: one of them is killed, and its client's error says nothing new.
    for (const node of nodes) node.on('error', () => {});
    try {
      await Promise.all(nodes.map((node) => node.connect()));
      await ready(group);
      const [name] = await newUsers(1);
      const before = idp.tokenRequests;
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => ask(group.sidecars[i % 2]!, name!)));
      const tokens = await Promise.all(answers.map(async (answer) => ((await answer.json()) as { access_token: string }).access_token));
      assert.strictEqual(new Set(tokens).size, 1);
      assert.strictEqual(idp.tokenRequests - before, 1, 'one exchange for 50 requests over two sidecars');

      await sharesOneExchangePerUser(group, 10);
      const sizes = await Promise.all(nodes.map((node) => node.dbSize()));
      assert.isAtLeast(sizes.filter((size) => size > 0).length, 2, `keys per master: ${sizes.join(', ')}`);

      const errorsBefore = await storeErrors(group);
      nodes[0]!.destroy();
      await cluster.masters[0]!.kill();
      const traffic = load(group);
      // Enough rounds that some users' keys fall in the dead master's slots (a third of them): fifteen
      // rounds of two keys each (the token's, its lock's) all miss it with a chance of (2/3)^30, 1 in 190,000.
      await until(
        () => traffic.counts.answered >= 30,
        15_000,
        () => 'the load stalled',
      );
      await traffic.stop();
      assert.deepStrictEqual(traffic.counts.failed, [], 'no request failed');
      assert.isAbove(await storeErrors(group), errorsBefore, "the dead master's keys are store errors, served around");

      // The master back (its slots in its nodes file, its keys gone): the sidecars reconnect by themselves.
      // Sharing has resumed once a round of new users, each asked of both sidecars, costs one exchange per
      // user, no store error, and writes a key on the returned master: then both sidecars reached it for
      // that user. A round that merely missed its slots proves nothing (six users' twelve keys do so once in
      // 130 rounds, and a loaded machine took enough rounds to reconnect that one did).
      await cluster.masters[0]!.restart();
      const returned = createClient({ socket: { host: '127.0.0.1', port: cluster.masters[0]!.port } });
      returned.on('error', () => {});
      nodes.push(returned);
      await returned.connect();
      await until(
        async () => {
          const errors = await storeErrors(group);
          const keys = await returned.dbSize();
          const names = await newUsers(6);
          const before = idp.tokenRequests;
          await Promise.all(names.flatMap((name) => group.sidecars.map(async (sidecar) => (await ask(sidecar, name)).arrayBuffer())));
          return idp.tokenRequests - before === names.length && (await storeErrors(group)) === errors && (await returned.dbSize()) > keys;
        },
        15_000,
        () => `sharing did not resume within 15 s of the master's return:\n${group.lines.join('\n')}`,
      );
      const errorsResumed = await storeErrors(group);
      await sharesOneExchangePerUser(group, 10);
      assert.strictEqual(await storeErrors(group), errorsResumed, 'bioid_broker_store_errors_total stopped rising');
    } finally {
      for (const node of nodes) if (node.isOpen) node.destroy();
      await group.close();
    }
  });
});

describe('shared token store topologies: the variables are read together, and their errors name them', () => {
  const errorOf = (env: Record<string, string>) => {
    try {
      tokenStoreFromEnv({ BIOID_TOKEN_STORE_KEY: KEY, ...env });
    } catch (error) {
      return (error as Error).message;
    }
    return assert.fail('no error');
  };
  const secret = `pw-${randomBytes(8).toString('hex')}`;

  it('Sentinel and Cluster settings come from their variables alone; TLS files go with rediss://', () => {
    assert.deepInclude(
      tokenStoreFromEnv({
        BIOID_TOKEN_STORE_KEY: KEY,
        BIOID_TOKEN_STORE_SENTINEL_URLS: ' rediss://s1:26379, rediss://s2:26379 ,',
        BIOID_TOKEN_STORE_SENTINEL_MASTER: 'main',
        BIOID_TOKEN_STORE_CA_FILE: '/etc/redis-ca/ca.pem',
      }),
      {
        topology: 'sentinel',
        sentinel: { urls: ['rediss://s1:26379', 'rediss://s2:26379'], master: 'main' },
        tls: { caFile: '/etc/redis-ca/ca.pem' },
      },
    );
    assert.deepInclude(
      tokenStoreFromEnv({ BIOID_TOKEN_STORE_KEY: KEY, BIOID_TOKEN_STORE_CLUSTER_URLS: 'redis://n1:6379,redis://n2:6379' }),
      {
        topology: 'cluster',
        cluster: { urls: ['redis://n1:6379', 'redis://n2:6379'] },
      },
    );
  });

  it('exactly one of URL, sentinel and cluster; a master needs sentinels and sentinels a master; a certificate needs its key; TLS files need rediss://; no value is echoed', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { BIOID_TOKEN_STORE_URL: 'redis://a:6379', BIOID_TOKEN_STORE_CLUSTER_URLS: 'redis://b:6379' },
        /BIOID_TOKEN_STORE_URL and BIOID_TOKEN_STORE_CLUSTER_URLS are both set/,
      ],
      [{ BIOID_TOKEN_STORE_SENTINEL_URLS: 'redis://s:26379' }, /BIOID_TOKEN_STORE_SENTINEL_MASTER is not/],
      [{ BIOID_TOKEN_STORE_URL: 'redis://a:6379', BIOID_TOKEN_STORE_SENTINEL_MASTER: 'main' }, /BIOID_TOKEN_STORE_SENTINEL_URLS is not/],
      [{ BIOID_TOKEN_STORE_URL: 'rediss://a:6380', BIOID_TOKEN_STORE_CERT_FILE: '/c.pem' }, /BIOID_TOKEN_STORE_KEY_FILE is not/],
      [{ BIOID_TOKEN_STORE_URL: 'redis://a:6379', BIOID_TOKEN_STORE_CA_FILE: '/ca.pem' }, /BIOID_TOKEN_STORE_URL is not rediss:\/\//],
      [{ BIOID_TOKEN_STORE_CA_FILE: '/ca.pem' }, /BIOID_TOKEN_STORE_CA_FILE is set but no shared token store is/],
      [{ BIOID_TOKEN_STORE_CLUSTER_URLS: `redis://a:6379,redis://user:${secret}@b:6379` }, /give them in BIOID_TOKEN_STORE_USERNAME/],
      [{ BIOID_TOKEN_STORE_CLUSTER_URLS: `redis://a:6379,http://${secret}:6379` }, /BIOID_TOKEN_STORE_CLUSTER_URLS: entry 2 is not/],
      [
        { BIOID_TOKEN_STORE_SENTINEL_URLS: 'redis://s1:26379,rediss://s2:26379', BIOID_TOKEN_STORE_SENTINEL_MASTER: 'm' },
        /mixes redis:\/\/ and rediss:\/\//,
      ],
    ];
    for (const [env, expected] of cases) {
      const message = errorOf(env);
      assert.match(message, expected);
      assert.notInclude(message, secret);
    }
  });
});
