/**
 * `BioID` (spec 2.1, 2.2) without its server-side method: one configured client of the middleware.
 * Validates the whole configuration at construction and exposes `reader`, which shares its middleware
 * URL, auth, integrator id, fetch and timeout, with `readerServiceUrl` as its local service. The script
 * tag exposes this class as `window.BioIDSDK.BioID`: confirming a verification in a browser proves
 * nothing, so the page does not carry that code (`BioID` of `bioid-sdk` adds it, bioid.ts).
 */
import { getTokenSource, idpClientCredentialsSource, isBrowserLike } from './auth.js';
import type { TokenSource } from './token-source.js';
import { configError } from './errors.js';
import {
  DEFAULT_READER_SERVICE_URL,
  SHARED_OPTIONS,
  httpUrlOr,
  optionalIntegratorId,
  optionalString,
  passThrough,
  readOptions,
  readPin,
  requireObject,
  requireSecureUrl,
  requireString,
  type BioIDConfig,
  type IdpClientCredentialsAuth,
} from './config.js';
import type { FetchLike } from './http.js';
import type { MiddlewareContext } from './middleware.js';
import { newReader, type FingerprintReader } from './reader.js';

/** Spec 2.1, one table: each option's check and default. `auth` and the pin are read apart. */
const CONFIG_OPTIONS = {
  middlewareUrl: requireSecureUrl,
  auth: passThrough,
  integratorId: optionalIntegratorId,
  readerServiceUrl: httpUrlOr(DEFAULT_READER_SERVICE_URL),
  ...SHARED_OPTIONS,
};
const TOKEN_PROVIDER_OPTIONS = { type: passThrough, getToken: passThrough };
const IDP_OPTIONS = {
  type: passThrough,
  clientId: requireString,
  clientSecret: requireString,
  issuerUrl: (value: unknown, field: string) => {
    if (value === undefined) {
      throw configError(
        `${field} is required: the operator's default identity issuer is not published. Pass the identity provider's address (for example https://idp.example.com, or https://idp.example.com/realms/<realm>).`,
      );
    }
    return requireSecureUrl(value, field);
  },
  realm: optionalString,
  audience: optionalString,
  scope: optionalString,
  dangerouslyAllowBrowser: passThrough,
};

export class BioIDCore {
  /** The fingerprint reader of this instance (spec 2.3: needs no configuration of its own). */
  readonly reader: FingerprintReader;
  readonly middlewareUrl: string;
  readonly integratorId: string | undefined;
  readonly timeoutMs: number;
  readonly readerServiceUrl: string;
  protected readonly middleware: MiddlewareContext;

  constructor(config: BioIDConfig) {
    const pin = readPin(config, 'BioID');
    const c = readOptions(config, CONFIG_OPTIONS, 'BioID config');
    this.middlewareUrl = c.middlewareUrl;
    this.integratorId = c.integratorId;
    this.timeoutMs = c.timeoutMs;
    this.readerServiceUrl = c.readerServiceUrl;
    const tokens = this.tokenSource(c.auth, c.fetchImpl);
    this.reader = newReader(c, c.readerServiceUrl, tokens, pin);
    // Everything but auth: a secret kept on the instance would show in a logged `bio`.
    const { auth: _auth, ...options } = c;
    this.middleware = { ...options, tokens };
  }

  /** Stops the reader's polling and aborts its in-flight work. */
  close(): void {
    this.reader.close();
  }

  private tokenSource(value: unknown, fetchImpl: FetchLike | undefined): TokenSource {
    const type = (value as { type?: unknown } | null)?.type;
    if (type === 'tokenProvider') {
      const auth = readOptions(value, TOKEN_PROVIDER_OPTIONS, 'auth (tokenProvider)');
      const tokens = getTokenSource(auth.getToken, this.timeoutMs);
      if (!tokens) {
        throw configError(
          'auth.getToken is required: a function resolving to a middleware access token from your token broker, or brokerTokenSource(url).',
        );
      }
      return tokens;
    }
    if (type === 'idpClientCredentials') {
      const auth = readOptions(value, IDP_OPTIONS, 'auth (idpClientCredentials)', 'auth.');
      // Spec 5.5: the client secret must never reach a browser.
      if (isBrowserLike() && auth.dangerouslyAllowBrowser !== true) {
        throw configError(
          'auth.type "idpClientCredentials" embeds a client secret and must not run in a browser (spec 5.5). Use "tokenProvider" with a token broker on your server; a kiosk that accepts the risk sets dangerouslyAllowBrowser: true.',
        );
      }
      // Spec 5.4: tokens of this strategy are not tenant-scoped by the caller, so dispatch needs the tenant id.
      if (this.integratorId === undefined) {
        throw configError('integratorId is required when auth.type is "idpClientCredentials" (spec 5.4).');
      }
      const client = { ...auth, type: 'idpClientCredentials' as const } as IdpClientCredentialsAuth & { issuerUrl: string };
      // Builds the token endpoint now, so a missing realm fails here, not on first use.
      return idpClientCredentialsSource(client, { fetchImpl, timeoutMs: this.timeoutMs });
    }
    requireObject(value, 'auth (tokenProvider or idpClientCredentials)');
    throw configError(
      `auth.type must be "tokenProvider" (browsers) or "idpClientCredentials" (servers and kiosks); got ${JSON.stringify(type ?? null)}.`,
    );
  }
}
