/**
 * `BioID` (spec 2.1, 2.2): one configured client of the middleware (bioid-core.ts), and on the server the
 * confirmation of a verification a browser posted (docs/core.md).
 */
import { BioIDCore } from './bioid-core.js';
import { confirmVerification, type ConfirmVerificationOptions, type ConfirmedVerification } from './confirm-verification.js';

export class BioID extends BioIDCore {
  /**
   * On your server: the middleware's record of `verificationId` (posted by a browser, so untrusted),
   * only when it exists, matched, names `subjectId` and is younger than `maxAgeMs` (default 120000).
   * Otherwise a `BioIDError` with code `verification-rejected`. Accept each id once in your own store.
   */
  confirmVerification(verificationId: string, options: ConfirmVerificationOptions): Promise<ConfirmedVerification> {
    return confirmVerification(this.middleware, verificationId, options);
  }
}
