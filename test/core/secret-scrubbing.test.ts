/**
 * Spec 5.5 read strictly: no text the SDK surfaces holds a secret or token value it holds (the client
 * secret, the bearer token), whatever the syntax around it (docs/core.md, "Errors").
 */
import { assert } from 'chai';
import { rejectsWith } from '../support/expect-error.js';
import { BioID, ReaderAuthError } from '../../src/index.js';
import { json, text } from '../support/fake-network.js';
import { MW, readerOver, standardNetwork } from '../support/sdk-fixtures.js';

const IDP = 'https://idp.example.com';
const TOKEN_PATH = `${IDP}/realms/acme/protocol/openid-connect/token`;
const PIN = { workstationId: 'ws-7', deviceId: 'dev-1' };
// Opaque: no JWT shape, no "client_secret=" before it, so only knowing the value can find it.
const SECRET = 'Zq8vW2mPx4Lr9Tn6';
const inBrowser = typeof window === 'object' && typeof document === 'object';

function bioOver(fetchImpl: (url: string, init?: RequestInit) => Promise<Response>) {
  const g = globalThis as Record<string, unknown>;
  if (!inBrowser) Object.assign(g, { window: {}, document: {} });
  try {
    return new BioID({
      ...PIN,
      middlewareUrl: MW,
      integratorId: 'tenant-1',
      fetchImpl,
      auth: {
        type: 'idpClientCredentials',
        clientId: 'app',
        clientSecret: SECRET,
        issuerUrl: IDP,
        realm: 'acme',
        dangerouslyAllowBrowser: true,
      },
    });
  } finally {
    if (!inBrowser) for (const name of ['window', 'document']) delete g[name];
  }
}

const withoutSecret = (error: unknown) => {
  assert.instanceOf(error, Error);
  assert.notInclude((error as Error).message, SECRET);
  assert.notInclude((error as Error).message, SECRET.slice(0, 8));
  return true;
};

describe('no message holds a secret the SDK holds (spec 5.5)', () => {
  const quotes = {
    'a JSON error_description': () =>
      json({ error: 'invalid_client', error_description: `Client secret '${SECRET}' is not valid for app` }, 401),
    'a plain-text body': () => text(`bad credentials [${SECRET}] for client app`, 400),
    'a body with the secret in brackets and colons': () => text(`auth failed:secret<${SECRET}>:app`, 401),
    'an expires_in that quotes it': () => json({ access_token: 'opaque-token-value', expires_in: SECRET }),
  };
  for (const [what, answer] of Object.entries(quotes)) {
    it(`spec 5.5: an identity provider's error text that quotes the client secret (${what}) is scrubbed from ReaderAuthError.message`, async () => {
      const net = standardNetwork().on('POST', TOKEN_PATH, answer);
      const error = await rejectsWith(bioOver(net.fetch).reader.search(), ReaderAuthError);
      withoutSecret(error);
      assert.include((error as Error).message, '[redacted]');
    });
  }

  it('spec 5.5: a network failure whose text quotes the client secret is scrubbed from the message', async () => {
    const bio = bioOver(async () => {
      throw new TypeError(`connection reset while sending ${SECRET}`);
    });
    await rejectsWith(bio.reader.search(), (e: never) => withoutSecret(e) && (e as { code: string }).code === 'network');
  });

  it('spec 5.5: a middleware error text that quotes the bearer token, whatever the syntax, is scrubbed', async () => {
    const token = 'opaque.Tok|9f2c4a7b';
    const net = standardNetwork().on('POST', `${MW}/orchestrator/search`, () => text(`denied{${token}}`, 500));
    const { reader } = readerOver(net, { ...PIN, getToken: token });
    const error = await rejectsWith(reader.search(), { code: 'middleware' });
    assert.notInclude((error as Error).message, token);
  });
});
