/**
 * HTML of the demo pages, rendered on the server (escaped; no inline script except the kiosk's import
 * map, allowed by its hash in the CSP). Every page loads `/bioid-elements.js` as a classic script.
 */

/** Where the middleware, the local service and the tenant are: the same for every user. */
export interface Deployment {
  middlewareUrl: string;
  localServiceUrl: string;
  integratorId: string;
}

export interface PageContext extends Deployment {
  username: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The attributes every operation element gets: where the middleware, broker and local service are. */
export function elementAttributes(ctx: Deployment, pin?: { workstationId: string; deviceId: string }): string {
  const attributes: Array<[string, string]> = [
    ['middleware-url', ctx.middlewareUrl],
    ['token-endpoint', '/token'],
    ['integrator-id', ctx.integratorId],
    // A session that ends while the page is open gets a sign-in link that comes back here (return_to).
    ['login-url', '/signin'],
  ];
  if (pin) attributes.push(['workstation-id', pin.workstationId], ['device-id', pin.deviceId]);
  else attributes.push(['local-service-url', ctx.localServiceUrl]);
  return attributes.map(([name, value]) => `${name}="${escapeHtml(value)}"`).join(' ');
}

export const PAGES = [
  { path: '/plain', title: 'Plain HTML', summary: 'Every element on a static page with a live event log: the copy-paste starting point.' },
  {
    path: '/jquery',
    title: 'Legacy jQuery',
    summary: "jQuery from npm with delegated $(document).on('bio-result', …) handlers, as in an older app.",
  },
  {
    path: '/form',
    title: 'Server-rendered form',
    summary:
      'A classic form with <bio-verify name="verification" required>; the server confirms the verification with the middleware before accepting.',
  },
  {
    path: '/kiosk/',
    title: 'Kiosk',
    summary:
      'Pinned workstation and device (no local service polling), offline-ready through a service worker that never caches tokens or API replies.',
  },
  {
    path: '/embedded',
    title: 'In an iframe',
    summary:
      'The elements in an iframe of the page, as a CMS embeds them: the iframe delegates Local Network Access (allow="loopback-network; local-network-access").',
  },
  {
    path: '/diagnostics',
    title: 'Diagnostics',
    summary:
      '<bio-diagnostics>: the page support staff ask a user to open (local service, test capture, token broker, middleware, versions) and a report to copy.',
  },
] as const;

interface LayoutOptions {
  title: string;
  ctx: PageContext | undefined;
  body: string;
  scripts?: string[];
  head?: string;
  simulatorControls?: boolean;
}

export function layout(o: LayoutOptions): string {
  const nav = o.ctx
    ? `<nav aria-label="Demo pages"><a href="/">Overview</a>${PAGES.map((p) => `<a href="${p.path}">${escapeHtml(p.title)}</a>`).join('')}</nav>
       <form method="post" action="/signout" class="signout"><span>Signed in as <strong>${escapeHtml(o.ctx.username)}</strong></span><button type="submit">Sign out</button></form>`
    : '';
  const controls = o.simulatorControls && o.ctx ? simulatorControls(o.ctx) : '';
  // Every signed-in page runs common.js: its sign-out handler clears the page's broker tokens.
  const scripts = o.ctx ? [...new Set(['/demo-assets/common.js', ...(o.scripts ?? [])])] : (o.scripts ?? []);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)} · bioid-sdk demo</title>
<link rel="stylesheet" href="/demo-assets/demo.css">
${o.head ?? ''}
<script src="/bioid-elements.js" defer></script>
${scripts.map((s) => (s.startsWith('module:') ? `<script type="module" src="${escapeHtml(s.slice(7))}"></script>` : `<script src="${escapeHtml(s)}" defer></script>`)).join('\n')}
</head>
<body>
<header class="top"><strong class="brand">bioid-sdk demo</strong>${nav}</header>
${controls}
<main>
<h1>${escapeHtml(o.title)}</h1>
${o.body}
</main>
</body>
</html>`;
}

function simulatorControls(ctx: PageContext): string {
  return `<aside class="sim" id="simulator" data-local-service="${escapeHtml(ctx.localServiceUrl)}" aria-labelledby="sim-title">
  <h2 id="sim-title">Simulator</h2>
  <label>Finger on the sensor
    <select id="sim-finger"><option value="">(none)</option></select>
  </label>
  <label><input type="checkbox" id="sim-device" checked> Reader plugged in</label>
  <label><input type="checkbox" id="sim-online" checked> Workstation online</label>
  <button type="button" id="sim-test-capture">Test capture</button>
  <figure id="sim-capture" hidden><img id="sim-capture-image" alt="Captured fingerprint (synthetic)" width="160" height="200"><figcaption id="sim-capture-quality"></figcaption></figure>
  <p id="sim-message" role="status"></p>
