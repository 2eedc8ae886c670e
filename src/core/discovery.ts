/**
 * The local hardware service (spec 4.3): discovery of the workstation and device to name on dispatch
 * (GET /status) and the test-capture diagnostic. Enroll, verify and search never come here (spec 9.1).
 */
import { isJsonObject, isLoopback } from './config.js';
import { BioIDError, sentence } from './errors.js';
import { describeReply, joinPath, send, type FetchLike, type Reply } from './http.js';

export interface LocalServiceContext {
  localServiceUrl: string;
  fetchImpl?: FetchLike | undefined;
  timeoutMs: number;
}

export interface DeviceInfo {
  deviceId: string;
  model?: string;
  /** False when the service says the device is unplugged; a device listed without the field counts as connected. */
  connected: boolean;
  [extra: string]: unknown;
}

/** The /status payload of the wire contract. */
export interface LocalStatus {
  workstationId: string;
  devices: DeviceInfo[];
  [extra: string]: unknown;
}

export interface TestCaptureResult {
  deviceId: string;
  quality: number;
  /** A data: URL of the captured image, when the service sends one. */
  image?: string;
  [extra: string]: unknown;
}

const PEER = 'the local hardware service';

/** A test capture answers with its image (docs/wire-contract.md), so it may be larger than other answers. */
export const MAX_CAPTURE_BYTES = 8 << 20;

export const unreachableAdvice =
  "Start the companion application on this workstation, allow the browser's local network access prompt if one appeared, or pin workstationId and deviceId.";

/**
 * The browser's permission for this page to reach the local service (Chromium's Local Network Access:
 * `loopback-network` since Chrome 145, `local-network-access` before), or undefined where it does not
 * apply: a browser without it (Firefox, WebKit, Node) or a page on loopback itself, which needs no
 * permission to reach loopback (Chromium still reports 'prompt' there). See docs/cms.md.
 */
export async function loopbackPermission(): Promise<PermissionStatus | undefined> {
  const permissions = typeof navigator === 'object' ? navigator.permissions : undefined;
  if (typeof permissions?.query !== 'function' || isLoopback(location.hostname)) return undefined;
  for (const name of ['loopback-network', 'local-network-access']) {
    try {
      return await permissions.query({ name: name as PermissionName });
    } catch (error) {
      if (!(error instanceof TypeError)) break; // a TypeError: the browser does not know this name
    }
  }
  return undefined;
}

/** The failure of a local service the browser does not let this page reach. */
export const blockedError = (url: string): BioIDError =>
  new BioIDError(
    'local-network-blocked',
    `The browser blocks this page from reaching the local hardware service at ${url}: allow local network access in the site settings, then reload.`,
  );

export async function fetchStatus(ctx: LocalServiceContext, signal?: AbortSignal): Promise<LocalStatus> {
  const reply = await callLocalService(ctx, { path: 'status', method: 'GET', signal });
  return parseStatus(reply.json, (what) => malformed(reply, what));
}

/**
 * `request` to the local service, unless the browser does not let this page reach it: `local-network-blocked`
 * when the permission is denied (nothing is sent), and when it is denied after the request failed. A user who
 * answers "Block" to the question the browser puts as the request goes out (while 'prompt') makes the request
 * fail as if nothing answered; the permission read again tells the two apart.
 */
export async function unlessBlocked<T>(localServiceUrl: string, request: () => Promise<T>): Promise<T> {
  const blocked = async () => {
    if ((await loopbackPermission())?.state === 'denied') throw blockedError(localServiceUrl);
  };
  await blocked();
  try {
    return await request();
  } catch (error) {
    await blocked();
    throw error;
  }
}

