#!/usr/bin/env node
/**
 * `bioid-broker`, the command of the bioid-broker package: `serve` runs the reference token broker of
 * bioid-sdk as a sidecar for a backend in any language; `check <url>` probes any broker against
 * docs/broker-contract.md.
 */
import { parseArgs } from 'node:util';
import { BioIDError } from 'bioid-sdk';
// Where `check` also reads the session cookies: an argument shows in every user's process list, the
// environment and stdin do not (docs/broker-contract.md).
import { CHECK_ENV } from './check-env.js';
import { checkBroker, formatResults } from './contract-check.js';
// Generated from the variable tables by `npm run docs`, like the docs' tables.
import { CHECK_VARIABLES_HELP, SERVE_VARIABLES_HELP } from './help-variables.js';
import { HEALTH_PATH, READY_PATH, SERVE_ENV, serve } from './serve.js';

/** More than any Cookie header a server accepts (node:http stops at 16 KB of headers). */
const MAX_STDIN_BYTES = 64 * 1024;

const USAGE = `bioid-broker: the token broker of bioid-sdk as a process, for backends in any language.

Usage:
  bioid-broker serve
      Runs the reference token broker (GET any path but ${HEALTH_PATH} and ${READY_PATH}), configured by environment.
      The session check (${SERVE_ENV.sessionCheckUrl}) gets each token request's Cookie header with GET;
      signed in = 204, or 200 {"signed_in": true}; anything else (an HTML page, a 200 {} too) is not, and
      a check that signs in a made-up cookie keeps ${READY_PATH} 503 and no token is served. With
      ${SERVE_ENV.tokenExchange}=true (RFC 8693) it answers { "subject_token": "<the user's access token>" }.
      The variables (docs/operations.md has them in tables):
${SERVE_VARIABLES_HELP}
      ${HEALTH_PATH} answers 200 { "status": "ok" } while the process serves; ${READY_PATH} answers 200 once the
      configuration is loaded (and the store has answered once), 503 before that and from SIGTERM on.
      SIGTERM: ${READY_PATH} turns 503, then it stops accepting, lets requests in flight finish (at most 10 s)
      and exits 0; SIGINT skips the delay. Logs one JSON line per token request on stdout (request id,
      outcome, status, duration); never a cookie, token or secret. Operations: docs/operations.md in bioid-sdk.

  bioid-broker check <url> [--cookie -] [--origin <origin>] [--second-cookie -] [--expect-502]
      Probes the broker at <url> against each numbered rule of the broker contract
      (docs/broker-contract.md) and prints pass, FAIL or skip per rule; exits 1 if a rule fails.
        --cookie -       the Cookie header ("<name>=<value>") of a signed-in session, read from the
                         first line of stdin (the success rules need it); or set ${CHECK_ENV.cookie}
        --origin         an origin the broker allows (the CORS rules need it)
        --second-cookie -
                         another user's session: RFC 8693 brokers must give each user their own token;
                         read from the next line of stdin, or set ${CHECK_ENV.secondCookie}
        --expect-502     the broker's identity provider is made to fail: expect 502 { error }
      Recommended: ${CHECK_ENV.cookie}="<name>=<value>" in the environment, or --cookie - with the
      cookie on stdin (printf '%s\\n' "$COOKIE" | bioid-broker check <url> --cookie -).
      --cookie "<name>=<value>" still works, but a value on the command line is visible to other users
      of this machine (ps, /proc) and stays in your shell history: use it only on a machine of your own.
      Ends within 30 seconds.
      The variables:
${CHECK_VARIABLES_HELP}

  bioid-broker --help    this text

Exit status: 0 success, 1 a rule failed or the broker could not start, 2 wrong usage.
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === 'serve') return runServe(rest);
  if (command === 'check') return runCheck(rest);
  return usageError(`unknown command "${command.slice(0, 40)}"`);
}

async function runServe(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.length) return usageError('serve takes no arguments; it is configured by environment variables');
  const broker = await serve({ env: process.env });
  await new Promise<void>((resolve) => {
    const stop = (delayMs: number) => {
      // A second signal skips what is left of the delay; the drain of requests in flight still runs.
      broker.hurry();
      void broker.close({ delayMs }).then(resolve);
    };
    process.on('SIGTERM', () => stop(broker.shutdownDelayMs));
    process.on('SIGINT', () => stop(0));
  });
  return 0;
}

async function runCheck(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        cookie: { type: 'string' },
        origin: { type: 'string' },
        'second-cookie': { type: 'string' },
        'expect-502': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [url, ...extra] = parsed.positionals;
  if (!url || extra.length)
    return usageError('check takes one broker URL, for example bioid-broker check https://app.example.com/bioid/token');
  try {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error();
  } catch {
    return usageError(`"${url.slice(0, 100)}" is not an absolute http(s) URL`);
  }
  const origin = parsed.values.origin;
  if (origin !== undefined) {
    let ok = false;
    try {
      ok = new URL(origin).origin === origin;
    } catch {
      ok = false;
    }
    if (!ok)
      return usageError(`--origin must be an origin only (scheme://host[:port]), as a browser sends it; got "${origin.slice(0, 100)}"`);
  }
  let cookie: string | undefined;
  let secondCookie: string | undefined;
  try {
    const fromStdin = [parsed.values.cookie, parsed.values['second-cookie']].filter((value) => value === '-').length;
    const lines = fromStdin ? await readStdinLines(fromStdin) : [];
    cookie = cookieFrom(parsed.values.cookie, CHECK_ENV.cookie, lines, '--cookie');
    secondCookie = cookieFrom(parsed.values['second-cookie'], CHECK_ENV.secondCookie, lines, '--second-cookie');
  } catch (error) {
    return usageError((error as Error).message);
  }
  const options = {
    cookie,
    origin,
    secondCookie,
    expect502: parsed.values['expect-502'],
  };
  const results = await checkBroker(url, options);
  const { text, failed } = formatResults(url, results, options);
  process.stdout.write(`${text}\n`);
  return failed ? 1 : 0;
}

