/**
 * A page framed by another site (docs/cms.md, "Framed by another site"). There the browser withholds the
 * page's cookies from the requests it makes (SameSite, third-party cookie blocking), and a token broker on
 * the frame's own origin sees a same-origin request without a cookie: it cannot tell that from a user who
 * is signed out, so it cannot answer reason "no-cookie". A sign-in inside the frame would lead back to the
 * same refusal; the page in its own tab, or the frame with storage access, gets the cookie.
 */
import { ReaderAuthError, type BioIDError } from '../../core/errors.js';

/** True in a frame whose top-level page has another origin (reading its address throws). */
export function framedByOtherOrigin(): boolean {
  try {
    return !top!.location.href;
  } catch {
    return true;
  }
}

/** The failure of a refused token request in such a frame: `cookie-blocked`, pointing to the page that says what lets the cookie through. */
export const cookieWithheld = (tag: string, error: BioIDError): ReaderAuthError =>
  new ReaderAuthError(`<${tag}> in a frame of another site got no session cookie (docs/cms.md).`, {
    code: 'cookie-blocked',
    status: error.status,
  });
