// Section 3b: the shared token store (docs/broker.md, "Several instances").
// Four broker instances, each with its own Redis connection (in one process: the bench measures the
// store's sharing and its cost, which separate processes would not change), the simulator's real IdP,
// a real redis-server (test/broker/redis-server.ts) on a unix socket. 1,000 distinct RFC 8693 users send
// 10 requests each to instances picked at random:
//  a) IdP exchanges with the store (goal: one per user) and without (each instance its own memory);
//  b) cached-path latency p50 and p99 with the store against memory only;
//  c) a cold burst: BURST_USERS new users at once, one request each, to fresh instances: the slowest request
//     and p99 with the store against memory only (context: what the store adds to a cold start's tail);
//  d) Redis killed during a run: requests that failed (goal 0: the store fails open);
//  e) the same run as a) and b) on a Cluster of three masters on loopback ports
//     (test/broker/redis-topologies.ts): exchanges and cached-path p99 beside the single server's.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { fmt, notMeasured, row } from './report.mjs';

const SECTION = '3b Shared store';
const USERS = 1000;
const REQUESTS_PER_USER = 10;
const INSTANCES = 4;
const BURST_USERS = 800;
/** Bursts with and without the store, taken in turns; the row shows the median one of each. */
const BURSTS = 3;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function setUp() {
  const { startIdp } = await import('../simulator/src/idp.ts');
  const { startRedis } = await import('../test/broker/redis-server.ts');
  const broker = await import('../src/broker/index.ts');
  const client = { clientId: 'bench-store', clientSecret: 'bench-store-secret' };
  const idp = await startIdp({ clients: [client], port: 0 });
  const redis = await startRedis();
  const key = randomBytes(32).toString('base64');
  /** One broker of the RFC 8693 variant; with a node-redis client, sharing its tokens through it. */
  const brokerOver = (storeClient) =>
    broker.createTokenBroker({
      issuerUrl: idp.baseUrl,
      realm: idp.realm,
      ...client,
      authorize: () => true,
      logger: () => {},
      tokenExchange: { subjectToken: (request) => request.headers.get('X-User-Token'), maxCachedUsers: USERS * 2 },
      ...(storeClient ? { store: broker.redisTokenStore({ client: storeClient, encryptionKey: key }), storeTimeoutMs: 1000 } : {}),
    });
  /** `INSTANCES` brokers; with `shared`, each over its own Redis connection. */
  const instances = async (shared) =>
    Promise.all(Array.from({ length: INSTANCES }, async () => brokerOver(shared ? await redis.client() : undefined)));
  const subjects = await Promise.all(Array.from({ length: USERS }, (_, i) => idp.userToken(`bench-user-${i}`)));
  return { idp, redis, brokerOver, instances, subjects, close: async () => Promise.all([redis.close(), idp.close()]) };
}

/**
 * A three-master Cluster on loopback ports, and `INSTANCES` brokers each with its own cluster client
 * (as `bioid-broker serve` makes one for BIOID_TOKEN_STORE_CLUSTER_URLS); `close` stops it all.
 */
async function onCluster({ brokerOver }) {
  const { RedisFolder, startCluster } = await import('../test/broker/redis-topologies.ts');
  const { createCluster } = await import('redis');
  const folder = new RedisFolder();
  const clients = [];
  try {
    const cluster = await startCluster(folder);
    const rootNodes = cluster.masters.map(({ port }) => ({ socket: { host: '127.0.0.1', port } }));
    const brokers = await Promise.all(
      Array.from({ length: INSTANCES }, async () => {
        const connection = createCluster({ rootNodes });
        clients.push(connection);
        await connection.connect();
        return brokerOver(connection);
      }),
    );
    return { brokers, close: () => Promise.all(clients.map((c) => c.close().catch(() => {}))).then(() => folder.close()) };
  } catch (error) {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await folder.close();
    throw error;
  }
}