/**
 * A cookie for `check`: `-` takes the next line of stdin, a value is used as given, no option falls back
 * to the environment variable. Errors never echo a value.
 */
function cookieFrom(option: string | undefined, variable: string, stdinLines: string[], name: string): string | undefined {
  let value: string | undefined;
  if (option === '-') {
    value = stdinLines.shift();
    if (value === undefined || value.trim() === '') throw new Error(`${name} - reads the cookie from stdin, which gave no line for it`);
  } else {
    value = option ?? process.env[variable];
  }
  if (value === undefined || value.trim() === '') return undefined;
  if (/[\r\n]/.test(value))
    throw new Error(`${option === undefined ? variable : name} must be one line, a Cookie header such as "<name>=<value>"`);
  return value.trim();
}

/** The first `count` lines of stdin (a pipe or a terminal), at most 64 KB; stops reading once it has them. */
async function readStdinLines(count: number): Promise<string[]> {
  const lines: string[] = [];
  let buffer = '';
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) throw new Error(`stdin gave more than ${MAX_STDIN_BYTES >> 10} KB; give the cookie as one line`);
    buffer += (chunk as Buffer).toString('utf8');
    let end;
    while (lines.length < count && (end = buffer.indexOf('\n')) >= 0) {
      lines.push(buffer.slice(0, end).replace(/\r$/, ''));
      buffer = buffer.slice(end + 1);
    }
    if (lines.length >= count) break;
  }
  process.stdin.destroy();
  // The last line may end without a newline.
  if (lines.length < count && buffer !== '') lines.push(buffer.replace(/\r$/, ''));
  return lines;
}

function usageError(message: string): number {
  process.stderr.write(`bioid-broker: ${message}.\nRun bioid-broker --help for usage.\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (status) => {
    // `serve` has closed its server; `check` has nothing open. Exit explicitly so a keep-alive socket of a
    // probed broker cannot hold the process.
    setImmediate(() => process.exit(status));
  },
  (error: unknown) => {
    // Configuration errors name the variable; nothing else is expected here. Never print a stack with values.
    // A system error (EADDRINUSE on listen) names the address, which is no secret.
    const known = error instanceof BioIDError || error instanceof TypeError || typeof (error as NodeJS.ErrnoException)?.code === 'string';
    const message = known ? (error as Error).message : `unexpected failure (${error instanceof Error ? error.name : typeof error})`;
    process.stderr.write(`bioid-broker: ${message}\n`);
    process.exit(1);
  },
);
