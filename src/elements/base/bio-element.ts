// The base class of every element (see its JSDoc, which feeds custom-elements.json for every tag).
import { LitElement, type CSSResultGroup, type PropertyDeclarations, type PropertyValues } from 'lit';
import type { Translation } from '../parts/localize.js';
import { version } from '../../version.js';
import { keywordAttribute } from '../parts/attributes.js';
import { defineElement } from '../define.js';
import { emit, type BioEventDetails } from '../parts/events.js';
import { LocalizeController } from '../parts/localize.js';
import { effectiveSettings, settingProperties, type Settings } from '../parts/settings.js';
import { schemeOf } from '../parts/scheme.js';
import { baseStyles } from '../parts/styles.js';
import { turn } from '../parts/turn.js';

// The settings' typed properties (declaration merging: Lit creates their accessors from settingProperties).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- the settings typed on the class
export interface BioElement extends Settings {}

/**
 * The base of every element: the settings every tag shares (declared once, in `src/elements/parts/settings.ts`: their
 * attributes and properties come from there), the SDK version mark for the define guard, the shared
 * styles, the localization controller, and `emit`.
 *
 * @attr lang - Language of the element's text (en, de, fr, es); else the nearest ancestor's, else the document's.
 * @attr theme - `light`, `dark` or `auto` (the system's preference), in any case; without it the element follows the colour scheme the page declares (its root's `color-scheme`, else `<meta name="color-scheme">`; `light dark` is the system's), light where the page declares none.
 * @fires {BioErrorDetail} bio-error - On any failure, configuration errors included. detail `{ operation, code, message, status?, retryable }`.
 * @csspart base - The card (surface, border, padding). The element is 22em wide (at most its container's) whatever it shows; set `inline-size` on it for another width.
 * @csspart error - A failure's words: on an operation card, its sentence with the next step (the technical detail is in `bio-error`'s detail and the console); in `<bio-reader-status>` and `<bio-diagnostics>`, the technical detail for support staff.
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
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- the interface above only types the settings
export class BioElement extends LitElement {
  static readonly sdkVersion = version;
  static override styles: CSSResultGroup = baseStyles;
  static override properties: PropertyDeclarations = {
    ...settingProperties,
    strings: { attribute: false },
    theme: { reflect: true, converter: keywordAttribute },
  };

  /** Defines this class as `tag`, once: a second script copy or version never throws (src/elements/define.ts). */
  static define(tag: string): void {
    defineElement(tag, this);
  }

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'lang'];
  }

  /** Overrides of the built-in strings for this element. */
  declare strings: Partial<Translation> | undefined;
  /** `light`, `dark` or `auto` (reflected to the `theme` attribute); unset follows the page's declared colour scheme. */
  declare theme: 'light' | 'dark' | 'auto' | undefined;

  protected readonly localize = new LocalizeController(this);

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (name === 'lang') this.requestUpdate();
    else super.attributeChangedCallback(name, old, value);
  }

  /**
   * The first render waits for the element's turn (src/elements/parts/turn.ts: one element's first render per task) and for its
   * language's table, at most a short bound (src/elements/parts/localize.ts); later renders are Lit's own, in a microtask. Lit's
   * updateComplete awaits what this returns, so it resolves after the first render.
   */
  protected override scheduleUpdate(): void | Promise<unknown> {
    if (this.hasUpdated) return super.scheduleUpdate();
    return Promise.all([turn(), this.localize.arriving()]).then(() => super.scheduleUpdate());
  }

  /** Marks the card with its colour scheme, which src/elements/parts/styles.ts reads (the page's may change between two renders). */
  protected override updated(changed: PropertyValues): void {
    super.updated(changed);
    (this.renderRoot.firstElementChild as HTMLElement | null)?.setAttribute('data-scheme', schemeOf(this.theme));
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
