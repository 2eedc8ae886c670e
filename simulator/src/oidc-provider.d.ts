/**
 * The few parts of `oidc-provider` 9 (which ships no types) that the simulated IdP uses. Kept narrow on
 * purpose: only what `idp.ts` touches, typed as the library documents it.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcClient {
    clientId: string;
  }

  export interface KoaContextWithOIDC {
    oidc: {
      params?: Record<string, unknown>;
      client?: OidcClient;
    };
    body: unknown;
  }

  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
  }

  class ResourceServer {
    constructor(identifier: string, info: ResourceServerInfo);
  }

  class AccessToken {
    constructor(fields: { client: OidcClient; accountId: string; gty?: string; scope?: string | undefined });
    resourceServer: ResourceServer;
    scope?: string;
    readonly expiration: number;
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    readonly AccessToken: typeof AccessToken;
    readonly ResourceServer: typeof ResourceServer;
    registerGrantType(
      name: string,
      handler: (ctx: KoaContextWithOIDC) => Promise<void>,
      params?: string | string[] | Set<string>,
      dupes?: string | string[] | Set<string>,
    ): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  class OIDCProviderError extends Error {
    constructor(description?: string, detail?: string);
    error: string;
    error_description?: string;
    status: number;
  }

  export const errors: {
    InvalidGrant: typeof OIDCProviderError;
    InvalidRequest: typeof OIDCProviderError;
    InvalidTarget: typeof OIDCProviderError;
  };

  export default Provider;
}
