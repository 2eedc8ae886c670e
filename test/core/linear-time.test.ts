/**
 * docs/security.md: text from a server (middleware, identity provider, local service, token broker) is
 * scrubbed and parsed in time linear in its size. A body is capped at 1 MiB, which bounds memory, not
 * CPU: each function that reads server text gets 1 MiB of the input that is worst for the patterns it
 * applies, and must answer well under a second.
 */
import { assert } from 'chai';
import { BioID, brokerTokenSource, clearBrokerTokens, createFingerprintReader } from '../../src/index.js';
import { scrubServerText } from '../../src/core/errors.js';
import { fakeNetwork, json, text } from '../support/fake-network.js';

const MiB = 1024 * 1024;
const MW = 'https://mw.example.com';
const LOCAL = 'http://localhost:18065';
const PIN = { workstationId: 'ws-1', deviceId: 'dev-1' };
/** Generous for a slow CI machine; a quadratic pattern takes seconds to minutes on these inputs. */
const BOUND_MS = 500;

/** 1 MiB (less a margin for JSON syntax) of `unit` repeated. */
const repeat = (unit: string, size = MiB - 256) => unit.repeat(Math.floor(size / unit.length));

/** Inputs that make backtracking patterns quadratic: many starts of a pattern that each fail late. */
const HOSTILE = {
  jwtStarts: repeat('eyJ'),
  jwtNoDot: `eyJ${repeat('a')}`,
  bearers: repeat('Bearer '),
  spaces: `x${repeat(' ')}x`,
  secrets: repeat('client_secret='),
  tees: repeat('T'),
  slashes: repeat('/'),
};

async function timed<T>(what: string, run: () => Promise<T> | T): Promise<T | unknown> {
  const started = performance.now();
  let result: T | unknown;
  try {
    result = await run();
  } catch (error) {
    result = error;
  }
  const elapsed = performance.now() - started;
  assert.isBelow(elapsed, BOUND_MS, `${what} took ${elapsed.toFixed(0)} ms`);
  return result;
}

describe('server text is read in linear time (1 MiB of worst-case input, bounded)', () => {
  beforeEach(clearBrokerTokens);

  for (const [name, input] of Object.entries(HOSTILE)) {
    it(`scrubServerText: ${name}`, async () => {
      const out = (await timed(name, () => scrubServerText(input))) as string;
      assert.isAtMost(out.length, 200);
    });

    it(`a middleware error body (text and JSON message): ${name}`, async () => {
      for (const answer of [() => text(input, 500), () => json({ error: 'x', message: input }, 500)]) {
        const net = fakeNetwork().on('POST', `${MW}/orchestrator/search`, answer);
        const reader = createFingerprintReader({ getToken: 'token-abcdefgh', middlewareUrl: MW, fetchImpl: net.fetch, ...PIN });
        const error = (await timed(name, () => reader.search())) as Error;
        assert.isAtMost(error.message.length, 1000);
      }
    });

    it(`a local service /status answer: ${name}`, async () => {
      for (const answer of [() => text(input, 500), () => json({ workstationId: input, devices: [{ deviceId: input, connected: true }] })]) {
        const net = fakeNetwork().on('GET', `${LOCAL}/status`, answer);
        const reader = createFingerprintReader({ getToken: 'token-abcdefgh', middlewareUrl: MW, localServiceUrl: LOCAL, fetchImpl: net.fetch });
        await timed(name, () => reader.target());
      }
    });

    it(`an identity provider's error: ${name}`, async () => {
      const issuer = 'https://idp.example.com/realms/r';
      const net = fakeNetwork().on('POST', `${issuer}/protocol/openid-connect/token`, () => json({ error: 'invalid_client', error_description: input }, 401));
      const sdk = new BioID({
        middlewareUrl: MW,
        // In the browsers too: this test is about the SDK's reading of the answer, not where it runs.
        auth: { type: 'idpClientCredentials', issuerUrl: issuer, clientId: 'c', clientSecret: 's3cr3t-value', dangerouslyAllowBrowser: true },
        integratorId: 'acme',
        fetchImpl: net.fetch,
        ...PIN,
      });
      await timed(name, () => sdk.reader.search());
    });

    it(`a token broker's answer: ${name}`, async () => {
      const realFetch = globalThis.fetch;
      const net = fakeNetwork().on('GET', 'https://app.example.com/token', () => text(input, 401));
      globalThis.fetch = net.fetch as typeof fetch;
      try {
        await timed(name, () => brokerTokenSource('https://app.example.com/token').get());
      } finally {
        globalThis.fetch = realFetch;
      }
    });

    it(`confirmVerification's record (createdAt, ids): ${name}`, async () => {
      const net = fakeNetwork().on('GET', `${MW}/verifications/v-1`, () =>
        json({ verificationId: 'v-1', subjectId: 'alice', match: true, createdAt: input }),
      );
      const sdk = new BioID({ middlewareUrl: MW, auth: { type: 'tokenProvider', getToken: async () => 'token-abcdefgh' }, fetchImpl: net.fetch });
      await timed(name, () => sdk.confirmVerification('v-1', { subjectId: 'alice' }));
    });
  }

  it('an answer with a list of 300,000 items is checked for an echoed token without overflowing the stack', async () => {
    const net = fakeNetwork().on('POST', `${MW}/orchestrator/search`, () => json({ candidates: [], trace: new Array(300_000).fill(0) }));
    const reader = createFingerprintReader({ getToken: 'token-abcdefgh', middlewareUrl: MW, fetchImpl: net.fetch, ...PIN });
    // Not timed: building and parsing 300,000 items is the engine's work; the check must only not throw.
    assert.deepInclude(await reader.search(), { candidates: [] });
  });
});
