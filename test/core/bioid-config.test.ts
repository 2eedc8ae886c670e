import { assert } from 'chai';
import { throwsError } from '../support/expect-error.js';
import {
  BioID,
  BioIDError,
  brokerTokenSource,
  clearBrokerTokens,
  createFingerprintReader,
  type BioIDConfig,
  type FingerprintReaderConfig,
} from '../../src/index.js';
import { fakeNetwork } from '../support/fake-network.js';

const getToken = async () => 'token-1';
const valid = { middlewareUrl: 'https://mw.example.com', auth: { type: 'tokenProvider' as const, getToken } };
const configError = (field: RegExp) => (e: unknown) => e instanceof BioIDError && e.code === 'config' && field.test(e.message);

describe('BioID configuration (spec 2.1, 2.2)', () => {
  it('spec 2.1: middlewareUrl is required and must be an absolute http(s) URL', () => {
    throwsError(() => new BioID({ ...valid, middlewareUrl: undefined as unknown as string }), configError(/middlewareUrl/));
    throwsError(() => new BioID({ ...valid, middlewareUrl: '/api' }), configError(/middlewareUrl is not an absolute URL/));
    throwsError(() => new BioID({ ...valid, middlewareUrl: 'ftp://mw' }), configError(/middlewareUrl must be an http/));
  });

  it('middlewareUrl and issuerUrl must be https unless the host is loopback; a config error names the option', () => {
    const idp = (issuerUrl: string) => ({
      type: 'idpClientCredentials' as const,
      clientId: 'c',
      clientSecret: 's',
      issuerUrl,
      realm: 'r',
      dangerouslyAllowBrowser: true,
    });
    const https = configError(/must be an https URL/);
    throwsError(() => new BioID({ ...valid, middlewareUrl: 'http://mw.example.com' }), configError(/^middlewareUrl must be an https URL/));
    throwsError(() => new BioID({ ...valid, middlewareUrl: 'http://10.0.0.5:8080/api' }), https);
    throwsError(
      () => new BioID({ ...valid, integratorId: 'acme', auth: idp('http://idp.example.com') }),
      configError(/^auth\.issuerUrl must be an https URL/),
    );
    throwsError(
      () => createFingerprintReader({ getToken: 't', middlewareUrl: 'http://mw.example.com' }),
      configError(/^createFingerprintReader: middlewareUrl must be an https URL/),
    );
    // Tricks that are not loopback: a name that merely starts with it, an address outside 127.0.0.0/8.
    for (const host of ['localhost.evil.example', '127.0.0.1.nip.io', '128.0.0.1', '[::2]']) {
      throwsError(() => createFingerprintReader({ getToken: 't', middlewareUrl: `http://${host}/` }), https, host);
    }
    // Loopback, where nothing crosses a network: http is fine (development, the demo, a local gateway).
    for (const url of [
      'http://localhost:18081',
      'http://127.0.0.1:9000/api',
      'http://127.8.9.10',
      'http://[::1]:8080',
      'http://LOCALHOST',
    ]) {
      assert.doesNotThrow(() => new BioID({ ...valid, middlewareUrl: url, integratorId: 'acme', auth: idp(url) }), url);
    }
    // Not for the local service (loopback http by nature, sent no token) nor the cookie call to the page's own broker.
    assert.doesNotThrow(() => new BioID({ ...valid, readerServiceUrl: 'http://ws-12.intranet:18065' }));
    assert.doesNotThrow(() =>
      createFingerprintReader({ getToken: 't', middlewareUrl: 'https://mw.example.com', localServiceUrl: 'http://ws-12.intranet:18065' }),
    );
    assert.doesNotThrow(() => brokerTokenSource('http://intranet.example/bioid/token'));
    clearBrokerTokens();
  });

  it('spec 2.1: defaults are timeoutMs 15000 and readerServiceUrl http://localhost:18065', () => {
    const bio = new BioID(valid);
    assert.strictEqual(bio.timeoutMs, 15000);
    assert.strictEqual(bio.readerServiceUrl, 'http://localhost:18065');
  });

  it('spec 2.1: an option set to null counts as not supplied: an optional one gets its default, a required one says it is required', () => {
    const bio = new BioID({
      ...valid,
      timeoutMs: null,
      readerServiceUrl: null,
      fetchImpl: null,
      statusIntervalMs: null,
    } as unknown as BioIDConfig);
    assert.strictEqual(bio.timeoutMs, 15000);
    assert.strictEqual(bio.readerServiceUrl, 'http://localhost:18065');
    throwsError(() => new BioID({ ...valid, middlewareUrl: null } as unknown as BioIDConfig), configError(/middlewareUrl is required/));
    const reader = createFingerprintReader({
      middlewareUrl: 'https://mw.example.com',
      getToken,
      localServiceUrl: null,
    } as unknown as FingerprintReaderConfig);
    assert.strictEqual(reader.pinned, false);
    throwsError(
      () => createFingerprintReader({ middlewareUrl: 'https://mw.example.com', getToken: null } as unknown as FingerprintReaderConfig),
      configError(/getToken is required/),
    );
  });

  it('spec 2.1: timeoutMs must be a positive number', () => {
    for (const bad of [0, -1, NaN, Infinity, '100']) {
      throwsError(() => new BioID({ ...valid, timeoutMs: bad as number }), configError(/timeoutMs/));
    }
  });

  it('spec 2.2: auth must be one of the two variants, naming the field', () => {
    throwsError(() => new BioID({ ...valid, auth: undefined as never }), configError(/auth/));
    throwsError(() => new BioID({ ...valid, auth: { type: 'password' } as never }), configError(/auth\.type/));
    throwsError(() => new BioID({ ...valid, auth: { type: 'tokenProvider' } as never }), configError(/auth\.getToken/));
  });

  it('an unknown option is an error that suggests the right name', () => {
    throwsError(
      () => new BioID({ ...valid, middlewareURL: 'x' } as never),
      configError(/unknown option "middlewareURL"; did you mean "middlewareUrl"/),
    );
  });

  it('spec 2.1: fetchImpl defaults to the global fetch, read at call time', async () => {
    const net = fakeNetwork().on(
      'GET',
      '/status',
      () => new Response('{"workstationId":"ws","devices":[{"deviceId":"d","connected":true}]}'),
    );
    const bio = new BioID(valid); // constructed before the global is replaced
    const original = globalThis.fetch;
    globalThis.fetch = net.fetch as typeof fetch;
    try {
      assert.deepStrictEqual(await bio.reader.target(), { workstationId: 'ws', deviceId: 'd' });
    } finally {
      globalThis.fetch = original;
    }
    assert.strictEqual(net.calls.length, 1);
  });
});
