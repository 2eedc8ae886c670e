/**
 * A throwaway Redis for the shared token store tests: Debian's redis-server (scripts/browsers.mjs installs
 * it) on a unix socket in a temporary folder, no TCP port, nothing saved. It can be stopped and started
 * again on the same socket, to test a store that goes away mid-run, or frozen (SIGSTOP: its connections
 * stay open, nothing answers) and thawed. `args` go to redis-server too (`--requirepass`, …).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { redisServerPath } from '../../scripts/browsers.mjs';

export type RedisClient = ReturnType<typeof createClient>;

export interface RunningRedis {
  socket: string;
  /** A connected client; call `close` to quit them all. */
  client(): Promise<RedisClient>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its connections and answers nothing until `thaw`. */
  freeze(): void;
  /** SIGCONT; `close` thaws too. */
  thaw(): void;
  close(): Promise<void>;
}

export async function startRedis(args: readonly string[] = []): Promise<RunningRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bioid-redis-'));
  const socket = join(dir, 'redis.sock');
  const clients: RedisClient[] = [];
  let child: ChildProcess | undefined;

  const start = async () => {
    child = spawn(
      redisServerPath(),
      ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir, ...args],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    while (!existsSync(socket)) {
      // An argument it refuses, or a TCP port another process took first, ends it at once.
      if (child.exitCode !== null) throw new Error(`redis-server exited (code ${child.exitCode}) before opening its socket`);
      if (Date.now() > deadline) throw new Error('redis-server did not open its socket within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const signal = (name: 'SIGSTOP' | 'SIGCONT') => {
    if (child && child.exitCode === null) child.kill(name);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
    rmSync(socket, { force: true });
  };
  try {
    await start();
  } catch (error) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    socket,
    async client() {
      // As the sidecar makes it: commands fail at once while disconnected, reconnects are quick.
      const client = createClient({ socket: { path: socket, reconnectStrategy: () => 50 }, disableOfflineQueue: true });
      client.on('error', () => {});
      await client.connect();
      clients.push(client);
      return client;
    },
    stop,
    start,
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async close() {
      signal('SIGCONT');
      for (const client of clients) client.destroy();
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
