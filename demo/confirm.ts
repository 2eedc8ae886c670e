/**
 * Server-side confirmation of a verification id posted by the browser (the server-rendered page). A
 * `match: true` seen in the browser is never proof: the integrator's server asks the middleware, with its
 * own client-credentials token (the core's one exchange implementation and token cache), whether that
 * verification exists for this integrator, matched, and concerns the subject the form is about. Each id
 * is accepted once, so a captured id cannot be replayed.
 */
import { BioIDError } from '../src/core/errors.js';
import { clientCredentialsForm, exchangeToken, tokenEndpoint } from '../src/core/exchange.js';
import { joinPath, send } from '../src/core/http.js';
import { TokenCache } from '../src/core/token-cache.js';

export interface VerificationConfirmerOptions {
  issuerUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  middlewareUrl: string;
  timeoutMs?: number;
}

export type Confirmation =
  | { accepted: true; subjectId: string; score: number; verificationId: string }
  | { accepted: false; reason: string };

const ID_PATTERN = /^[\w-]{1,100}$/;

export class VerificationConfirmer {
  private readonly tokens: TokenCache;
  private readonly used = new Set<string>();
  private readonly timeoutMs: number;

  constructor(private readonly options: VerificationConfirmerOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    const endpoint = tokenEndpoint(options.issuerUrl, options.realm);
    const form = clientCredentialsForm(options);
    this.tokens = new TokenCache(() => exchangeToken(endpoint, form, { timeoutMs: this.timeoutMs }));
  }

  async confirm(verificationId: unknown, subjectId: unknown): Promise<Confirmation> {
    if (typeof verificationId !== 'string' || verificationId === '') {
      return { accepted: false, reason: 'No verification was submitted: verify the fingerprint before sending the form.' };
    }
    if (!ID_PATTERN.test(verificationId)) return { accepted: false, reason: 'The submitted verification id is malformed.' };
    if (typeof subjectId !== 'string' || subjectId === '') return { accepted: false, reason: 'The form names no subject.' };
    if (this.used.has(verificationId)) return { accepted: false, reason: 'This verification was already used; verify again.' };

    const path = `verifications/${encodeURIComponent(verificationId)}`;
    let token = await this.tokens.get();
    let reply = await this.fetch(path, token);
    if (reply.status === 401) {
      token = await this.tokens.refresh(token);
      reply = await this.fetch(path, token);
    }
    if (reply.status === 404) return { accepted: false, reason: 'The middleware knows no such verification for this integrator.' };
    if (!reply.ok) throw new BioIDError('middleware', `The middleware answered HTTP ${reply.status} while confirming a verification.`, { status: reply.status });
    const found = reply.json as { subjectId?: unknown; match?: unknown; score?: unknown };
    if (found.subjectId !== subjectId) return { accepted: false, reason: `That verification was for another subject, not "${subjectId}".` };
    if (found.match !== true) return { accepted: false, reason: 'The fingerprint did not match.' };
    this.used.add(verificationId);
    return { accepted: true, subjectId, score: Number(found.score), verificationId };
  }

  private fetch(path: string, token: string) {
    return send(
      { url: joinPath(this.options.middlewareUrl, path), headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } },
      { timeoutMs: this.timeoutMs, peer: 'the middleware' },
    );
  }
}
