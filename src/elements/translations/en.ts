/**
 * English: the source of every key. A translation is an `ElementStrings`, so the compiler catches a
 * missing, misspelt or extra key in any language (`<bio-diagnostics>`' own strings: src/elements/bio-diagnostics/diagnostics.ts).
 * Keys of failures are the `bio-error` codes they explain. `{name}` placeholders are filled with plain
 * text; nothing here is ever parsed as HTML.
 */
import type { DiagnosticsStrings } from './diagnostics.js';

export const en = {
  enroll: 'Enroll fingerprint',
  verify: 'Verify fingerprint',
  search: 'Identify fingerprint',
  fetchEnrolled: 'Show enrolled fingerprints',
  token: 'Signing in…',
  locating: 'Looking for the fingerprint reader…',
  dispatched: 'Sent to workstation {workstation}. Place your finger on the reader.',
  enrolled: 'Fingerprint enrolled.',
  match: 'Fingerprint verified.',
  noMatch: 'Fingerprint does not match.',
  candidates: 'Possible matches: {count}',
  noCandidates: 'No match found.',
  records: 'Enrolled fingerprints: {count}',
  noRecords: 'No enrolled fingerprints.',
  score: 'score {score}',
  quality: 'quality {quality}',
  required: 'Verify your fingerprint first.',
  // A failure on a card: a headline ({key}.title) and one sentence (the key itself) with the next step, for the
  // person at the reader. Never a URL, a status or a server's words: those stay in bio-error's detail.
  'session-expired.title': 'Session ended',
  'session-expired': 'Your session has ended. Sign in again.',
  'signInFirst.title': 'Sign-in needed',
  signInFirst: 'Sign in to continue.',
  // In a frame of another site whose sign-in cookie the browser withheld (src/elements/parts/frame.ts): a link to the page in a new tab.
  framed: 'Open this page in a new tab to sign in.',
  'auth.title': 'Sign-in failed',
  auth: 'Signing in to the fingerprint service failed. Try again, or ask your administrator.',
  'broker-unavailable.title': 'Sign-in unavailable',
  'broker-unavailable': 'Sign-in service unavailable. Try again later.',
  'cookie-blocked.title': 'Sign-in blocked',
  'cookie-blocked': 'The browser kept your sign-in from the fingerprint service. Ask your administrator.',
  'unauthorized.title': 'Sign-in not accepted',
  unauthorized: 'The fingerprint service did not accept your sign-in. Sign in again.',
  'forbidden.title': 'Not allowed',
  forbidden: 'You are not allowed to do this. Ask your administrator for access.',
  'not-found.title': 'Not found',
  'not-found': 'The person or the workstation was not found. Check them and try again.',
  'not-enrolled.title': 'Not enrolled',
  'not-enrolled': 'No fingerprint is enrolled for this person yet. Enroll the fingerprint first.',
  'verification-rejected.title': 'Verification expired',
  'verification-rejected': 'This verification is no longer valid. Verify the fingerprint again.',
  'config.title': 'Not set up',
  config: 'This component is not set up correctly. Ask your administrator.',
  'browser-too-old.title': 'Browser too old',
  'browser-too-old': 'This browser is too old. Update it.',
  'workstation-offline.title': 'Workstation offline',
  'workstation-offline': 'The workstation is offline. Switch it on or reconnect it; this clears once it is back.',
  'local-service-unreachable.title': 'Reader service not running',
  'local-service-unreachable': 'The fingerprint service on this computer is not reachable.',
  'local-network-blocked.title': 'Reader blocked',
  'local-network-blocked': 'The browser blocks this site from reaching the fingerprint service on this computer.',
  'no-device.title': 'No reader',
  'no-device': 'No fingerprint reader is connected. Plug one in.',
  'local-service.title': 'Reader problem',
  'local-service': 'The fingerprint reader reported a problem. Plug it in again and retry.',
  'middleware.title': 'Service problem',
  middleware: 'The fingerprint service could not do this now. Try again later.',
  'bad-response.title': 'Service problem',
  'bad-response': 'The fingerprint service gave an answer that could not be read. Try again later.',
  'timeout.title': 'No answer',
  timeout: 'The fingerprint service took too long to answer. Try again.',
  'network.title': 'No connection',
  network: 'Connection failed. Try again.',
  'aborted.title': 'Cancelled',
  aborted: 'The operation was stopped. Start it again.',
  'failed.title': 'Something went wrong',
  failed: 'The operation failed. Try again.',
  prompt: 'The browser asks before this site reaches the fingerprint reader on this computer.',
  connect: 'Connect to this computer’s reader',
  ready: 'Reader ready.',
  'status-error': 'The fingerprint service reported a problem.',
  pinned: 'Using the configured workstation and reader.',
  workstation: 'Workstation',
  device: 'Device',
  adviceStart: 'Start the fingerprint companion app on this computer.',
  advicePrompt: 'If the browser asks to allow access to your local network, allow it.',
  adviceBlocked: 'Allow local network access in the site settings (the icon before the address), then reload the page.',
  advicePin: 'Or ask your administrator to set this page to a fixed reader.',
  // The sign-in link of login-url.
  signIn: 'Sign in',
};

/** The strings the script carries from the start. */
export type ElementStrings = { [K in keyof typeof en]: string };
/** Every string of the elements, by key (a page may override any of them), <bio-diagnostics>' included. */
export type Translation = ElementStrings & DiagnosticsStrings;
export type StringKey = keyof Translation;