/** Every user's requests, in random order, each to a random instance; the statuses and each request's ms. */
async function run(brokers, subjects, during) {
  const jobs = subjects.flatMap((subject) => Array.from({ length: REQUESTS_PER_USER }, () => subject)).sort(() => Math.random() - 0.5);
  const statuses = [];
  const times = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const subject = jobs[next++];
      if (next === Math.floor(jobs.length / 2)) await during?.();
      const instance = brokers[Math.floor(Math.random() * brokers.length)];
      const started = performance.now();
      const response = await instance(
        new Request('https://backend.example.com/bioid/token', { headers: { 'X-CSRF': '1', 'X-User-Token': subject } }),
      );
      await response.arrayBuffer();
      times.push(performance.now() - started);
      statuses.push(response.status);
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  return { statuses, times: times.sort((a, b) => a - b) };
}

/** `subjects` at once, one request each to a random instance; each request's ms, sorted. */
async function burst(brokers, subjects) {
  const times = await Promise.all(
    subjects.map(async (subject) => {
      const instance = brokers[Math.floor(Math.random() * brokers.length)];
      const started = performance.now();
      const response = await instance(
        new Request('https://backend.example.com/bioid/token', { headers: { 'X-CSRF': '1', 'X-User-Token': subject } }),
      );
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`a cold burst request was answered ${response.status}`);
      return performance.now() - started;
    }),
  );
  return times.sort((a, b) => a - b);
}

/**
 * BURSTS cold bursts of BURST_USERS new users over fresh instances with the store and as many without,
 * in turns; the median burst (by its slowest request) of each, and the IdP exchanges of the store's bursts.
 */
async function coldBursts({ idp, instances }) {
  const runs = { store: [], memory: [] };
  let exchanges = 0;
  let user = 0;
  const newUsers = () => Promise.all(Array.from({ length: BURST_USERS }, () => idp.userToken(`bench-cold-${user++}`)));
  for (let i = 0; i < BURSTS; i += 1) {
    const before = idp.tokenRequests;
    runs.store.push(await burst(await instances(true), await newUsers()));
    exchanges += idp.tokenRequests - before;
    runs.memory.push(await burst(await instances(false), await newUsers()));
  }
  const median = (bursts) => bursts.sort((a, b) => a.at(-1) - b.at(-1))[Math.floor(bursts.length / 2)];
  return { store: median(runs.store), memory: median(runs.memory), exchanges };
}

