/** Standard routes and readers for the core tests, over the in-memory network. */
import { createFingerprintReader, type FingerprintReaderConfig } from '../../src/index.js';
import { fakeNetwork, json } from './fake-network.js';

export const MW = 'https://mw.example.com/api/v2';
export const LOCAL = 'http://localhost:18065';

export const STATUS = {
  workstationId: 'ws-7',
  devices: [
    { deviceId: 'dev-unplugged', model: 'U.are.U 4500', connected: false },
    { deviceId: 'dev-1', model: 'U.are.U 4500', connected: true },
  ],
};

/** A network with a local service answering STATUS and a middleware answering every operation. */
export function standardNetwork() {
  return fakeNetwork()
    .on('GET', `${LOCAL}/status`, () => json(STATUS))
    .on('POST', `${LOCAL}/test-capture`, (c) =>
      json({ deviceId: (c.body as { deviceId: string }).deviceId, quality: 87, image: 'data:image/png;base64,AAAA' }),
    )
    .on('POST', `${MW}/orchestrator/enroll`, (c) =>
      json({ subjectId: (c.body as { subjectId: string }).subjectId, enrollmentId: 'enr-1', quality: 80 }),
    )
    .on('POST', `${MW}/orchestrator/verify`, (c) =>
      json({ subjectId: (c.body as { subjectId: string }).subjectId, match: true, score: 0.97, verificationId: 'ver-1', extra: 'kept' }),
    )
    .on('POST', `${MW}/orchestrator/search`, () => json({ candidates: [{ subjectId: 'alice', score: 0.9 }], searchId: 'srch-1' }))
    .on('GET', `${MW}/biometrics/alice`, () =>
      json({ subjectId: 'alice', records: [{ enrollmentId: 'enr-1', createdAt: '2026-01-01T00:00:00Z' }] }),
    );
}

export type Network = ReturnType<typeof standardNetwork>;

/** A standalone reader over `net` whose getToken hands out token-1, token-2, … and counts calls. */
export function readerOver(net: Network, extra: Partial<FingerprintReaderConfig> = {}) {
  let issued = 0;
  const getToken = async () => `token-${++issued}`;
  const reader = createFingerprintReader({ getToken, middlewareUrl: MW, fetchImpl: net.fetch, ...extra });
  return { reader, tokensIssued: () => issued };
}
