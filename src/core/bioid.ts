/**
 * `BioID` (spec 2.1, 2.2): one configured client of the middleware. Validates the whole configuration
 * at construction and exposes `reader`, which shares its middleware URL, auth, integrator id, fetch and
 * timeout, with `readerServiceUrl` as its local service.
 */
import { idpClientCredentialsSource, isBrowserLike, tokenProviderSource, type TokenSource } from './auth.js';
import {
  DEFAULT_READER_SERVICE_URL,
  DEFAULT_TIMEOUT_MS,
  optionalFunction,
  optionalHttpUrl,
  optionalString,
  positiveMs,
  rejectUnknownKeys,
  requireHttpUrl,
  requireObject,
  requireString,
  type BioIDConfig,
  type IdpClientCredentialsAuth,
} from './config.js';
import { BioIDError } from './errors.js';
import { tokenEndpoint } from './exchange.js';
import type { FetchLike } from './http.js';
import { readerFrom, type FingerprintReader } from './reader.js';

const CONFIG_KEYS = ['middlewareUrl', 'auth', 'readerServiceUrl', 'integratorId', 'fetchImpl', 'timeoutMs', 'workstationId', 'deviceId', 'statusIntervalMs'] as const;
const TOKEN_PROVIDER_KEYS = ['type', 'getToken'] as const;
const IDP_KEYS = ['type', 'clientId', 'clientSecret', 'issuerUrl', 'realm', 'audience', 'scope', 'dangerouslyAllowBrowser'] as const;

export class BioID {
  /** The fingerprint reader of this instance (spec 2.3: needs no configuration of its own). */
  readonly reader: FingerprintReader;
  readonly middlewareUrl: string;
  readonly integratorId: string | undefined;
  readonly timeoutMs: number;
  readonly readerServiceUrl: string;

  constructor(config: BioIDConfig) {
    const { auth, readerServiceUrl, ...c } = requireObject(config, 'BioID config');
    rejectUnknownKeys(c, CONFIG_KEYS, 'BioID config');
    this.middlewareUrl = requireHttpUrl(c.middlewareUrl, 'middlewareUrl');
    this.integratorId = optionalString(c.integratorId, 'integratorId');
    this.timeoutMs = positiveMs(c.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS);
    this.readerServiceUrl = optionalHttpUrl(readerServiceUrl, 'readerServiceUrl', DEFAULT_READER_SERVICE_URL);
    const fetchImpl = optionalFunction<FetchLike>(c.fetchImpl, 'fetchImpl');
    // The rest of the configuration is a reader's (spec 2.3), read the one way readers are read.
    this.reader = readerFrom({ ...c, localServiceUrl: this.readerServiceUrl }, 'BioID', this.tokenSource(auth, fetchImpl));
  }

  /** Stops the reader's polling and aborts its in-flight work. */
  close(): void {
    this.reader.close();
  }

  private tokenSource(value: unknown, fetchImpl: FetchLike | undefined): TokenSource {
    const auth = requireObject(value, 'auth (tokenProvider or idpClientCredentials)');
    if (auth.type === 'tokenProvider') {
      rejectUnknownKeys(auth, TOKEN_PROVIDER_KEYS, 'auth (tokenProvider)');
      if (typeof auth.getToken !== 'function') {
        throw new BioIDError('config', 'auth.getToken is required: a function resolving to a middleware access token from your token broker.');
      }
      return tokenProviderSource(auth.getToken as () => Promise<string>, this.timeoutMs);
    }
    if (auth.type === 'idpClientCredentials') {
      rejectUnknownKeys(auth, IDP_KEYS, 'auth (idpClientCredentials)');
      return idpClientCredentialsSource(this.readIdpAuth(auth), { fetchImpl, timeoutMs: this.timeoutMs });
    }
    throw new BioIDError(
      'config',
      `auth.type must be "tokenProvider" (browsers) or "idpClientCredentials" (servers and kiosks); got ${JSON.stringify(auth.type ?? null)}.`,
    );
  }

  private readIdpAuth(auth: Record<string, unknown>): IdpClientCredentialsAuth & { issuerUrl: string } {
    // Spec 5.5: the client secret must never reach a browser.
    if (isBrowserLike() && auth.dangerouslyAllowBrowser !== true) {
      throw new BioIDError(
        'config',
        'auth.type "idpClientCredentials" embeds a client secret and must not run in a browser (spec 5.5). Use "tokenProvider" with a token broker on your server; a kiosk that accepts the risk sets dangerouslyAllowBrowser: true.',
      );
    }
    // Spec 5.4: tokens of this strategy are not tenant-scoped by the caller, so dispatch needs the tenant id.
    if (this.integratorId === undefined) {
      throw new BioIDError('config', 'integratorId is required when auth.type is "idpClientCredentials" (spec 5.4).');
    }
    const parsed = {
      type: 'idpClientCredentials' as const,
      clientId: requireString(auth.clientId, 'auth.clientId'),
      clientSecret: requireString(auth.clientSecret, 'auth.clientSecret'),
      issuerUrl: requireHttpUrlOrExplain(auth.issuerUrl),
      realm: optionalString(auth.realm, 'auth.realm'),
      audience: optionalString(auth.audience, 'auth.audience'),
      scope: optionalString(auth.scope, 'auth.scope'),
    };
    tokenEndpoint(parsed.issuerUrl, parsed.realm); // fails now, not on first use, when no realm is known
    return parsed;
  }
}

function requireHttpUrlOrExplain(value: unknown): string {
  if (value === undefined) {
    throw new BioIDError(
      'config',
      'auth.issuerUrl is required: the operator\'s default identity issuer is not published. Pass the identity provider\'s address (for example https://idp.example.com, or https://idp.example.com/realms/<realm>).',
    );
  }
  return requireHttpUrl(value, 'auth.issuerUrl');
}
