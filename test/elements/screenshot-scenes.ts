/**
 * The scenes of the screenshot tests (test/elements/screenshots.node.test.ts): every state the elements
 * can show, each with the fake network that brings it about and the media features (colour scheme,
 * motion) it is pictured in. Plain data, loadable in Node; screenshot-page.ts shows them in Chromium.
 */
import { fakeNetwork, hang, json, refuse, type Handler } from '../support/fake-network.js';

const MW = 'https://mw.example.test';
export const LOCAL = 'http://127.0.0.1:18065';
// The broker has a fixed origin (the fake network answers it), so no test server port appears in a picture.
export const BROKER = 'https://app.example.test/token';
const ATTRS = `middleware-url="${MW}" token-endpoint="${BROKER}" local-service-url="${LOCAL}"`;

export type Net = ReturnType<typeof fakeNetwork>;
/** How a scene comes to rest: untouched, a finished operation, or one left waiting for the finger. */
export type Until = 'idle' | 'settled' | 'locating' | 'waiting' | 'diagnosed' | ReaderStatusState;
/** The states of <bio-reader-status> a scene may wait for (its bio-status event's `state`). */
export type ReaderStatusState = 'checking' | 'ready' | 'no-device' | 'pinned' | 'unreachable';

export interface Scene {
  name: string;
  /** Markup of the element; `<wrap>` attributes (dir, lang) go on its parent. */
  markup: string;
  wrap?: string;
  routes?: (net: Net) => void;
  until: Until;
  /** Chromium media features for this scene; default light, reduced motion (a still scan bar). */
  colorScheme?: 'light' | 'dark';
  motion?: 'reduce' | 'no-preference';
  /** For an animation: the moment (ms) at which it is frozen. */
  freezeAt?: number;
  /** The page's width in CSS px (default 420): 320 is the narrowest a page must hold (WCAG 1.4.10), 1280 a desktop. */
  width?: number;
}

const enroll = `<bio-enroll ${ATTRS} subject-id="alice"></bio-enroll>`;
const readerStatus = `<bio-reader-status local-service-url="${LOCAL}"></bio-reader-status>`;
const verify = (extra = '') => `<bio-verify ${ATTRS} subject-id="alice" ${extra}></bio-verify>`;
const route = (method: string, path: string, handler: Handler) => (net: Net) => net.on(method, path, handler);
const verifyAnswers = (handler: Handler) => route('POST', `${MW}/orchestrator/verify`, handler);
const offline = verifyAnswers(() => json({ error: 'workstation_offline', message: 'Target workstation is not currently live.' }, 503));

