/**
 * A real OpenID provider (`oidc-provider`) shaped like the operator's identity provider of spec 4.2:
 * `/realms/<realm>/protocol/openid-connect/token` with `client_secret_post`, the client_credentials grant
 * and the RFC 8693 token exchange, issuing JWT access tokens for the audience `biometrics-middleware`
 * that verify against its JWKS. Used by the broker tests, the SDK's end-to-end tests and the demo.
 *
 * "The integrator's own IdP" of the token exchange is simulated by a key pair this module holds:
 * `userToken(sub)` signs end-user tokens with it, and the exchange grant accepts only tokens it signed
 * (the federation/trust the spec requires for the RFC 8693 variant).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, jwtVerify, type CryptoKey as JoseKey } from 'jose';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';

export interface IdpClientRegistration {
  clientId: string;
  clientSecret: string;
}

export interface StartIdpOptions {
  host?: string;
  port?: number;
  realm?: string;
  clients: IdpClientRegistration[];
  /** Seconds; default 300. */
  accessTokenTtl?: number;
  /** Default 'biometrics-middleware'. */
  audience?: string;
}

export interface RunningIdp {
  /** http://127.0.0.1:PORT: the "auth base address" (issuerUrl for the SDK and the broker). */
  baseUrl: string;
  realm: string;
  /** http://127.0.0.1:PORT/realms/<realm>: the `iss` of its JWTs. */
  issuer: string;
  /** .../realms/<realm>/protocol/openid-connect/token */
  tokenEndpoint: string;
  jwksUri: string;
  audience: string;
  /** How many requests reached the token endpoint so far (all grants). */
  readonly tokenRequests: number;
  /** A signed access token of "the integrator's own IdP" for end user `sub`, usable as an RFC 8693 subject_token. */
  userToken(sub: string): Promise<string>;
  close(): Promise<void>;
}

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const TOKEN_PATH = '/protocol/openid-connect/token';
const JWKS_PATH = '/protocol/openid-connect/certs';

