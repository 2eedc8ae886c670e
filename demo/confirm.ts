/**
 * Server-side confirmation of a verification id posted by the browser (the server-rendered page). A
 * `match: true` seen in the browser is never proof: the integrator's server asks the middleware, with its
 * own client-credentials token (the core's token source and middleware call: one refresh and retry after
 * a 401, errors mapped), whether that
 * verification exists for this integrator, matched, and concerns the subject the form is about. Each id
 * is accepted once, so a captured id cannot be replayed.
 */
import { idpClientCredentialsSource } from '../src/core/auth.js';
import { BioIDError } from '../src/core/errors.js';
import { callMiddleware, type MiddlewareContext } from '../src/core/middleware.js';

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
  private readonly middleware: MiddlewareContext;
  private readonly used = new Set<string>();

  constructor(options: VerificationConfirmerOptions) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const tokens = idpClientCredentialsSource({ type: 'idpClientCredentials', ...options }, { timeoutMs });
    this.middleware = { middlewareUrl: options.middlewareUrl, tokens, timeoutMs };
  }

  async confirm(verificationId: unknown, subjectId: unknown): Promise<Confirmation> {
    if (typeof verificationId !== 'string' || verificationId === '') {
      return { accepted: false, reason: 'No verification was submitted: verify the fingerprint before sending the form.' };
    }
    if (!ID_PATTERN.test(verificationId)) return { accepted: false, reason: 'The submitted verification id is malformed.' };
    if (typeof subjectId !== 'string' || subjectId === '') return { accepted: false, reason: 'The form names no subject.' };
    if (this.used.has(verificationId)) return { accepted: false, reason: 'This verification was already used; verify again.' };

    let found: { subjectId?: unknown; match?: unknown; score?: unknown };
    try {
      found = await callMiddleware(this.middleware, { method: 'GET', path: `verifications/${encodeURIComponent(verificationId)}` });
    } catch (error) {
      if (error instanceof BioIDError && error.code === 'not-found') {
        return { accepted: false, reason: 'The middleware knows no such verification for this integrator.' };
      }
      throw error;
    }
    if (found.subjectId !== subjectId) return { accepted: false, reason: `That verification was for another subject, not "${subjectId}".` };
    if (found.match !== true) return { accepted: false, reason: 'The fingerprint did not match.' };
    this.used.add(verificationId);
    return { accepted: true, subjectId, score: Number(found.score), verificationId };
  }

}
