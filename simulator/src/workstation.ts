/**
 * The simulated workstation: the machine with the fingerprint reader. It holds the state the demo lets
 * you change (which finger is on the sensor, whether the reader is plugged in, whether the workstation
 * is online for the orchestrator) and performs captures after a realistic delay.
 *
 * The local hardware service (`local-service.ts`) exposes it over HTTP: the public /status and
 * /test-capture of the wire contract, the /sim control API, and the /link channel the simulated
 * middleware's orchestrator uses to dispatch captures to it.
 */
import { captureTemplate, findFinger, FINGERS, type SyntheticFinger } from './fingers.js';

export interface SimulatedDevice {
  deviceId: string;
  model: string;
  connected: boolean;
}

export interface WorkstationOptions {
  workstationId?: string;
  devices?: Array<{ deviceId: string; model?: string; connected?: boolean }>;
  /** Finger on the sensor at start; `null` = none. Default: the first synthetic finger. */
  finger?: string | null;
  /** Capture delay in ms, a [min, max] range picked uniformly. Default [600, 1200]; tests use [0, 30]. */
  captureDelayMs?: [number, number];
}

export interface Capture {
  deviceId: string;
  quality: number;
  template: number[];
  fingerId: string;
}

/** A failure of the workstation that the HTTP layers turn into a JSON error with this status. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
    this.name = 'SimError';
  }
}

export const DEFAULT_WORKSTATION_ID = 'ws-demo-1';
export const DEFAULT_DEVICE_ID = 'reader-1';

export class SimulatedWorkstation {
  readonly workstationId: string;
  readonly devices: SimulatedDevice[];
  online = true;
  private fingerId: string | null;
  private readonly delay: [number, number];
  private captures = 0;

  constructor(options: WorkstationOptions = {}) {
    this.workstationId = options.workstationId ?? DEFAULT_WORKSTATION_ID;
    this.devices = (options.devices ?? [{ deviceId: DEFAULT_DEVICE_ID }]).map((d) => ({
      deviceId: d.deviceId,
      model: d.model ?? 'SimReader 500',
      connected: d.connected ?? true,
    }));
    this.fingerId = options.finger === undefined ? FINGERS[0]!.id : options.finger;
    this.delay = options.captureDelayMs ?? [600, 1200];
  }

  get finger(): SyntheticFinger | null {
    return this.fingerId === null ? null : (findFinger(this.fingerId) ?? null);
  }

  /** Puts a finger on the sensor (`null` lifts it). */
  setFinger(fingerId: string | null): void {
    if (fingerId !== null && !findFinger(fingerId)) {
      throw new SimError(
        400,
        'unknown_finger',
        `Unknown finger "${fingerId}"; choose one of ${FINGERS.map((f) => f.id).join(', ')} or null.`,
      );
    }
    this.fingerId = fingerId;
  }

  /** Plugs or unplugs a device (the first one when `deviceId` is omitted). */
  setDeviceConnected(connected: boolean, deviceId?: string): SimulatedDevice {
    const device = deviceId === undefined ? this.devices[0] : this.devices.find((d) => d.deviceId === deviceId);
    if (!device) throw new SimError(404, 'unknown_device', `No device "${deviceId}" on workstation ${this.workstationId}.`);
    device.connected = connected;
    return device;
  }

  status(): { workstationId: string; devices: SimulatedDevice[] } {
    return { workstationId: this.workstationId, devices: this.devices.map((d) => ({ ...d })) };
  }

  /** Reads the finger on the sensor of `deviceId`, after the configured delay. */
  async capture(deviceId: unknown, signal?: AbortSignal): Promise<Capture> {
    const device = this.requireDevice(deviceId);
    await sleep(this.delay[0] + Math.random() * (this.delay[1] - this.delay[0]), signal);
    // The state may change while the finger is being read (the demo's toggles): check again.
    if (!device.connected) throw disconnected(device.deviceId, this.workstationId);
    const finger = this.finger;
    if (!finger) {
      throw new SimError(
        422,
        'no_finger',
        `No finger was placed on reader ${device.deviceId}; choose a finger in the simulator controls and try again.`,
      );
    }
    this.captures += 1;
    return {
      deviceId: device.deviceId,
      quality: finger.quality,
      template: captureTemplate(finger.id, `${this.workstationId}:${this.captures}`),
      fingerId: finger.id,
    };
  }

  requireDevice(deviceId: unknown): SimulatedDevice {
    if (typeof deviceId !== 'string' || deviceId === '') {
      throw new SimError(400, 'bad_request', 'deviceId is required and must be a non-empty string.');
    }
    const device = this.devices.find((d) => d.deviceId === deviceId);
    if (!device) {
      throw new SimError(
        422,
        'unknown_device',
        `Device "${deviceId}" is not attached to workstation ${this.workstationId}; known devices: ${this.devices.map((d) => d.deviceId).join(', ')}.`,
      );
    }
    if (!device.connected) throw disconnected(device.deviceId, this.workstationId);
    return device;
  }
}

function disconnected(deviceId: string, workstationId: string): SimError {
  return new SimError(
    409,
    'device_disconnected',
    `Reader ${deviceId} on workstation ${workstationId} is unplugged; plug it in and try again.`,
  );
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