export async function startIdp(options: StartIdpOptions): Promise<RunningIdp> {
  const host = options.host ?? '127.0.0.1';
  const realm = options.realm ?? 'bioid';
  const audience = options.audience ?? 'biometrics-middleware';
  const ttl = options.accessTokenTtl ?? 300;
  if (!Array.isArray(options.clients) || options.clients.length === 0) {
    throw new TypeError('startIdp: clients must list at least one { clientId, clientSecret }.');
  }
  // The resource indicator (RFC 8707) of the middleware; tokens for it carry aud = `audience`.
  const resource = `urn:${audience}`;

  const server = createServer();
  await listen(server, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host}:${port}`;
  const mountPath = `/realms/${encodeURIComponent(realm)}`;
  const issuer = `${baseUrl}${mountPath}`;

  // "The integrator's own IdP": its tokens are the subject tokens of the exchange.
  const integrator = await generateKeyPair('ES256');
  const integratorIssuer = `${baseUrl}/integrator-idp`;
  const signingKey = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = {
    ...(await exportJWK(signingKey.privateKey)),
    kid: `sig-${randomBytes(4).toString('hex')}`,
    use: 'sig',
    alg: 'RS256',
  };

  const resourceServer = { scope: 'biometrics', accessTokenFormat: 'jwt' as const, audience, accessTokenTTL: ttl };

  const provider = new Provider(issuer, {
    clients: options.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['client_credentials', TOKEN_EXCHANGE_GRANT],
      response_types: [],
      redirect_uris: [],
    })),
    clientAuthMethods: ['client_secret_post'],
    adapter: memoryAdapterFactory(),
    jwks: { keys: [signingJwk] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    routes: { token: TOKEN_PATH, jwks: JWKS_PATH },
    ttl: { ClientCredentials: ttl, AccessToken: ttl },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          return resourceServer;
        },
      },
    },
    // azp names the acting client on every token; exchanged tokens also say who acted (RFC 8693 `act`).
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string; gty?: string }) => ({
      azp: token.clientId,
      ...(token.gty === TOKEN_EXCHANGE_GRANT ? { act: { sub: token.clientId } } : {}),
    }),
  });

  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    async (ctx: KoaContextWithOIDC) => {
      const params = ctx.oidc.params as Record<string, string | undefined>;
      const client = ctx.oidc.client!;
      if (params.subject_token_type !== ACCESS_TOKEN_TYPE) {
        throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
      }
      if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
        throw new errors.InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
      }
      if (params.audience !== undefined && params.audience !== audience) {
        throw new errors.InvalidTarget(`unknown audience ${params.audience}`);
      }
      if (!params.subject_token) throw new errors.InvalidRequest('missing subject_token');
      let sub: string;
      try {
        const { payload } = await jwtVerify(params.subject_token, integrator.publicKey, { issuer: integratorIssuer });
        if (typeof payload.sub !== 'string' || payload.sub === '') throw new Error('no sub');
        sub = payload.sub;
      } catch {
        throw new errors.InvalidGrant('subject_token is invalid, expired or not from a trusted issuer');
      }
      const token = new provider.AccessToken({
        client,
        accountId: sub,
        gty: TOKEN_EXCHANGE_GRANT,
        scope: params.scope ? filterScope(params.scope, resourceServer.scope) : undefined,
      });
      token.resourceServer = new provider.ResourceServer(resource, resourceServer);
      const value = await token.save();
      ctx.body = {
        access_token: value,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: token.expiration,
        ...(token.scope ? { scope: token.scope } : {}),
      };
    },
    ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'scope', 'resource'],
  );

  // oidc-provider answers its own bugs with a bare `server_error`; say why, for whoever runs the simulator.
  provider.on('server_error', (_ctx, error) => console.error('simulated IdP: server_error', error));

  let tokenRequests = 0;
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (url === mountPath || url.startsWith(`${mountPath}/`) || url.startsWith(`${mountPath}?`)) {
      if (req.method === 'POST' && url.split('?')[0] === `${mountPath}${TOKEN_PATH}`) tokenRequests += 1;
      // Mount the provider under /realms/<realm>, as a framework's router would.
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = url;
      req.url = url.slice(mountPath.length) || '/';
      void callback(req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_found' }));
  });

  return {
    baseUrl,
    realm,
    issuer,
    tokenEndpoint: `${issuer}${TOKEN_PATH}`,
    jwksUri: `${issuer}${JWKS_PATH}`,
    audience,
    get tokenRequests() {
      return tokenRequests;
    },
    userToken: (sub: string) => signUserToken(integrator.privateKey, integratorIssuer, sub),
    close: () => close(server),
  };
}

function signUserToken(key: JoseKey, issuer: string, sub: string): Promise<string> {
  return new SignJWT({ scope: 'openid profile' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject(sub)
    .setAudience('integrator-app')
    .setIssuedAt()
    .setExpirationTime('10m')
    .setJti(randomBytes(8).toString('hex'))
    .sign(key);
}

type Stored = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; consumed?: number };

/**
 * Storage of this one IdP (the library's quick-start adapter is shared by every provider in the process
 * and warns on each start). Only what the token endpoint touches: opaque artifacts, grants, replay checks.
 */
function memoryAdapterFactory() {
  const store = new Map<string, { payload: Stored; expiresAt: number }>();
  const live = (key: string) => {
    const hit = store.get(key);
    if (hit && hit.expiresAt <= Date.now()) store.delete(key);
    return hit && hit.expiresAt > Date.now() ? hit.payload : undefined;
  };
  return (name: string) => {
    const key = (id: string) => `${name}:${id}`;
    return {
      async upsert(id: string, payload: Stored, expiresIn?: number) {
        store.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
      },
      async find(id: string) {
        return live(key(id));
      },
      async findByUid(uid: string) {
        for (const [k] of store) if (k.startsWith(`${name}:`) && live(k)?.uid === uid) return live(k);
        return undefined;
      },
      async findByUserCode(userCode: string) {
        for (const [k] of store) if (k.startsWith(`${name}:`) && live(k)?.userCode === userCode) return live(k);
        return undefined;
      },
      async consume(id: string) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id: string) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId: string) {
        for (const [k, v] of store) if (v.payload.grantId === grantId) store.delete(k);
      },
    };
  };
}

function filterScope(requested: string, allowed: string): string | undefined {
  const allow = new Set(allowed.split(' '));
  const kept = requested.split(' ').filter((s) => allow.has(s));
  return kept.length ? kept.join(' ') : undefined;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive sockets of clients would hold the port; a closed IdP must refuse at once.
    server.closeAllConnections();
  });
}