/** The dispatch target: the workstation and its first connected device that has an id a dispatch can name (docs/wire-contract.md: others are skipped). */
export function pickTarget(status: LocalStatus, localServiceUrl: string): { workstationId: string; deviceId: string } {
  const connected = status.devices.filter((d) => d.connected);
  const device = connected.find((d) => isId(d.deviceId));
  if (!connected.length) {
    throw new BioIDError(
      'no-device',
      `No fingerprint reader is connected to workstation ${status.workstationId} (reported by ${localServiceUrl}/status). Plug in the reader and try again.`,
    );
  }
  if (!device) {
    throw new BioIDError(
      'local-service',
      `The local hardware service at ${localServiceUrl}/status named a device whose deviceId is not ${ID_RULE}.`,
    );
  }
  return { workstationId: status.workstationId, deviceId: device.deviceId };
}

export async function testCapture(ctx: LocalServiceContext, deviceId: string, signal?: AbortSignal): Promise<TestCaptureResult> {
  const reply = await callLocalService(ctx, {
    path: 'test-capture',
    method: 'POST',
    body: { deviceId },
    signal,
    maxBytes: MAX_CAPTURE_BYTES,
  });
  const body = reply.json as Record<string, unknown> | undefined;
  if (!isJsonObject(body)) throw malformed(reply, 'expected a JSON object');
  // The image is shown on the page: only an image data URL is taken.
  if (body.image !== undefined && (typeof body.image !== 'string' || !/^data:image\//.test(body.image))) {
    throw malformed(reply, 'image must be a data:image/… URL');
  }
  return body as TestCaptureResult;
}

async function callLocalService(
  ctx: LocalServiceContext,
  call: { path: string; method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal | undefined; maxBytes?: number },
): Promise<Reply> {
  const url = joinPath(ctx.localServiceUrl, call.path);
  let reply: Reply;
  try {
    reply = await send(
      { url, method: call.method, body: call.body, headers: { Accept: 'application/json' }, maxBytes: call.maxBytes },
      { fetchImpl: ctx.fetchImpl, timeoutMs: ctx.timeoutMs, signal: call.signal, peer: PEER, badAnswerCode: 'local-service' },
    );
  } catch (error) {
    if (error instanceof BioIDError && (error.code === 'network' || error.code === 'timeout')) {
      throw new BioIDError(
        'local-service-unreachable',
        `${error.code === 'timeout' ? `The local hardware service at ${url} did not answer within ${ctx.timeoutMs} ms` : `Could not reach the local hardware service at ${url}`}. ${unreachableAdvice}`,
        { cause: error },
      );
    }
    throw error;
  }
  if (!reply.ok) {
    throw new BioIDError(
      'local-service',
      sentence(`The local hardware service at ${url} answered HTTP ${reply.status}: ${describeReply(reply)}`),
      {
        status: reply.status,
      },
    );
  }
  return reply;
}

/**
 * Tolerant reader of a /status answer (and of another tab's word for one): the SDK acts only on the
 * workstation id and the devices' ids and `connected` flags, so only those are checked; every other field
 * passes through. `fail` makes the error thrown from what is wrong.
 */
export function parseStatus(body: unknown, fail: (what: string) => Error): LocalStatus {
  if (!isJsonObject(body)) throw fail('expected a JSON object');
  const { workstationId, devices } = body;
  if (!isId(workstationId)) throw fail(`workstationId must be ${ID_RULE}`);
  if (!Array.isArray(devices)) throw fail('devices is not a list');
  const parsed: DeviceInfo[] = devices
    .filter((d): d is Record<string, unknown> => !!d && typeof d === 'object')
    .map((device) => ({ ...device, deviceId: device.deviceId as string, connected: device.connected !== false }));
  return { ...body, workstationId, devices: parsed };
}

const ID_RULE = 'a non-empty string of at most 256 printable characters';

/** An id from the local service that may be named in a dispatch. */
const isId = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 256 && /^[\x20-\x7E\u00A0-\uFFFF]+$/.test(value);

function malformed(reply: Reply, what: string): BioIDError {
  return new BioIDError(
    'local-service',
    `${sentence(`The local hardware service at ${reply.url} answered with an unexpected payload (${what}): ${describeReply(reply)}`)} Is something else listening on that port?`,
    { status: reply.status },
  );
}
