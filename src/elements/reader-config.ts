/**
 * From an element's attributes (over the page defaults) to what the core needs: absolute URLs, a
 * token source, and a `createFingerprintReader` configuration. Validation stays in the core; this
 * module only adds messages that speak the page author's language (attribute names).
 */
import { tokenProviderSource, type TokenSource } from '../core/auth.js';
import { DEFAULT_TIMEOUT_MS } from '../core/config.js';
import { BioIDError } from '../core/errors.js';
import { readerFrom, type FingerprintReader } from '../core/reader.js';
import { brokerTokenSource } from './broker-client.js';
import { checkPageConfig, pageConfig, resolveUrl, type BioIDElementsConfig } from './page-config.js';

export type ReaderSettings = Omit<BioIDElementsConfig, 'strings'>;

/** Lit declarations of the attributes every reader-building element has. */
export const readerProperties = {
  middlewareUrl: { attribute: 'middleware-url' },
  tokenEndpoint: { attribute: 'token-endpoint' },
  integratorId: { attribute: 'integrator-id' },
  workstationId: { attribute: 'workstation-id' },
  deviceId: { attribute: 'device-id' },
  localServiceUrl: { attribute: 'local-service-url' },
  timeoutMs: { attribute: 'timeout-ms', type: Number },
  agentId: { attribute: 'agent-id' },
  getToken: { attribute: false },
} as const;

const KEYS = Object.keys(readerProperties) as (keyof ReaderSettings)[];

/** The element's own values where set (an attribute removed reads as null), else the page default. */
export function effectiveSettings(el: Partial<Record<keyof ReaderSettings, unknown>>): ReaderSettings {
  const page = pageConfig();
  checkPageConfig(page);
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    const own = el[key];
    const value = own === null || own === undefined || own === '' ? page[key] : own;
    if (value !== undefined && value !== null && value !== '') out[key] = value;
  }
  return out as ReaderSettings;
}

const userSources = new WeakMap<object, TokenSource>();

/**
 * Where the element's tokens come from: its `getToken` property (wrapped by the core like any reader's
 * getToken, cached per function) or the page-wide cache of the broker at `token-endpoint`.
 */
export function tokenSourceFor(tag: string, s: ReaderSettings): TokenSource {
  const timeoutMs = typeof s.timeoutMs === 'number' && s.timeoutMs > 0 ? s.timeoutMs : DEFAULT_TIMEOUT_MS;
  if (typeof s.getToken === 'function') {
    let source = userSources.get(s.getToken);
    if (!source) userSources.set(s.getToken, (source = tokenProviderSource(s.getToken, timeoutMs)));
    return source;
  }
  const endpoint = resolveUrl(s.tokenEndpoint);
  if (!endpoint) {
    throw new BioIDError(
      'config',
      `<${tag}>: token-endpoint (your token broker's URL) or the getToken property is required.`,
    );
  }
  return brokerTokenSource(endpoint, timeoutMs);
}

/**
 * A core reader for these settings, its tokens from `tokens` (the page-wide broker cache or the
 * element's getToken). Throws the core's errors (a `TypeError` for half a pin, a config `BioIDError`
 * naming the field) for the element to report.
 */
export function buildReader(
  tag: string,
  s: ReaderSettings,
  tokens: TokenSource,
  options: { middlewareRequired?: boolean } = {},
): FingerprintReader {
  let middlewareUrl = resolveUrl(s.middlewareUrl);
  if (!middlewareUrl) {
    if (options.middlewareRequired !== false) {
      throw new BioIDError(
        'config',
        `<${tag}>: middleware-url (the biometrics middleware's address) is required.`,
      );
    }
    // Status watching never calls the middleware, but the core reader wants an address.
    middlewareUrl = new URL('/', document.baseURI).href;
  }
  return readerFrom(
    {
      middlewareUrl,
      integratorId: s.integratorId,
      localServiceUrl: resolveUrl(s.localServiceUrl),
      workstationId: s.workstationId,
      deviceId: s.deviceId,
      timeoutMs: s.timeoutMs,
    },
    `<${tag}>`,
    tokens,
  );
}

/** The token source of a reader that never calls the middleware (status watching). */
export const NO_TOKENS: TokenSource = {
  get: () => Promise.reject(new BioIDError('config', 'This reader only watches the local service.')),
  refresh: () => Promise.reject(new BioIDError('config', 'This reader only watches the local service.')),
};
