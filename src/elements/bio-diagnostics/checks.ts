/**
 * The checks of `<bio-diagnostics>`: what support staff ask first, each found out through the core
 * (element → core → network; no fetch of its own). Each check ends in a row with its own status word
 * (docs/elements.md, `<bio-diagnostics>`):
 *  - ok: it works;
 *  - blocked: the browser stopped it: a withheld cookie (`cookie-blocked`), its local network access
 *    permission denied (`local-network-blocked`: nothing is sent), or a CORS refusal;
 *  - unreachable: nothing answered (network, timeout), or no fingerprint reader is plugged in;
 *  - refused: an answer that says no (401, 403, 5xx, a wrong payload), or a setting that is wrong.
 * A failed row keeps the core's code and message: diagnostics add no error codes.
 */
import { DEFAULT_READER_SERVICE_URL, httpUrlOr } from '../../core/config.js';
import { fetchStatus, pickTarget, testCapture, unlessBlocked, type LocalStatus, type TestCaptureResult } from '../../core/discovery.js';
import { BioIDError, messageOf, scrubServerText } from '../../core/errors.js';
import { joinPath, send, type FetchLike } from '../../core/http.js';
import { asBioIDError } from '../parts/events.js';
import { asText, type StringKey } from '../parts/localize.js';
import { failureKey } from '../parts/failure-key.js';
import { askMiddleware, middlewareBase } from '../parts/middleware-probe.js';
import { resolveUrl, timeoutOf, tokenSourceFor, type Settings } from '../parts/settings.js';

/** The rows, in the order shown and reported; each id is the row's name in the report. */
export const ROWS = ['local-service', 'test-capture', 'token-broker', 'middleware'] as const;
export type RowId = (typeof ROWS)[number];

export interface Row {
  status: 'checking' | 'ok' | 'blocked' | 'unreachable' | 'refused';
  /** What was found, as plain text: the workstation and its devices, a quality, an HTTP status. */
  found?: string;
  /** A failure: the core's code, the key of its localized summary, and the core's message (scrubbed). */
  code?: string;
  cause?: StringKey;
  message?: string;
}

/** docs/wire-contract.md: test-capture images are capped at 8 MiB (the data URL's length). */
const MAX_IMAGE_LENGTH = 8 * 1024 * 1024;

/**
 * Runs every check at once and reports each row as it settles; resolves when all have (never rejects).
 * `captured` receives a test capture whose image, if any, is a data:image/ URL within the cap.
 */
export async function runChecks(
  tag: string,
  s: Settings,
  report: (id: RowId, row: Row) => void,
  captured: (capture: TestCaptureResult) => void,
): Promise<void> {
  const timeoutMs = timeoutOf(s);
  /** One row: `url` is where it asks (a wrong setting throws there), `work` what it found. */
  const check = async (id: RowId, url: () => string, work: (url: string) => Promise<string | undefined>) => {
    let at: string | undefined;
    let row: Row;
    try {
      at = url();
      row = { status: 'ok', found: await work(at) };
    } catch (error) {
      row = await failure(error, at, timeoutMs);
    }
    report(id, row);
    return row;
  };

  const local = { localServiceUrl: '', timeoutMs };
  let status: LocalStatus | undefined;
  const localService = async () => {
    const row = await check(
      'local-service',
      () =>
        joinPath(
          (local.localServiceUrl = httpUrlOr(DEFAULT_READER_SERVICE_URL)(resolveUrl(s.localServiceUrl), 'local-service-url')),
          'status',
        ),
      async () => {
        status = await unlessBlocked(local.localServiceUrl, () => fetchStatus(local));
        const devices = status.devices
          .filter((d) => d.connected)
          .map((d) => `${asText(d.deviceId)}${d.model ? ` (${asText(d.model)})` : ''}`);
        return `${status.workstationId}: ${devices.join(', ')}`;
      },
    );
    // Without the local service there is nothing to capture with: the same cause.
    if (!status) return report('test-capture', row);
    const from = status;
    await check(
      'test-capture',
      () => joinPath(local.localServiceUrl, 'test-capture'),
      async () => {
        const capture = await testCapture(local, pickTarget(from, local.localServiceUrl).deviceId);
        if (typeof capture.image === 'string' && capture.image.length > MAX_IMAGE_LENGTH) {
          throw new BioIDError('local-service', "The test capture's image is larger than 8 MiB.");
        }
        captured(capture);
        return `quality ${asText(capture.quality)}`;
      },
    );
  };

  await Promise.all([
    localService(),
    // The token is dropped at once: it is never shown, kept or reported.
    check(
      'token-broker',
      () => resolveUrl(s.tokenEndpoint) ?? '',
      async () => void (await tokenSourceFor(tag, s).get()),
    ),
    // Without a token: any HTTP answer (a 401 included) means the middleware is there, which the row says in words.
    check(
      'middleware',
      () => middlewareBase(s),
      async (url) => `reachable (HTTP ${await askMiddleware(url, s)} without a token)`,
    ),
  ]);
}

/** The row of a failed check: its status word and the core's code and message. */
async function failure(error: unknown, url: string | undefined, timeoutMs: number): Promise<Row> {
  const e = asBioIDError(error);
  const known = e instanceof BioIDError;
  const code = known ? e.code : 'unknown';
  // The local service's and the broker's errors wrap the network's: look through them.
  const via = known && e.cause instanceof BioIDError ? e.cause.code : code;
  let status: Row['status'] = 'refused';
  let cause = failureKey(code);
  if (code === 'cookie-blocked' || code === 'local-network-blocked') status = 'blocked';
  else if (via === 'timeout' || code === 'no-device') status = 'unreachable';
  else if (via === 'network') {
    status = url && (await answersWithoutCors(url, timeoutMs)) ? 'blocked' : 'unreachable';
    if (status === 'blocked') cause = 'cors';
  } else if (code === 'session-expired' && (e as BioIDError).status === 403) cause = 'csrf';
  return { status, code, cause, message: scrubServerText(messageOf(e), 500) };
}

/**
 * A fetch fails alike whether the server is down or the browser refused to hand over its answer (CORS).
 * Asked again in `no-cors` mode (an unreadable answer; no custom header, no cookie for another origin),
 * a server that is there answers, so the first failure was the browser's refusal. `no-cors` cannot be
 * combined with `redirect: 'manual'`; a redirect may be followed here, as nothing secret is sent.
 */
async function answersWithoutCors(url: string, timeoutMs: number): Promise<boolean> {
  const noCors: FetchLike = (input, init) => fetch(input, { ...init, mode: 'no-cors', redirect: 'follow' });
  try {
    await send({ url, redirectIsReply: true }, { fetchImpl: noCors, timeoutMs, peer: 'the server' });
    return true;
  } catch {
    return false;
  }
}