export const SCENES: Scene[] = [
  { name: 'verify-idle', markup: verify(), until: 'idle' },
  // Before the dispatch: the reader being located (its status not answered yet), the second of three steps.
  { name: 'verify-locating', markup: verify(), routes: route('GET', `${LOCAL}/status`, hang), until: 'locating' },
  { name: 'verify-waiting', markup: verify(), routes: verifyAnswers(hang), until: 'waiting' },
  {
    name: 'verify-waiting-animated',
    markup: verify(),
    routes: verifyAnswers(hang),
    until: 'waiting',
    motion: 'no-preference',
    freezeAt: 500,
  },
  { name: 'verify-match', markup: verify(), until: 'settled' },
  {
    name: 'verify-no-match',
    markup: verify(),
    routes: verifyAnswers(() => json({ subjectId: 'alice', match: false, score: 0.12, verificationId: 'ver-43' })),
    until: 'settled',
  },
  { name: 'enroll-idle', markup: enroll, until: 'idle' },
  { name: 'enroll-waiting', markup: enroll, routes: route('POST', `${MW}/orchestrator/enroll`, hang), until: 'waiting' },
  { name: 'enroll-done', markup: enroll, until: 'settled' },
  { name: 'search-idle', markup: `<bio-search ${ATTRS}></bio-search>`, until: 'idle' },
  { name: 'search-candidates', markup: `<bio-search ${ATTRS}></bio-search>`, until: 'settled' },
  {
    name: 'search-no-candidates',
    markup: `<bio-search ${ATTRS}></bio-search>`,
    routes: route('POST', `${MW}/orchestrator/search`, () => json({ candidates: [], searchId: 's-2' })),
    until: 'settled',
  },
  { name: 'enrolled-records', markup: `<bio-enrolled ${ATTRS} subject-id="alice"></bio-enrolled>`, until: 'settled' },
  {
    name: 'enrolled-none',
    markup: `<bio-enrolled ${ATTRS} subject-id="alice"></bio-enrolled>`,
    routes: route('GET', `${MW}/biometrics/alice`, () => json({ subjectId: 'alice', records: [] })),
    until: 'settled',
  },
  // One scene per error class: each localized summary the elements have.
  {
    name: 'error-session-expired',
    markup: verify(),
    routes: route('GET', BROKER, () => json({ error: 'no session' }, 401)),
    until: 'settled',
  },
  {
    name: 'error-session-expired-sign-in',
    markup: verify('login-url="https://app.example.test/signin?return_to=%2Fverify"'),
    routes: route('GET', BROKER, () => json({ error: 'no session' }, 401)),
    until: 'settled',
  },
  {
    name: 'error-cookie-blocked',
    markup: verify(),
    routes: route('GET', BROKER, () => json({ error: 'no session', reason: 'no-cookie' }, 401)),
    until: 'settled',
  },
  {
    name: 'error-broker-unavailable',
    markup: verify(),
    routes: route('GET', BROKER, () => json({ error: 'idp down' }, 502)),
    until: 'settled',
  },
  { name: 'error-config', markup: `<bio-verify ${ATTRS}></bio-verify>`, until: 'settled' },
  { name: 'error-workstation-offline', markup: verify(), routes: offline, until: 'settled' },
  { name: 'error-local-service-unreachable', markup: verify(), routes: route('GET', `${LOCAL}/status`, refuse), until: 'settled' },
  {
    name: 'error-no-device',
    markup: verify(),
    routes: route('GET', `${LOCAL}/status`, () => json({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: false }] })),
    until: 'settled',
  },
  { name: 'error-network', markup: verify(), routes: verifyAnswers(refuse), until: 'settled' },
  { name: 'error-failed', markup: verify(), routes: verifyAnswers(() => json({ error: 'internal' }, 500)), until: 'settled' },
  // Dark: through the system preference, and through the attribute on a page that prefers light.
  { name: 'dark-idle', markup: verify(), until: 'idle', colorScheme: 'dark' },
  { name: 'dark-waiting', markup: verify(), routes: verifyAnswers(hang), until: 'waiting', colorScheme: 'dark' },
  { name: 'dark-match', markup: verify('theme="dark"'), until: 'settled' },
  {
    name: 'dark-no-match',
    markup: verify('theme="dark"'),
    routes: verifyAnswers(() => json({ subjectId: 'alice', match: false, score: 0.12, verificationId: 'ver-43' })),
    until: 'settled',
  },
  { name: 'dark-error', markup: verify(), routes: offline, until: 'settled', colorScheme: 'dark' },
  {
    name: 'dark-session-expired-sign-in',
    markup: verify('login-url="https://app.example.test/signin"'),
    routes: route('GET', BROKER, () => json({ error: 'no session' }, 401)),
    until: 'settled',
    colorScheme: 'dark',
  },
  { name: 'light-attribute-on-dark-system', markup: verify('theme="light"'), until: 'settled', colorScheme: 'dark' },
  // Right to left: the glyph moves to the inline start (the right), the text aligns right.
  { name: 'rtl-waiting', markup: verify(), wrap: 'dir="rtl"', routes: verifyAnswers(hang), until: 'waiting' },
  { name: 'rtl-match', markup: verify(), wrap: 'dir="rtl"', until: 'settled' },
  // <bio-reader-status> shares the card and the palette.
  { name: 'reader-status-checking', markup: readerStatus, routes: route('GET', `${LOCAL}/status`, hang), until: 'checking' },
  { name: 'reader-status-ready', markup: readerStatus, until: 'ready' },
  {
    name: 'reader-status-no-device',
    markup: readerStatus,
    routes: route('GET', `${LOCAL}/status`, () => json({ workstationId: 'ws-7', devices: [{ deviceId: 'dev-1', connected: false }] })),
    until: 'no-device',
  },
  {
    name: 'reader-status-pinned',
    markup: `<bio-reader-status local-service-url="${LOCAL}" workstation-id="ws-7" device-id="dev-1"></bio-reader-status>`,
    until: 'pinned',
  },
  {
    name: 'reader-status-unreachable',
    markup: readerStatus,
    routes: route('GET', `${LOCAL}/status`, refuse),
    until: 'unreachable',
  },
  // <bio-diagnostics> too (its browser row reads the user agent, which the test fixes), on a phone and a desktop, in both themes.
  diagnostics('diagnostics'),
  diagnostics('diagnostics-failing', { routes: diagnosticsFailing }),
  diagnostics('diagnostics-320', { width: 320 }),
  // A long status word ("unreachable") leaves its finding too little room beside it: the finding goes below.
  diagnostics('diagnostics-failing-320', { width: 320, routes: diagnosticsFailing }),
  diagnostics('diagnostics-320-dark', { width: 320, colorScheme: 'dark' }),
  diagnostics('diagnostics-desktop', { width: 1280 }),
  diagnostics('diagnostics-desktop-dark', { width: 1280, colorScheme: 'dark' }),
];

