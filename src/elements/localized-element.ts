/**
 * The base of every element: the SDK version mark for the define guard, the shared styles, and the
 * language — `lang` of the element, an ancestor or the document, re-rendered when any of them changes.
 */
import { LitElement, type PropertyDeclarations } from 'lit';
import { version } from '../version.js';
import { followLang, langOf, translator, type Strings } from './i18n.js';
import { baseStyles } from './styles.js';

export type Translate = ReturnType<typeof translator>;

export class LocalizedElement extends LitElement {
  static readonly sdkVersion = version;
  static override styles = baseStyles;
  static override properties: PropertyDeclarations = { strings: { attribute: false } };

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, 'lang'];
  }

  /** Overrides of the built-in strings for this element. */
  declare strings: Partial<Strings> | undefined;
  private unfollowLang: (() => void) | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    this.unfollowLang = followLang(this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unfollowLang?.();
  }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (name === 'lang') this.requestUpdate();
    else super.attributeChangedCallback(name, old, value);
  }

  /** The translator for the language in effect now. */
  protected t(): Translate {
    return translator(langOf(this), this.strings);
  }
}
