/**
 * The log of `bioid-broker serve` (docs/operations.md): JSON lines (pino) on stdout, `BIOID_LOG_LEVEL`.
 * One line per token request, with its request id, outcome, status and duration, written from the
 * broker's `request` event; refused requests are that line at `warn` (event `refused`, with the
 * reason and the Origin). No line holds a cookie, a token, a subject token or the secret: what is logged
 * is the events' closed words, numbers, the Origin and a request id that was checked to be a plain id;
 * the redaction below is a second line of defence for fields that should never be logged at all.
 */
import { randomUUID } from 'node:crypto';
import { write as fsWrite, writeSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { BioIDError } from 'bioid-sdk';
import type { BrokerContext, RequestEvent } from 'bioid-sdk/broker';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Fields never written: censored if a line ever carries one (top level, or in `headers`, `req.headers` or
 * `query`). Exact paths, no wildcards: a wildcard path costs on every line (measured with --cpu-prof).
 */
const SECRET_FIELDS = [
  'cookie',
  'authorization',
  'access_token',
  'subject_token',
  'client_secret',
  'clientSecret',
  'token',
  'password',
  'secret',
];
const REDACTED = [
  ...SECRET_FIELDS,
  ...['cookie', 'authorization', 'x-refused-token'].flatMap((name) => [`headers["${name}"]`, `req.headers["${name}"]`]),
  ...SECRET_FIELDS.map((name) => `query.${name}`),
];
/** A batch is written at once when it reaches this many characters. */
const BATCH_CHARS = 64 * 1024;
/**
 * Otherwise the lines wait this long for others to join them: a busy sidecar then makes about a hundred
 * writes a second whatever its request rate, where a write per turn of the event loop (each a round trip
 * to libuv's thread pool) cost about 12% of a cached token request (measured with --cpu-prof).
 */
const FLUSH_MS = 10;
/** How long to wait before writing again when the descriptor is full (a pipe nobody reads yet). */
const RETRY_MS = 10;
/** Past this many characters waiting (stdout blocked), lines are dropped and counted, not kept in memory. */
const MAX_WAITING_CHARS = 8 * 1024 * 1024;

export function readLogLevel(value: string | undefined, name: string): LogLevel {
  if (value === undefined) return 'info';
  const level = value.toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new BioIDError('config', `bioid-broker serve: environment variable ${name} must be one of ${LOG_LEVELS.join(', ')}.`);
  }
  return level;
}

/**
 * A logger writing one JSON object per line: `{"level":"info","time":"<ISO 8601>",…}`. `write` replaces
 * stdout (tests); stdout is written asynchronously, and `flush` writes what is pending (before exit).
 * `settle` waits (at most `ms`) until the lines so far are written: a line written by `flush` while an
 * earlier batch is still with the system could otherwise come out before that batch. `writeLine` takes a
 * line already made as pino makes it (logRequest's), to the same place and in the same order.
 */
export function createLog(
  level: LogLevel,
  write?: (line: string) => void,
  fd = 1,
): { log: Logger; flush: () => void; settle: (ms: number) => Promise<void>; writeLine: (line: string) => void } {
  const destination: DestinationStream & { flushSync?: () => void; settle?: () => Promise<void> } = write
    ? { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) }
    : batchedWriter(fd);
  const log = pino(
    {
      level,
      base: undefined,
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: '[redacted]' },
    },
    destination,
  );
  return {
    log,
    writeLine: (line) => destination.write(line),
    flush: () => {
      try {
        destination.flushSync?.();
      } catch {
        // Nothing pending, or stdout is gone.
      }
    },
    settle: (ms) => {
      if (!destination.settle) return Promise.resolve();
      let timer: ReturnType<typeof setTimeout> | undefined;
      // A stdout nobody reads (EAGAIN retried) must not hold the caller for ever.
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
      return Promise.race([destination.settle(), bound]).finally(() => clearTimeout(timer));
    },
  };
}

let lastMs = Number.NaN;
let lastTime = '';
/**
 * pino's `stdTimeFunctions.isoTime` (`,"time":"<ISO 8601>"`), the text made once per millisecond: a busy
 * sidecar writes many lines in each, and `toISOString` per line was 2% of a cached token request
 * (measured with --cpu-prof).
 */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

/**
 * Lines written to a file descriptor in batches: the lines of 10 ms go out in one asynchronous write (at
 * once past 64 K characters), so a line is out within milliseconds while a busy sidecar makes one write
 * for many requests. A write per line, as pino's own destination does, cost more than the rest of a
 * cached token request (measured with --cpu-prof). Partial writes and a full pipe (EAGAIN) are retried;
 * `settle` sends the waiting lines at once and resolves when all are written; `flushSync` writes what is
 * left before exit.
 */
