// The base class of every element (see its JSDoc, which feeds custom-elements.json for every tag).
import { LitElement, type CSSResultGroup, type PropertyDeclarations } from 'lit';
import type { Translation } from './localize.js';
import { version } from '../version.js';
import { defineElement } from './define.js';
import { emit, type BioEventDetails } from './events.js';
import { LocalizeController } from './localize.js';
import { effectiveSettings, settingProperties, type Settings } from './settings.js';
import { baseStyles } from './styles.js';

/**
 * The base of every element: the settings every tag shares (one table, `settings.ts`), the SDK version
 * mark for the define guard, the shared styles, the localization controller, and `emit`.
 *
 * @attr middleware-url - The biometrics middleware (relative URLs resolve against the page). Required for operations (attribute or page default); `https:` unless its host is loopback (`localhost`, `127.0.0.0/8`, `[::1]`).
 * @attr token-endpoint - Your token broker (spec 4.1: GET, session cookie, `X-CSRF: 1`). Required for operations unless the `getToken` property is set.
 * @attr integrator-id - Sent as `X-Integrator-Id` on dispatch. Required unless your middleware's tokens are tenant-scoped (spec 2.3): without it such a middleware refuses enroll, verify and search (`bio-error` code `middleware`, `missing_integrator_id`).
 * @attr workstation-id - Pins the dispatch target's workstation; needs device-id too (half a pin is a `config` error). Pinned: the local service is never asked, no `/status` polling.
 * @attr device-id - Pins the device; needs workstation-id too.
 * @attr local-service-url - The local hardware service (default `http://localhost:18065`). An element that is not pinned and falls back to that default says so once per page with `console.warn`: whatever answers on that port would otherwise be used silently.
 * @attr timeout-ms - Bound on each network call, in milliseconds (default 15000).
 * @attr agent-id - The end user who acts (spec 5.8), sent with enroll, verify and search.
 * @attr lang - Language of the element's text (en, de, fr, es); else the nearest ancestor's, else the document's.
 * @attr theme - `light` or `dark`; without it the element follows the system's colour scheme (prefers-color-scheme).
 * @fires {BioErrorDetail} bio-error - On any failure, configuration errors included. detail `{ operation, code, message, status?, retryable }`.
 * @csspart base - The card (surface, border, padding). The element is 22em wide (at most its container's) whatever it shows; set `inline-size` on it for another width.
 * @csspart error - The technical detail of a failure.
 * @cssprop --bio-color - Text colour (light #1f1f1f, dark #e3e3e3).
 * @cssprop --bio-surface - Background of the card (light #fff, dark #1f1f1f); `transparent` for none.
 * @cssprop --bio-font - Font (default inherited).
 * @cssprop --bio-gap - Space between the parts.
 * @cssprop --bio-accent - Button, progress and idle glyph colour (light #0b57d0, dark #a8c7fa).
 * @cssprop --bio-on-accent - Button text colour (light #fff, dark #062e6f).
 * @cssprop --bio-radius - Button corner radius (default .375em).
 * @cssprop --bio-focus-ring - Focus outline (default 3px solid in the accent colour).
 * @cssprop --bio-error-color - Colour of failures (light #b3261e, dark #f2b8b5).
 * @cssprop --bio-success-color - Colour of successes (light #146c2e, dark #6dd58c).
 * @cssprop --bio-warning-color - Colour of a reader that is being looked for or has no device (#b06000).
 * @cssprop --bio-ready-color - Colour of a ready or pinned reader (default the success colour).
 * @cssprop --bio-muted-color - Colour of details (light #474747, dark #c4c7c5).
 */
export class BioElement extends LitElement {
  static readonly sdkVersion = version;
  static override styles: CSSResultGroup = baseStyles;
  static override properties: PropertyDeclarations = { ...settingProperties, strings: { attribute: false }, theme: { reflect: true } };

  /** Defines this class as `tag`, once: a second script copy or version never throws (define.ts). */
  static define(tag: string): void {
    defineElement(tag, this);
  }

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'lang'];
  }

  /** Address of the biometrics middleware; relative URLs resolve against the page. */
  declare middlewareUrl: string | undefined;
  /** URL of the integrator's token broker (GET, session cookie, X-CSRF: 1). */
  declare tokenEndpoint: string | undefined;
  /** Replaces token-endpoint: resolves to a middleware access token. */
  declare getToken: (() => string | Promise<string>) | undefined;
  /** Sent as X-Integrator-Id on dispatch. */
  declare integratorId: string | undefined;
  /** Pins the workstation (with device-id): no discovery through the local service. */
  declare workstationId: string | undefined;
  /** Pins the device (with workstation-id). */
  declare deviceId: string | undefined;
  /** The local hardware service; default http://localhost:18065. */
  declare localServiceUrl: string | undefined;
  /** Bound on each network call, in milliseconds; default 15000. */
  declare timeoutMs: number | undefined;
  /** Who acted (spec 5.8), sent with the operation. */
  declare agentId: string | undefined;
  /** The integrator's sign-in page, linked under a `session-expired` failure (operation elements). */
  declare loginUrl: string | undefined;
  /** Overrides of the built-in strings for this element. */
  declare strings: Partial<Translation> | undefined;
  /** `light` or `dark` (reflected to the `theme` attribute, which the styles read); unset follows the system. */
  declare theme: 'light' | 'dark' | undefined;

  protected readonly localize = new LocalizeController(this);

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (name === 'lang') this.requestUpdate();
    else super.attributeChangedCallback(name, old, value);
  }

  /** The settings in effect now: the element's own, else the page defaults. */
  protected settings(): Settings {
    return effectiveSettings(this);
  }

  /** Dispatches a bubbling, composed event; false when a listener cancelled it (only `bio-start` can be). */
  protected emit<K extends keyof BioEventDetails>(name: K, detail: BioEventDetails[K]): boolean {
    return emit(this, name, detail);
  }
}
