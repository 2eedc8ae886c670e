/**
 * Localization as a reactive controller: an element's language is its own `lang`, else its nearest
 * ancestor's (across shadow roots), else the document's; the element re-renders when any of them
 * changes. Strings come from the element's `strings` property, then the page's
 * `BioIDElementsConfig.strings` for that language, then the built-in translation, then English. The
 * container of the text in the shadow root carries the language the text is in (WCAG 2.1 3.1.2): the
 * element's when it is built in or the page gives strings for it (its own `strings` or the page's), else `en`.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { own } from '../core/config.js';
import { pageConfig } from './settings.js';
import { de } from './translations/de.js';
import type { DiagnosticsStrings } from './translations/diagnostics.js';
import { en, type ElementStrings, type StringKey, type Translation } from './translations/en.js';
import { es } from './translations/es.js';
import { fr } from './translations/fr.js';

export type { StringKey, Translation };
/** The built-in languages; a part loaded on use adds its strings to them (diagnostics.ts). */
export const translations: Record<string, ElementStrings & Partial<DiagnosticsStrings>> = { en, de, fr, es };

export type Params = Record<string, string | number>;

type Host = ReactiveControllerHost & HTMLElement & { renderRoot: ParentNode; strings?: Partial<Translation> | undefined };

export class LocalizeController implements ReactiveController {
  #unfollow: (() => void) | undefined;

  constructor(private readonly host: Host) {
    host.addController(this);
  }

  hostConnected(): void {
    this.#unfollow = followLang(this.host);
  }

  hostDisconnected(): void {
    this.#unfollow?.();
  }

  /** Marks the rendered text with its language, which is English where neither the page nor the SDK has the element's. */
  hostUpdated(): void {
    (this.host.renderRoot.firstElementChild as HTMLElement).lang = this.#strings()[0];
  }

  /** The language in effect for the host now. */
  lang(): string {
    return langOf(this.host);
  }

  /** The string `key` in the host's language, `{name}` placeholders filled from `params` as plain text. */
  term(key: StringKey, params?: Params): string {
    const [, page, builtIn] = this.#strings();
    const template = (own(this.host.strings, key) ?? own(page, key) ?? builtIn[key]) as string;
    return params ? template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m)) : template;
  }

  /**
   * The language the host's text is in, the page's strings for the host's language, and the built-in
   * translation (English for a language the SDK does not carry).
   */
  #strings(): [string, Partial<Translation> | undefined, Translation] {
    const lang = this.lang();
    const primary = lang.toLowerCase().split('-')[0];
    // Own properties only: a polluted Object.prototype must not put words into the page.
    const pageStrings = own(pageConfig(), 'strings');
    const page = own(pageStrings, lang) ?? own(pageStrings, primary);
    const builtIn = own(translations, primary) as Translation | undefined;
    return [builtIn || page || this.host.strings ? lang : 'en', page as Partial<Translation> | undefined, (builtIn ?? en) as Translation];
  }

  /** A number for people, in the host's language; anything else (or an invalid lang tag) as text. */
  number(value: unknown): string {
    try {
      if (typeof value === 'number') return value.toLocaleString(this.lang(), { maximumFractionDigits: 3 });
    } catch {
      // RangeError: lang is not a valid language tag
    }
    return asText(value);
  }

  /** A date (ISO 8601 text) for people, in the host's language; anything else as text. */
  date(value: unknown): string {
    const date = new Date(typeof value === 'string' ? value : NaN);
    try {
      if (!Number.isNaN(date.getTime())) return date.toLocaleString(this.lang());
    } catch {
      // RangeError: lang is not a valid language tag
    }
    return asText(value);
  }
}

/** Any value as text for a binding; hostile JSON such as `{"toString": 1}` cannot be converted and shows as nothing. */
export function asText(value: unknown): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- any value, as the page would show it
    return value === undefined || value === null ? '' : String(value);
  } catch {
    return '';
  }
}

/** The `lang` in effect for `el`: its own, an ancestor's (crossing shadow roots), the document's, or 'en'. */
export function langOf(el: Element): string {
  let node: Node | null = el;
  while (node) {
    if (node instanceof Element && node.hasAttribute('lang')) return node.getAttribute('lang') || 'en';
    node = node instanceof ShadowRoot ? node.host : node.parentNode;
  }
  return 'en';
}

/**
 * Re-renders connected elements when any `lang` attribute on the page changes (an element follows its
 * ancestors' language, which its own attributeChangedCallback cannot see). One observer for the page.
 */
const followers = new Set<{ requestUpdate(): void }>();
let observer: MutationObserver | undefined;

function followLang(el: { requestUpdate(): void }): () => void {
  followers.add(el);
  if (!observer && typeof MutationObserver === 'function') {
    observer = new MutationObserver(() => followers.forEach((follower) => follower.requestUpdate()));
    // Through the platform's getter: markup such as `<img name="documentElement">` shadows the document's own.
    observer.observe(Reflect.get(Document.prototype, 'documentElement', document), {
      attributes: true,
      attributeFilter: ['lang'],
      subtree: true,
    });
  }
  return () => {
    followers.delete(el);
    if (followers.size === 0) {
      observer?.disconnect();
      observer = undefined;
    }
  };
}
