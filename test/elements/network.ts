/**
 * The fake world of the element tests: `globalThis.fetch` replaced by test/support/fake-network.ts with
 * a token broker at a relative URL (/token on the test page's origin), a middleware and a local
 * hardware service. `restore()` puts the real fetch back (call it in afterEach).
 */
import { fakeNetwork, json } from '../support/fake-network.js';
import { clearBrokerTokens } from '../../src/index.js';

export const MIDDLEWARE = 'https://mw.example.test';
export const LOCAL = 'http://127.0.0.1:18065';
export const TOKEN_PATH = '/token';
/** Attributes for an element wired to the fake world. */
export const ATTRS = `middleware-url="${MIDDLEWARE}" token-endpoint="${TOKEN_PATH}" local-service-url="${LOCAL}" integrator-id="acme"`;

export type Net = ReturnType<typeof fakeNetwork>;

const realFetch = globalThis.fetch;

/**
 * Installs a fake network with the default routes (tokens are token-1, token-2, … in order of broker
 * calls). `override` adds routes after them: a later route for the same call wins.
 */
export function installNetwork(override?: (net: Net) => void): Net {
  clearBrokerTokens();
  const net = fakeNetwork();
  globalThis.fetch = net.fetch as typeof fetch;
  {
    net
      .on('GET', TOKEN_PATH, (_call, i) => json({ access_token: `token-${i + 1}`, expires_in: 300 }))
      .on('GET', `${LOCAL}/status`, () =>
        json({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', model: 'U.are.U', connected: true }] }),
      )
      .on('POST', `${MIDDLEWARE}/orchestrator/enroll`, (call) =>
        json({ subjectId: (call.body as { subjectId: string }).subjectId, enrollmentId: 'enr-1', quality: 88 }),
      )
      .on('POST', `${MIDDLEWARE}/orchestrator/verify`, (call) =>
        json({ subjectId: (call.body as { subjectId: string }).subjectId, match: true, score: 0.97, verificationId: 'ver-42' }),
      )
      .on('POST', `${MIDDLEWARE}/orchestrator/search`, () =>
        json({
          candidates: [
            { subjectId: 'alice', score: 0.91 },
            { subjectId: '<b>bob</b>', score: 0.4 },
          ],
          searchId: 's-1',
        }),
      )
      .on('GET', `${MIDDLEWARE}/biometrics/alice`, () =>
        json({ subjectId: 'alice', records: [{ enrollmentId: 'enr-1', createdAt: '2026-01-02T03:04:05Z', quality: 88 }] }),
      );
  }
  override?.(net);
  return net;
}

export function restoreNetwork(): void {
  globalThis.fetch = realFetch;
  clearBrokerTokens();
}

/** The visible text of an element's shadow root, whitespace collapsed. */
export function shadowText(el: Element): string {
  return (el.shadowRoot?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Everything a page could read about an element: its attributes, light and shadow DOM markup. */
export function everythingVisible(root: Element): string {
  const parts = [root.outerHTML];
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (el.shadowRoot) parts.push(el.shadowRoot.innerHTML);
  }
  return parts.join('\n');
}