/**
 * The scenes that picture a state of an element, each once: not the variants of one (another theme, width,
 * direction or moment of its animation). The state sheets of `npm run screenshot -- --states` show each of
 * these in both themes, at 320 px and on a desktop.
 */
export const STATES: Scene[] = SCENES.filter(
  (s) => !s.colorScheme && !s.width && !s.wrap && s.freezeAt === undefined && !s.markup.includes(' theme='),
);

/** <bio-diagnostics> where neither the local service nor the middleware answers. */
function diagnosticsFailing(net: Net): void {
  net.on('GET', `${LOCAL}/status`, refuse);
  net.on('GET', `${MW}/`, refuse);
}

/** A <bio-diagnostics> scene: every check answered, a test capture with its image, the middleware there without a token (401). */
function diagnostics(name: string, extra: Partial<Scene> = {}): Scene {
  return {
    name,
    markup: `<bio-diagnostics ${ATTRS}></bio-diagnostics>`,
    routes: (net) => {
      net.on('POST', `${LOCAL}/test-capture`, () => json({ deviceId: 'dev-1', quality: 92, image: CAPTURE }));
      net.on('GET', `${MW}/`, () => json({}, 401));
    },
    until: 'diagnosed',
    ...extra,
  };
}

/** The network every scene starts from (a scene's own routes win): a broker, a ready reader, a matching finger. */
/** A drawn stand-in for a test capture's image (an SVG data URL: the same pixels on every machine). */
const CAPTURE = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" fill="#ddd"/><g fill="none" stroke="#555" stroke-width="2"><circle cx="20" cy="22" r="4"/><circle cx="20" cy="22" r="9"/><circle cx="20" cy="22" r="14"/></g></svg>',
)}`;

export function defaultRoutes(net: Net): void {
  net
    .on('GET', BROKER, () => json({ access_token: 'token-1', expires_in: 300 }))
    .on('GET', `${LOCAL}/status`, () => json({ workstationId: 'ws-demo-1', devices: [{ deviceId: 'dev-1', connected: true }] }))
    .on('POST', `${MW}/orchestrator/enroll`, () => json({ subjectId: 'alice', enrollmentId: 'enr-1', quality: 88 }))
    .on('POST', `${MW}/orchestrator/verify`, () => json({ subjectId: 'alice', match: true, score: 0.97, verificationId: 'ver-42' }))
    .on('POST', `${MW}/orchestrator/search`, () =>
      json({
        candidates: [
          { subjectId: 'alice', score: 0.91 },
          { subjectId: 'bob', score: 0.4 },
        ],
        searchId: 's-1',
      }),
    )
    .on('GET', `${MW}/biometrics/alice`, () =>
      json({ subjectId: 'alice', records: [{ enrollmentId: 'enr-1', createdAt: '2026-01-02T03:04:05Z', quality: 88 }] }),
    );
}