export async function runStore({ log }) {
  const rows = [];
  let world;
  try {
    world = await setUp();
    const { idp, redis, instances, subjects } = world;

    let before = idp.tokenRequests;
    const shared = await run(await instances(true), subjects);
    const withStore = idp.tokenRequests - before;
    before = idp.tokenRequests;
    const memory = await run(await instances(false), subjects);
    const withoutStore = idp.tokenRequests - before;
    rows.push(
      row(
        SECTION,
        `IdP exchanges: ${USERS} RFC 8693 users × ${REQUESTS_PER_USER} requests over ${INSTANCES} instances, with the store`,
        fmt(withStore),
        `= ${USERS}`,
        withStore === USERS ? 'pass' : 'MISS',
        `without the store: ${fmt(withoutStore)} (up to ${fmt(USERS * INSTANCES)})`,
      ),
    );
    // The cached path: the second and later requests of each user (the first ones exchange).
    const cached = (r) => r.times.slice(0, Math.floor(r.times.length * 0.9));
    const [s, m] = [cached(shared), cached(memory)];
    rows.push(
      row(
        SECTION,
        'cached path latency p50 / p99 (ms), store vs memory only',
        `${fmt(percentile(s, 50))} / ${fmt(percentile(s, 99))} vs ${fmt(percentile(m, 50))} / ${fmt(percentile(m, 99))}`,
        '',
        '—',
        'in-process handler calls, 50 at a time',
      ),
    );

    log('bench: store: the same run on a Cluster of three masters …');
    const loadCluster = os.loadavg()[0];
    const onThree = await onCluster(world);
    try {
      before = idp.tokenRequests;
      const clustered = await run(onThree.brokers, subjects);
      const withCluster = idp.tokenRequests - before;
      const c = cached(clustered);
      rows.push(
        row(
          SECTION,
          `Cluster of 3 masters: IdP exchanges (${USERS} users × ${REQUESTS_PER_USER} requests over ${INSTANCES} instances) and cached path p99 (ms), vs one server`,
          `${fmt(withCluster)}, ${fmt(percentile(c, 99))} vs ${fmt(withStore)}, ${fmt(percentile(s, 99))}`,
          `= ${USERS}`,
          withCluster === USERS ? 'pass' : 'MISS',
          `loopback TCP to 3 redis-server cluster nodes vs a unix socket to one; p50 ${fmt(percentile(c, 50))} vs ${fmt(percentile(s, 50))}; load average ${loadCluster.toFixed(1)} / ${os.loadavg()[0].toFixed(1)} (1 min, before / after)`,
        ),
      );
    } finally {
      await onThree.close();
    }

    log(`bench: store: cold bursts of ${BURST_USERS} new users …`);
    const loadBefore = os.loadavg()[0];
    const cold = await coldBursts(world);
    const [cs, cm] = [cold.store, cold.memory];
    rows.push(
      row(
        SECTION,
        `cold burst: ${fmt(BURST_USERS)} new users at once, slowest request / p99 (ms), store vs memory only`,
        `${fmt(cs.at(-1), 0)} / ${fmt(percentile(cs, 99), 0)} vs ${fmt(cm.at(-1), 0)} / ${fmt(percentile(cm, 99), 0)}`,
        '',
        '—',
        `median of ${BURSTS} bursts each; IdP exchanges with the store ${fmt(cold.exchanges)} for ${fmt(BURSTS * BURST_USERS)} users; load average ${loadBefore.toFixed(1)} / ${os.loadavg()[0].toFixed(1)} (1 min, before / after)`,
      ),
    );

    await redis.client().then((admin) => admin.flushAll());
    log('bench: store: Redis killed halfway through a run …');
    const outage = await run(await instances(true), subjects, () => redis.stop());
    const failed = outage.statuses.filter((status) => status !== 200).length;
    rows.push(
      row(
        SECTION,
        'requests that failed with Redis killed halfway through the run',
        fmt(failed),
        '= 0',
        failed === 0 ? 'pass' : 'MISS',
        `${fmt(outage.statuses.length)} requests`,
      ),
    );
  } catch (error) {
    rows.push(notMeasured(SECTION, 'shared store', `failed (${error instanceof Error ? error.message.split('\n')[0] : error})`));
  } finally {
    await world?.close().catch(() => {});
  }
  return {
    rows,
    methods: [
      `${SECTION}: ${INSTANCES} broker instances in one process, each with its own connection to a real redis-server on a unix socket, the simulator's real IdP; ${USERS} RFC 8693 users send ${REQUESTS_PER_USER} requests each to random instances, 50 at a time.`,
      `${SECTION}, Cluster: the same ${USERS} users' run over ${INSTANCES} fresh instances, each with its own node-redis cluster client, on three redis-server masters started on loopback ports (cluster-enabled, the 16,384 slots in three equal ranges) and stopped after; the user's token and its lock are separate keys, so they land on different masters.`,
      `${SECTION}, cold burst: ${fmt(BURST_USERS)} users never seen before send one request each, all at once, each to a random one of ${INSTANCES} fresh instances (new connections, empty caches, nothing in Redis for them), with the store and then without it (each instance its own memory), ${BURSTS} times in turns; the figure is each side's median burst by its slowest request, the time from the handler call to the end of the body. The IdP runs in the same process, so its own work (a signed token per exchange) slows the event loop that the brokers share, as a loaded instance's would be; the store adds its round trips and thread-pool waits before each exchange. The note gives the 1-minute load average before and after the bursts: the machine is shared, and a higher load lengthens both sides.`,
    ],
  };
}
