/**
 * A node:http server on 127.0.0.1 port 0 whose answers are as large as a test wants, endless included,
 * written with back-pressure: it writes only as fast as the client reads, and counts what it wrote until
 * the client hung up. So a test can tell "the client stopped reading after about a MiB" from "the client
 * buffered the whole body".
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const MiB = 1 << 20;

export interface Flood {
  status?: number;
  /** Sent before the filler (the opening of a JSON object, say). */
  prefix?: string;
  /** Sent after the filler; never reached by an endless body. */
  suffix?: string;
  /** Bytes of filler; Infinity (the default) for a body that never ends. */
  size?: number;
  /** A Content-Length header to announce; by default none (chunked). */
  contentLength?: number;
}

/** What one answer did: bytes written, and whether the client hung up before its end. */
export interface FloodRecord {
  path: string;
  written: number;
  hungUp: boolean;
  /** Settles when the answer is over: sent whole, or the connection closed. */
  done: Promise<void>;
}

export async function startFloodServer(answer: (req: IncomingMessage) => Flood) {
  const records: FloodRecord[] = [];
  const server = createServer((req, res) => records.push(flood(req, res, answer(req))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    records,
    /** The record of the last request to `path`, once that answer is over. */
    async settled(path: string): Promise<FloodRecord> {
      const record = records.filter((r) => r.path === path).at(-1);
      if (!record) throw new Error(`no request to ${path}`);
      await record.done;
      return record;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function flood(req: IncomingMessage, res: ServerResponse, spec: Flood): FloodRecord {
  const chunk = Buffer.alloc(64 * 1024, 'A');
  const total = spec.size ?? Infinity;
  let filled = 0;
  let finished = false;
  const record: FloodRecord = { path: (req.url ?? '/').split('?')[0]!, written: 0, hungUp: false, done: Promise.resolve() };
  record.done = new Promise<void>((resolve) => {
    res.on('close', () => {
      record.hungUp = !finished;
      resolve();
    });
  });
  const write = (data: Buffer | string) => {
    record.written += Buffer.byteLength(data);
    return res.write(data);
  };
  const pump = () => {
    while (filled < total && !res.destroyed) {
      const part = total - filled < chunk.length ? chunk.subarray(0, total - filled) : chunk;
      filled += part.length;
      if (!write(part)) {
        res.once('drain', pump);
        return;
      }
    }
    if (res.destroyed) return;
    if (spec.suffix) write(spec.suffix);
    finished = true;
    res.end();
  };
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (spec.contentLength !== undefined) headers['Content-Length'] = String(spec.contentLength);
  res.writeHead(spec.status ?? 200, headers);
  res.flushHeaders();
  if (spec.prefix) write(spec.prefix);
  // Announced but never sent: the client must refuse on the header alone, before reading.
  if (spec.contentLength !== undefined && spec.size === 0) return record;
  pump();
  return record;
}