</aside>`;
}

export function eventLog(): string {
  return `<section class="log" aria-labelledby="log-title"><h2 id="log-title">Event log</h2><ol id="event-log" aria-live="polite"></ol></section>`;
}

function subjectInput(value = 'alice'): string {
  return `<label class="subject">Subject id <input id="subject" name="subject" value="${escapeHtml(value)}" required autocomplete="off"></label>`;
}

export function overviewPage(ctx: PageContext): string {
  return layout({
    title: 'Overview',
    ctx,
    body: `<p>Each page uses the same simulated reader. Choose the finger on the sensor in the <em>Simulator</em> panel, then enroll, verify and search.</p>
<ul class="pages">${PAGES.map((p) => `<li><a href="${p.path}">${escapeHtml(p.title)}</a> — ${escapeHtml(p.summary)}</li>`).join('')}</ul>`,
  });
}

export function plainPage(ctx: PageContext): string {
  const attrs = elementAttributes(ctx);
  return layout({
    title: 'Plain HTML',
    ctx,
    simulatorControls: true,
    scripts: ['/demo-assets/common.js'],
    body: `<p>Plain <code>&lt;script src="/bioid-elements.js"&gt;</code> and the tags, configured by attributes. Every event is logged below.</p>
${allElements(attrs, 'ops')}`,
  });
}

export function jqueryPage(ctx: PageContext): string {
  const attrs = elementAttributes(ctx);
  return layout({
    title: 'Legacy jQuery',
    ctx,
    simulatorControls: true,
    scripts: ['/vendor/jquery.js', '/demo-assets/common.js', '/demo-assets/jquery-page.js'],
    body: `<p>jQuery from npm with delegated handlers: <code>$(document).on('bio-result', 'bio-verify', …)</code>.</p>
<bio-reader-status ${attrs}></bio-reader-status>
${subjectInput()}
<div class="ops">
  <bio-enroll ${attrs} subject-id="alice" data-subject></bio-enroll>
  <bio-verify ${attrs} subject-id="alice" data-subject></bio-verify>
  <bio-search ${attrs}></bio-search>
</div>
<p id="jquery-verdict" class="verdict" role="status"></p>
<table class="results"><thead><tr><th>Operation</th><th>Subject</th><th>Outcome</th></tr></thead><tbody id="jquery-results"></tbody></table>
${eventLog()}`,
  });
}

export function formPage(ctx: PageContext, state: { outcome?: { accepted: boolean; text: string } } = {}): string {
  const attrs = elementAttributes(ctx);
  const subject = escapeHtml(ctx.username); // the signed-in user's subject (server.ts subjectOf)
  const outcome = state.outcome
    ? `<p id="form-outcome" class="outcome ${state.outcome.accepted ? 'ok' : 'bad'}" role="alert">${escapeHtml(state.outcome.text)}</p>`
    : '';
  return layout({
    title: 'Server-rendered form',
    ctx,
    simulatorControls: true,
    scripts: ['/demo-assets/common.js'],
    body: `<p>A plain form. <code>&lt;bio-verify name="verification" required&gt;</code> is a form control: the form cannot be sent before a verification,
and the server confirms the posted verification id with the middleware before it accepts: a match, at most two minutes old, of the
signed-in user's own subject (<code>${subject}</code>), and each id once.</p>
<p class="hint">First time? Enroll your finger as <code>${subject}</code>: <bio-enroll ${attrs} subject-id="${subject}"></bio-enroll></p>
${outcome}
<form method="post" action="/form" id="approval-form">
  <p>Approving as <strong>${subject}</strong></p>
  <label>Amount to approve <input name="amount" value="250" inputmode="numeric"></label>
  <bio-verify ${attrs} subject-id="${subject}" name="verification" required></bio-verify>
  <button type="submit" id="form-submit">Approve</button>
</form>
${eventLog()}`,
  });
}

export const KIOSK_IMPORT_MAP = JSON.stringify({ imports: { 'workbox-window': '/vendor/workbox-window.js' } });

export function kioskPage(ctx: PageContext, pin: { workstationId: string; deviceId: string }): string {
  return layout({ title: 'Kiosk', ctx, simulatorControls: true, ...kioskParts(ctx, pin, '') });
}

/**
 * The kiosk's offline page, precached by its service worker and shown when the network fails. It is the
 * same for everyone and holds no user data (no name, no sign-out form): Cache Storage outlives a session.
 */
export function kioskOfflinePage(deployment: Deployment, pin: { workstationId: string; deviceId: string }): string {
  const offline = `<p id="kiosk-offline" role="status">Offline copy: the server cannot be reached. Reload when the network is back to sign in.</p>`;
  return layout({ title: 'Kiosk', ctx: undefined, ...kioskParts(deployment, pin, offline) });
}

function kioskParts(deployment: Deployment, pin: { workstationId: string; deviceId: string }, note: string) {
  return {
    head: `<script type="importmap">${KIOSK_IMPORT_MAP}</script>`,
    scripts: ['/demo-assets/common.js', 'module:/kiosk/kiosk.js'],
    body: `${note}<p>Pinned to workstation <code>${escapeHtml(pin.workstationId)}</code>, reader <code>${escapeHtml(pin.deviceId)}</code>: no discovery, no polling.
