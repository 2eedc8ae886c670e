/**
 * Spec 2.1 read strictly: integratorId is optional (null = not supplied, as for the pins), an empty one is
 * a config error that says so, and one no header can carry is refused at construction (docs/core.md).
 */
import { assert } from 'chai';
import { throwsError } from '../support/expect-error.js';
import { BioID, createFingerprintReader } from '../../src/index.js';
import { MW, standardNetwork } from '../support/sdk-fixtures.js';

const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };
const tokenProvider = { type: 'tokenProvider' as const, getToken: async () => 'tok' };
const bio = (integratorId: unknown, fetchImpl = standardNetwork().fetch) =>
  new BioID({ ...PIN, middlewareUrl: MW, fetchImpl, auth: tokenProvider, integratorId: integratorId as string });
const reader = (integratorId: unknown) =>
  createFingerprintReader({
    ...PIN,
    middlewareUrl: MW,
    getToken: 'tok',
    fetchImpl: standardNetwork().fetch,
    integratorId: integratorId as string,
  });
const configError = (message: RegExp) => ({ name: 'BioIDError', code: 'config', message });

describe('integratorId (spec 2.1, 4.4)', () => {
  it('spec 2.1: integratorId null is not supplied with tokenProvider: no error, no X-Integrator-Id header', async () => {
    const net = standardNetwork();
    const b = bio(null, net.fetch);
    assert.isUndefined(b.integratorId);
    await b.reader.verify({ subjectId: 'alice' });
    assert.isNull(net.callsTo(`${MW}/orchestrator/verify`)[0]!.headers.get('x-integrator-id'));
    assert.doesNotThrow(() => reader(null));
  });

  it('spec 2.1: an empty integratorId is a config error that says "empty", not "required"', () => {
    for (const make of [bio, reader]) {
      for (const value of ['', '   ']) {
        const error = throwsError(() => make(value), configError(/integratorId is empty/));
        assert.notMatch((error as Error).message, /required/);
      }
    }
  });

  it('spec 2.1: an integratorId that cannot be sent as a header is refused at construction as a config error naming integratorId', () => {
    for (const make of [bio, reader]) {
      for (const value of ['acme\r\nX-Evil: 1', 'acme\n', 'tenant\u00e9', 'tenant\u20ac', 'tab\there', 'nul\u0000', 42]) {
        throwsError(() => make(value), configError(/integratorId must be visible ASCII characters and spaces/));
      }
    }
  });

  it('spec 2.1: integratorId null with idpClientCredentials is still "required" (spec 5.4)', () => {
    const g = globalThis as Record<string, unknown>;
    const inBrowser = typeof window === 'object' && typeof document === 'object';
    if (!inBrowser) Object.assign(g, { window: {}, document: {} });
    try {
      const auth = {
        type: 'idpClientCredentials' as const,
        clientId: 'app',
        clientSecret: 'secret-value-1234',
        issuerUrl: 'https://idp.example.com',
        realm: 'acme',
        dangerouslyAllowBrowser: true,
      };
      throwsError(
        () => new BioID({ ...PIN, middlewareUrl: MW, auth, integratorId: null as unknown as string }),
        configError(/integratorId is required/),
      );
    } finally {
      if (!inBrowser) for (const name of ['window', 'document']) delete g[name];
    }
  });
});