function batchedWriter(fd: number): DestinationStream & { flushSync(): void; settle(): Promise<void> } {
  let lines: string[] = [];
  let chars = 0;
  let dropped = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The chunk being written; `inFlight` while the write is with the system (not waiting to retry). */
  let writing: Buffer | undefined;
  let inFlight = false;
  /** Callers of `settle`, told once nothing is waiting or being written. */
  let waiters: (() => void)[] = [];
  const take = (): Buffer | undefined => {
    if (lines.length === 0) return undefined;
    const chunk = Buffer.from(lines.join(''));
    lines = [];
    chars = 0;
    return chunk;
  };
  const writeOut = (chunk: Buffer) => {
    writing = chunk;
    inFlight = true;
    fsWrite(fd, chunk, 0, chunk.length, null, (error, written) => {
      inFlight = false;
      if (error) {
        if (error.code === 'EAGAIN') setTimeout(() => writeOut(chunk), RETRY_MS);
        else afterWrite(); // stdout is gone: the chunk is dropped, the broker goes on.
        return;
      }
      if (written < chunk.length) return writeOut(chunk.subarray(written));
      afterWrite();
    });
  };
  /** Lines that came during a write wait for their own batch, unless they already fill one or someone waits. */
  const afterWrite = () => {
    writing = undefined;
    if (chars >= BATCH_CHARS || waiters.length > 0) drain();
    else if (lines.length > 0) schedule();
    if (!writing) {
      const settled = waiters;
      waiters = [];
      for (const resolve of settled) resolve();
    }
  };
  const drain = () => {
    clearTimeout(timer);
    timer = undefined;
    if (writing) return; // written when the current write ends
    const chunk = take();
    if (chunk) writeOut(chunk);
  };
  const schedule = () => void (timer ??= setTimeout(drain, FLUSH_MS));
  return {
    write(line: string) {
      if (chars > MAX_WAITING_CHARS) {
        dropped += 1;
        return;
      }
      if (dropped > 0) {
        lines.push(droppedLine(dropped));
        dropped = 0;
      }
      lines.push(line);
      chars += line.length;
      if (chars >= BATCH_CHARS) drain();
      else schedule();
    },
    settle() {
      if (!writing && lines.length === 0) return Promise.resolve();
      const settled = new Promise<void>((resolve) => waiters.push(resolve));
      if (!writing) drain();
      return settled;
    },
    flushSync() {
      // A chunk already with the system is written by it; one waiting to be retried is written here.
      const pending = [inFlight ? undefined : writing, take()].filter((chunk): chunk is Buffer => chunk !== undefined);
      writing = undefined;
      writeAllSync(fd, pending);
    },
  };
}

/** `chunks` written before this returns, a full pipe (EAGAIN) retried; stops at any other error (stdout is gone). */
function writeAllSync(fd: number, chunks: Buffer[]): void {
  for (let chunk of chunks) {
    while (chunk.length > 0) {
      try {
        chunk = chunk.subarray(writeSync(fd, chunk));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      }
    }
  }
}

/** The line that says how many lines were dropped while too many waited. */
const droppedLine = (count: number) =>
  `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), event: 'log-lines-dropped', count })}\n`;

const REQUEST_ID = Symbol('bioid.requestId');
/**
 * A request id from a caller is kept when it is a plain id: letters, digits and `._:-`, at most 64
 * characters (a UUID, a trace id, a load balancer's id). Anything else (longer, or with other characters,
 * as a token would be) is replaced by a fresh one, so a caller cannot make the log carry a value.
 */
const PLAIN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The request's id: its X-Request-Id when plain, else a new UUID; remembered on the request. */
export function requestIdOf(req: IncomingMessage): string {
  const known = (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID];
  if (known) return known;
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && PLAIN_ID.test(given) ? given : randomUUID();
  (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID] = id;
  return id;
}

const FIXES: Partial<Record<RequestEvent['outcome'], string>> = {
  'origin-not-allowed': 'add this exact origin to BIOID_ALLOWED_ORIGINS if its pages should get tokens',
};
const REFUSALS = new Set<RequestEvent['outcome']>(['origin-not-allowed', 'method', 'csrf', 'no-session', 'no-cookie', 'no-subject-token']);

/**
 * The line of one answered token request. With `writeLine` (createLog's), the line of a request answered
 * at info is made here, as pino would make it from the same fields, and written beside pino's: pino's
 * general serialiser was the largest cost of the sidecar's log per request (measured with --cpu-prof), and
 * this line holds only the event's words and numbers, the method and a request id checked to be a plain
 * id (nothing that needs escaping or redacting). Other lines go through pino.
 */
export function logRequest(log: Logger, event: RequestEvent, context: BrokerContext | undefined, writeLine?: (line: string) => void): void {
  const req = context?.req;
  const requestId = req ? requestIdOf(req) : undefined;
  const method = (req?.method ?? 'GET').slice(0, 20);
  const durationMs = Math.round(event.durationMs * 100) / 100;
  if (REFUSALS.has(event.outcome)) {
    if (!log.isLevelEnabled('warn')) return;
    const origin = req?.headers.origin;
    const fix = FIXES[event.outcome];
    log.warn({
      event: 'refused',
      requestId,
      reason: event.outcome,
      outcome: event.outcome,
      status: event.status,
      method,
      origin: typeof origin === 'string' ? origin.slice(0, 200) : null,
      durationMs,
      ...(fix ? { fix } : {}),
    });
    return;
  }
  const level: Level = event.status >= 500 ? 'error' : 'info';
  if (!log.isLevelEnabled(level)) return;
  if (writeLine && level === 'info') {
    const id = requestId === undefined ? '' : `,"requestId":"${requestId}"`;
    writeLine(
      `{"level":"info"${isoTime()},"event":"request"${id},"outcome":${JSON.stringify(event.outcome)},"status":${event.status},"method":${JSON.stringify(method)},"durationMs":${Number.isFinite(durationMs) ? durationMs : null}}\n`,
    );
    return;
  }
  log[level]({ event: 'request', requestId, outcome: event.outcome, status: event.status, method, durationMs });
}
