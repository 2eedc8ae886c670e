// Section 3: the reference broker.
//  a) 1000 concurrent cold requests (empty cache) → exchanges seen by the real IdP (simulator/src/idp.ts);
//  b) cached-path requests per second: autocannon against the broker on node:http and against a bare
//     node:http handler answering the same JSON, each in its own child process, 5 s per run, run twice
//     alternating; the ratio of the medians.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { atLeast, fmt, notMeasured, row } from './report.mjs';

const SECTION = '3 Broker';
const DURATION_S = 5;
const CONNECTIONS = 50;

async function coldRequests() {
  const { startIdp } = await import('../simulator/src/idp.ts');
  const { createTokenBroker, toNodeHandler } = await import('../src/broker/index.ts');
  const idp = await startIdp({ clients: [{ clientId: 'bench', clientSecret: 'bench-secret' }], port: 0 });
  const server = createServer(
    toNodeHandler(
      createTokenBroker({ issuerUrl: idp.baseUrl, realm: idp.realm, clientId: 'bench', clientSecret: 'bench-secret', authorize: () => true }),
    ),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/token`;
  try {
    const before = idp.tokenRequests;
    const replies = await Promise.all(
      Array.from({ length: 1000 }, async () => {
        const res = await fetch(url, { headers: { 'X-CSRF': '1' } });
        const body = await res.json();
        return { status: res.status, token: body.access_token };
      }),
    );
    const ok = replies.filter((r) => r.status === 200).length;
    const distinct = new Set(replies.map((r) => r.token)).size;
    return { exchanges: idp.tokenRequests - before, ok, distinct };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await idp.close();
  }
}

/** Starts bench/broker-server.mjs in `mode`; resolves once it prints its port. */
function child(root, mode, env = {}) {
  const script = fileURLToPath(new URL('./broker-server.mjs', import.meta.url));
  const proc = spawn(process.execPath, ['--import', 'tsx', script, mode], {
    cwd: root,
    env: { ...process.env, ...env, NODE_NO_WARNINGS: '1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mode} server did not start within 30 s`)), 30_000);
    proc.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    createInterface({ input: proc.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const { port } = JSON.parse(line);
      resolve({
        url: `http://127.0.0.1:${port}/token`,
        stop: () =>
          new Promise((done) => {
            proc.removeAllListeners('exit');
            proc.once('exit', done);
            proc.stdin.end();
            setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
          }),
      });
    });
  });
}

async function cannon(url) {
  const { default: autocannon } = await import('autocannon');
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { 'X-CSRF': '1' },
  });
  const good = result['2xx'];
  return { rps: good / (result.duration || DURATION_S), non2xx: result.non2xx, errors: result.errors };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

async function cachedPath(root, log) {
  const broker = await child(root, 'broker');
  let bare;
  try {
    // The first request fills the broker's cache (one IdP exchange); the bare server answers that JSON.
    const first = await fetch(broker.url, { headers: { 'X-CSRF': '1' } });
    const body = await first.text();
    if (first.status !== 200) throw new Error(`the broker answered HTTP ${first.status}`);
    bare = await child(root, 'bare', { BENCH_BODY: body });
    await cannon(bare.url).catch(() => {}); // nothing measured: lets both JITs warm up alike
    const runs = { broker: [], bare: [] };
    let problems = 0;
    for (let i = 0; i < 2; i++) {
      for (const [name, server] of i % 2 === 0 ? [['broker', broker], ['bare', bare]] : [['bare', bare], ['broker', broker]]) {
        const r = await cannon(server.url);
        problems += r.non2xx + r.errors;
        runs[name].push(r.rps);
        log(`  ${name}: ${fmt(Math.round(r.rps))} req/s`);
      }
    }
    return { broker: median(runs.broker), bare: median(runs.bare), runs, problems };
  } finally {
    await broker.stop();
    await bare?.stop();
  }
}

export async function runBroker({ root, log }) {
  const rows = [];
  try {
    const cold = await coldRequests();
    const verdict = cold.exchanges === 1 && cold.ok === 1000 ? 'pass' : 'MISS';
    rows.push(
      row(SECTION, 'IdP exchanges: 1000 concurrent cold requests (real IdP)', fmt(cold.exchanges), '= 1 per 1000', verdict,
        [cold.exchanges > 1 ? `${cold.exchanges - 1} more than 1` : '', `${cold.ok}/1000 answered 200, ${cold.distinct} distinct token(s)`].filter(Boolean).join('; ')),
    );
  } catch (error) {
    rows.push(notMeasured(SECTION, 'IdP exchanges: 1000 concurrent cold requests', `failed (${error instanceof Error ? error.message.split('\n')[0] : error})`, '= 1 per 1000'));
  }
  try {
    const c = await cachedPath(root, log);
    const ratio = c.broker / c.bare;
    const v = atLeast(ratio, 0.7, '×');
    rows.push(
      row(SECTION, `cached path: broker req/s vs bare node:http (autocannon, ${CONNECTIONS} conns, ${DURATION_S} s × 2 each)`,
        `${ratio.toFixed(2)}× (${fmt(Math.round(c.broker))} vs ${fmt(Math.round(c.bare))} req/s)`, '≥ 0.7×', v.verdict,
        [v.note, c.problems ? `${c.problems} non-2xx/errors` : '', `load average ${os.loadavg()[0].toFixed(1)}`, `runs broker ${c.runs.broker.map((x) => fmt(Math.round(x))).join(', ')}; bare ${c.runs.bare.map((x) => fmt(Math.round(x))).join(', ')}`].filter(Boolean).join('; ')),
    );
  } catch (error) {
    rows.push(notMeasured(SECTION, 'cached path: broker vs bare node:http', `failed (${error instanceof Error ? error.message.split('\n')[0] : error})`, '≥ 0.7×'));
  }
  return {
    rows,
    methods: [
      `Broker: a) createTokenBroker through toNodeHandler on node:http (127.0.0.1, port 0) in front of the real IdP of simulator/src/idp.ts (oidc-provider); 1000 fetches sent at once with an empty cache; the IdP's token-endpoint request counter is read before and after. b) The broker (cache filled by one request) and a bare node:http handler answering the broker's JSON with the same headers each run in a child process; autocannon (${CONNECTIONS} connections, ${DURATION_S} s) in the bench process, one unmeasured warm-up run, then broker, bare, bare, broker; the ratio of the medians of 2xx requests per second. On a 2-core machine the load generator takes one core, so both servers are measured under the same limit.`,
    ],
  };
}
