/**
 * bioid-simulator as the package and framework tests run it: started on free ports (its SIMULATOR_READY line
 * gives the addresses), and what an integrator's server does with a posted verification id, in plain HTTP
 * as docs/simulator.md shows for any language.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { assert } from 'chai';
import type { Ready } from '../../simulator/src/cli.js';

const FREE_PORTS = [
  '--idp-port',
  '0',
  '--middleware-port',
  '0',
  '--local-service-port',
  '0',
  '--broker-port=0',
  '--capture-delay-ms',
  '0-30',
];

export interface RunningSimulator {
  child: ChildProcess;
  ready: Ready;
  /** Everything it printed so far. */
  output: () => string;
}

/** Runs `command` (the installed bin, or node with the sources) with `args` and the free-port flags; resolves once it is ready. */
export function startSimulator(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<RunningSimulator> {
  const child = spawn(command, [...args, ...FREE_PORTS], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no SIMULATOR_READY within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^SIMULATOR_READY (\S+)$/m.exec(output);
      if (line) {
        clearTimeout(timer);
        resolve({ child, ready: JSON.parse(line[1]!) as Ready, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bioid-simulator exited (${code}) before it was ready:\n${output}`));
    });
  });
}

/** The integrator's server: a client-credentials token, then the middleware's record of `verificationId`, which must be a match for `subjectId`. */
export async function assertConfirmedMatch(ready: Ready, verificationId: string, subjectId = 'alice'): Promise<void> {
  const token = (await (
    await fetch(ready.tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: ready.integratorId, client_secret: 'demo-secret' }),
    })
  ).json()) as { access_token: string };
  const confirmed = await fetch(`${ready.middlewareUrl}/verifications/${encodeURIComponent(verificationId)}`, {
    headers: { Authorization: `Bearer ${token.access_token}` },
  });
  assert.strictEqual(confirmed.status, 200);
  assert.deepInclude(await confirmed.json(), { verificationId, subjectId, match: true });
}
