/**
 * Server-side confirmation of a verification id posted by the browser (the server-rendered form), with
 * the package's public core only (`bioid-sdk`: `BioID` with `idpClientCredentials` and
 * `confirmVerification`), as an integrator's server would do it. A `match: true` seen in the browser is
 * never proof; the middleware's record is, when it matched, is recent, and is about the subject of the
 * signed-in user (never a subject the form names). Each id is accepted once: it is reserved before
 * anything is awaited, so parallel posts of one id cannot all pass the check.
 */
import { BioID, BioIDError, type FetchLike } from '../src/index.js'; // the `bioid-sdk` entry, run from source

export interface VerificationConfirmerOptions {
  issuerUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  middlewareUrl: string;
  timeoutMs?: number;
  /** How old a verification may be when posted; default 120000 (the core's default). */
  maxAgeMs?: number;
  /** Tests: the fetch the SDK uses (a middleware outage). */
  fetchImpl?: FetchLike;
}

export type Confirmation =
  { accepted: true; subjectId: string; score: unknown; verificationId: string } | { accepted: false; reason: string };

const DEFAULT_MAX_AGE_MS = 120_000;
/**
 * How long an accepted id is remembered beyond maxAgeMs: longer than the core still accepts it (its age
 * check allows a few seconds of clock skew), so forgetting it never lets it through again.
 */
const REMEMBER_BEYOND_MS = 60_000;

export class VerificationConfirmer {
  private readonly bio: BioID;
  private readonly maxAgeMs: number;
  /** Ids accepted or being checked right now -> when they may be forgotten (ms since the epoch). */
  private readonly reserved = new Map<string, number>();

  constructor(options: VerificationConfirmerOptions) {
    const { issuerUrl, realm, clientId, clientSecret, middlewareUrl, timeoutMs = 10_000, fetchImpl } = options;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.bio = new BioID({
      middlewareUrl,
      integratorId: clientId, // the demo's tenant id is its IdP client id
      timeoutMs,
      ...(fetchImpl ? { fetchImpl } : {}),
      auth: { type: 'idpClientCredentials', issuerUrl, realm, clientId, clientSecret },
    });
  }

  /** Confirms `verificationId` for `subjectId`, the signed-in user's subject (from the session, not the form). */
  async confirm(verificationId: unknown, subjectId: string): Promise<Confirmation> {
    if (typeof verificationId !== 'string' || verificationId === '') {
      return { accepted: false, reason: 'No verification was submitted: verify the fingerprint before sending the form.' };
    }
    this.forgetOld();
    // Reserve first, in the same synchronous step as the check: no await between them, so of ten
    // parallel posts of one id exactly one gets past this line.
    if (this.reserved.has(verificationId)) return { accepted: false, reason: 'This verification was already used; verify again.' };
    this.reserved.set(verificationId, Date.now() + this.maxAgeMs + REMEMBER_BEYOND_MS);
    try {
      const record = await this.bio.confirmVerification(verificationId, { subjectId, maxAgeMs: this.maxAgeMs });
      return { accepted: true, subjectId: record.subjectId, score: record.score, verificationId };
    } catch (error) {
      // Not accepted, so the reservation is released: an id that was refused stays refused by the
      // middleware's answer anyway, and releasing it means someone who posts another user's id cannot
      // burn it for its owner, and a real id survives a middleware outage for a retry.
      this.reserved.delete(verificationId);
      if (error instanceof BioIDError && error.code === 'verification-rejected') return { accepted: false, reason: error.message };
      throw error;
    }
  }

  close(): void {
    this.bio.close();
  }

  /** Accepted ids older than the core would accept anyway are forgotten, so memory stays bounded. */
  private forgetOld(): void {
    const now = Date.now();
    for (const [id, until] of this.reserved) if (until <= now) this.reserved.delete(id);
  }
}
