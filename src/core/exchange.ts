/**
 * The identity provider exchange of spec 4.2, written once and used by both the SDK's
 * `idpClientCredentials` strategy and the reference token broker (`bioid-sdk/broker`), including the
 * RFC 8693 token-exchange variant the broker offers.
 */
import { configError } from './errors.js';
import { realmOf } from './config.js';
import { joinPath, send, type FetchLike } from './http.js';
import { parseTokenResponse } from './token-response.js';

export const DEFAULT_AUDIENCE = 'biometrics-middleware';

export interface IdpClient {
  /** Base address of the identity provider, or its realm issuer (`https://idp/realms/acme`). */
  issuerUrl: string;
  realm?: string | undefined;
  clientId: string;
  clientSecret: string;
  audience?: string | undefined;
  scope?: string | undefined;
}

export interface ExchangeOptions {
  fetchImpl?: FetchLike | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * `{issuerUrl}/realms/{realm}/protocol/openid-connect/token` (spec 4.2). An `issuerUrl` that already ends
 * in `/realms/<name>` (the OpenID issuer identifier of such a provider) supplies the realm when `realm` is
 * absent. The operator's default issuer and realm are not published, so one of the two must name a realm.
 */
export function tokenEndpoint(issuerUrl: string, realm?: string): string {
  const named = realmOf(issuerUrl);
  if (named) {
    if (realm !== undefined && realm !== named.realm) {
      throw configError(`auth.realm "${realm}" contradicts the realm "${named.realm}" in auth.issuerUrl; give one of them.`);
    }
    return joinPath(named.root, `realms/${encodeURIComponent(named.realm)}/protocol/openid-connect/token`);
  }
  if (realm === undefined) {
    throw configError(
      "auth.realm is required: the operator's default realm is not published. Pass realm, or an issuerUrl ending in /realms/<realm>.",
    );
  }
  return joinPath(issuerUrl, `realms/${encodeURIComponent(realm)}/protocol/openid-connect/token`);
}

/** The form of the client_credentials grant (spec 4.2): grant_type, client_id, client_secret, audience, scope. */
export function clientCredentialsForm(client: IdpClient): URLSearchParams {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    audience: client.audience ?? DEFAULT_AUDIENCE,
  });
  if (client.scope) form.set('scope', client.scope);
  return form;
}

/** The form of an RFC 8693 token exchange: the end user's access token swapped for a middleware token. */
export function tokenExchangeForm(client: IdpClient, subjectToken: string): URLSearchParams {
  const form = new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    subject_token: subjectToken,
    subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    audience: client.audience ?? DEFAULT_AUDIENCE,
  });
  if (client.scope) form.set('scope', client.scope);
  return form;
}

/**
 * POSTs `form` to the token endpoint and returns the validated token. Failures are `ReaderAuthError`
 * (refused, garbage) or `BioIDError` timeout/network; messages name the endpoint and never the secret.
 */
export async function exchangeToken(endpoint: string, form: URLSearchParams, options: ExchangeOptions) {
  const reply = await send(
    { url: endpoint, method: 'POST', body: form, headers: { Accept: 'application/json' } },
    // An identity provider may quote what it was sent in its error text; those values never reach a message.
    { ...options, peer: 'the identity provider', secrets: [form.get('client_secret'), form.get('subject_token')] },
  );
  return parseTokenResponse(reply, `The identity provider at ${endpoint}`);
}