A service worker keeps the element bundle and an offline copy of this page (without anyone's session) available on a flaky network; tokens, API answers
and the signed-in page are never cached, and sign-out clears its caches.</p>
<p id="sw-state" role="status">Service worker: registering…</p>
${allElements(elementAttributes(deployment, pin), 'ops kiosk')}`,
  };
}

export function diagnosticsPage(ctx: PageContext): string {
  return layout({
    title: 'Diagnostics',
    ctx,
    simulatorControls: true,
    scripts: ['/demo-assets/common.js'],
    body: `<p>One tag with the same attributes as the others. Unplug the reader, take the workstation offline or sign out in another tab, then reload:
each row says what is wrong. "Copy report" copies a plain-text report for support, which never holds a token.</p>
<bio-diagnostics ${elementAttributes(ctx)}></bio-diagnostics>`,
  });
}

/**
 * The iframe's own `allow` is what lets Chromium ask the user for Local Network Access inside it; without
 * it the request is blocked whatever the user says (docs/cms.md, "The local hardware service").
 */
export const EMBED_ALLOW = 'loopback-network; local-network-access';

export function embeddedPage(ctx: PageContext): string {
  return layout({
    title: 'In an iframe',
    ctx,
    body: `<p>The page below is in an iframe, as a CMS or a portal embeds it. Chromium lets a page in an iframe reach this computer's
local service only when the iframe allows it, in the permission's new and old name: <code>allow="${escapeHtml(EMBED_ALLOW)}"</code>
(every level of nested iframes needs it). Serve both pages over https outside your own machine.</p>
<script src="/demo-assets/embedded.js"></script>
<iframe src="/embedded/frame" allow="${escapeHtml(EMBED_ALLOW)}" title="Verify, embedded" class="embedded" data-fit-content></iframe>`,
  });
}

/** What the iframe shows: the reader status and a verify, nothing around them. */
export function embeddedFramePage(ctx: PageContext): string {
  const attrs = elementAttributes(ctx);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Verify, embedded · bioid-sdk demo</title>
<link rel="stylesheet" href="/demo-assets/demo.css">
<script src="/bioid-elements.js" defer></script>
<script src="/demo-assets/frame-height.js" defer></script>
</head>
<body class="frame">
<bio-reader-status ${attrs}></bio-reader-status>
<bio-verify ${attrs} subject-id="alice"></bio-verify>
</body>
</html>`;
}

/** The four tags as a page author pastes them, with the subject field and the event log around them. */
function allElements(attrs: string, opsClass: string): string {
  return `<bio-reader-status ${attrs}></bio-reader-status>
${subjectInput()}
<div class="${opsClass}">
  <bio-enroll ${attrs} subject-id="alice" data-subject></bio-enroll>
  <bio-verify ${attrs} subject-id="alice" data-subject></bio-verify>
  <bio-search ${attrs}></bio-search>
</div>
${eventLog()}`;
}

/**
 * `credentials`: the demo's own, shown so a colleague can sign in without the terminal that printed them;
 * absent where the password was set (npm start shows only its printed defaults, demo/main.ts).
 */
export function signInPage(o: {
  next: string;
  error?: string;
  username?: string;
  credentials?: { username: string; password: string } | undefined;
}): string {
  const credentials = o.credentials
    ? `<p class="credentials">This demo's sign-in: user name <strong>${escapeHtml(o.credentials.username)}</strong>, password <strong>${escapeHtml(o.credentials.password)}</strong>.</p>`
    : '';
  return layout({
    title: 'Sign in',
    ctx: undefined,
    body: `<p>This session gates the token broker: signed out, <code>/token</code> answers 401.</p>
${credentials}
${o.error ? `<p class="outcome bad" role="alert">${escapeHtml(o.error)}</p>` : ''}
<form method="post" action="/signin" class="signin">
  <input type="hidden" name="next" value="${escapeHtml(o.next)}">
  <label>User name <input name="username" autocomplete="username" required value="${escapeHtml(o.username ?? '')}"></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>`,
  });
}
