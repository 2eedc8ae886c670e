/**
 * English: the source of every key. A translation is an `ElementStrings`, so the compiler catches a
 * missing, misspelt or extra key in any language (`<bio-diagnostics>`' own strings: diagnostics.ts).
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
  required: 'Verify your fingerprint first.',
  'session-expired': 'Your session has ended. Sign in again.',
  signInFirst: 'Sign in to continue.',
  // In a frame of another site whose sign-in cookie the browser withheld (frame.ts): a link to the page in a new tab.
  framed: 'Open this page in a new tab to sign in.',
  'broker-unavailable': 'Sign-in service unavailable. Try again later.',
  'cookie-blocked': 'The browser sent no sign-in cookie to the token service on another site: host it on this site.',
  config: 'This component is not set up correctly.',
  'browser-too-old': 'This browser is too old. Update it.',
  'workstation-offline': 'The workstation is offline.',
  'local-service-unreachable': 'The fingerprint service on this computer is not reachable.',
  'local-network-blocked': 'The browser blocks this site from reaching the fingerprint service on this computer.',
  prompt: 'The browser asks before this site reaches the fingerprint reader on this computer.',
  connect: 'Connect to this computer’s reader',
  'no-device': 'No fingerprint reader is connected.',
  network: 'Connection failed. Try again.',
  failed: 'The operation failed.',
  ready: 'Reader ready.',
  'status-error': 'The fingerprint service reported a problem.',
  pinned: 'Using the configured workstation and reader.',
  workstation: 'Workstation',
  device: 'Device',
  adviceStart: 'Start the fingerprint companion app on this computer.',
  advicePrompt: 'If the browser asks to allow access to your local network, allow it.',
  adviceBlocked: 'Allow local network access in the site settings (the icon before the address), then reload the page.',
  advicePin: 'Or have workstation-id and device-id configured.',
  // The sign-in link of login-url.
  signIn: 'Sign in',
};

/** The strings the script carries from the start. */
export type ElementStrings = { [K in keyof typeof en]: string };
/** Every string of the elements, by key (a page may override any of them), <bio-diagnostics>' included. */
export type Translation = ElementStrings & DiagnosticsStrings;
export type StringKey = keyof Translation;
