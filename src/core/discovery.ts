/**
 * The local hardware service (spec 4.3): discovery of the workstation and device to name on dispatch
 * (GET /status) and the test-capture diagnostic. Enroll, verify and search never come here (spec 9.1).
 */
import { BioIDError } from './errors.js';
import { describeReply, joinPath, send, type FetchLike, type Reply } from './http.js';

export interface LocalServiceContext {
  localServiceUrl: string;
  fetchImpl?: FetchLike | undefined;
  timeoutMs: number;
}

export interface DeviceInfo {
  deviceId: string;
  model?: string;
  connected: boolean;
}

/** The /status payload of the wire contract. */
export interface LocalStatus {
  workstationId: string;
  devices: DeviceInfo[];
}

export interface TestCaptureResult {
  deviceId: string;
  quality: number;
  /** A data: URL of the captured image, when the service sends one. */
  image?: string;
  [extra: string]: unknown;
}

const PEER = 'the local hardware service';

export const unreachableAdvice =
  'Start the companion application on this workstation, allow the browser\'s local network access prompt if one appeared, or pin workstationId and deviceId.';

export async function fetchStatus(ctx: LocalServiceContext, signal?: AbortSignal): Promise<LocalStatus> {
  const reply = await callLocalService(ctx, { path: 'status', method: 'GET', signal });
  return parseStatus(reply);
}

/** The dispatch target: the workstation and its first connected device. */
export function pickTarget(status: LocalStatus, localServiceUrl: string): { workstationId: string; deviceId: string } {
  const device = status.devices.find((d) => d.connected);
  if (!device) {
    throw new BioIDError(
      'no-device',
      `No fingerprint reader is connected to workstation ${status.workstationId} (reported by ${localServiceUrl}/status). Plug in the reader and try again.`,
    );
  }
  return { workstationId: status.workstationId, deviceId: device.deviceId };
}

export async function testCapture(ctx: LocalServiceContext, deviceId: string, signal?: AbortSignal): Promise<TestCaptureResult> {
  const reply = await callLocalService(ctx, { path: 'test-capture', method: 'POST', body: { deviceId }, signal });
  const body = reply.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || typeof body.quality !== 'number' || typeof body.deviceId !== 'string') {
    throw malformed(reply, 'expected { deviceId, quality, image? }');
  }
  if (body.image !== undefined && (typeof body.image !== 'string' || !/^data:image\//.test(body.image))) {
    throw malformed(reply, 'image must be a data:image/… URL');
  }
  return body as TestCaptureResult;
}

async function callLocalService(
  ctx: LocalServiceContext,
  call: { path: string; method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal | undefined },
): Promise<Reply> {
  const url = joinPath(ctx.localServiceUrl, call.path);
  let reply: Reply;
  try {
    reply = await send(
      { url, method: call.method, body: call.body, headers: { Accept: 'application/json' } },
      { fetchImpl: ctx.fetchImpl, timeoutMs: ctx.timeoutMs, signal: call.signal, peer: PEER },
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
    throw new BioIDError('local-service', `The local hardware service at ${url} answered HTTP ${reply.status}: ${describeReply(reply)}.`, {
      status: reply.status,
    });
  }
  return reply;
}

function parseStatus(reply: Reply): LocalStatus {
  const body = reply.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw malformed(reply, 'expected a JSON object');
  const { workstationId, devices } = body;
  if (typeof workstationId !== 'string' || workstationId === '') throw malformed(reply, 'workstationId is missing');
  if (!Array.isArray(devices)) throw malformed(reply, 'devices is not a list');
  const parsed: DeviceInfo[] = devices.map((d, i) => {
    const device = d as Record<string, unknown> | null;
    if (!device || typeof device !== 'object' || typeof device.deviceId !== 'string' || device.deviceId === '' || typeof device.connected !== 'boolean') {
      throw malformed(reply, `devices[${i}] needs a deviceId string and a connected boolean`);
    }
    return {
      deviceId: device.deviceId,
      connected: device.connected,
      ...(typeof device.model === 'string' ? { model: device.model } : {}),
    };
  });
  return { workstationId, devices: parsed };
}

function malformed(reply: Reply, what: string): BioIDError {
  return new BioIDError(
    'local-service',
    `The local hardware service at ${reply.url} answered with an unexpected payload (${what}): ${describeReply(reply)}. Is something else listening on that port?`,
    { status: reply.status, retryable: false },
  );
}
