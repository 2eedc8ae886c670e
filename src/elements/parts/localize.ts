/**
 * Localization as a reactive controller: an element's language is its own `lang`, else its nearest
 * ancestor's (across shadow roots), else the document's; the element re-renders when any of them
 * changes. Strings come from the element's `strings` property, then the page's
 * `BioIDElementsConfig.strings` for that language, then the built-in translation, then English. The
 * container of the text in the shadow root carries the language the text is in (WCAG 2.1 3.1.2): the
 * element's when it is built in or the page gives strings for it (its own `strings` or the page's), else `en`.
 *
 * English is built in; German, French and Spanish load on use, each the first time an element in that
 * language renders (from the script tag, `bioid-de.js`, `bioid-fr.js` and `bioid-es.js` next to
 * `bioid-elements.js`, src/script-parts.ts), so an English page loads nothing more. An element's first
 * render waits for its language at most `HOLD_MS` (src/elements/base/bio-element.ts), so a page in one of them does not show
 * English words first; a table slower than that replaces them when it arrives. A table that does not load
 * leaves the elements in English and is said once in the console: the elements still work.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { own } from '../../core/config.js';
import { messageOf } from '../../core/errors.js';
import { pageConfig } from './settings.js';
import { en, type ElementStrings, type StringKey, type Translation } from '../translations/en.js';

export type { StringKey, Translation };
/** The built-in languages; a part loaded on use adds its strings to them (src/elements/bio-diagnostics/diagnostics.ts), a language its table when it arrives. */
export const translations: Record<string, Partial<Translation>> = { en, de: {}, fr: {}, es: {} };

// One literal import() per language: the build makes each a file of its own (scripts/script-parts.mjs).
const tables: Record<string, () => Promise<ElementStrings>> = {
  de: () => import('../translations/de.js').then((m) => m.de),
  fr: () => import('../translations/fr.js').then((m) => m.fr),
  es: () => import('../translations/es.js').then((m) => m.es),
};

/**
 * How long an element's first render waits for its language's table: long enough for a file served
 * beside the script (or from the cache), short enough that a slow one never leaves the page without a card.
 */
export const HOLD_MS = 300;

/** The languages whose table has arrived; the waits for those asked for, each resolved at arrival, failure or HOLD_MS. */
const arrived = new Set(['en']);
const asked: Record<string, Promise<unknown>> = {};

/**
 * Asks for the table of `lang` (a primary tag) once per page; every element re-renders when it arrives.
 * The wait for it, unless `lang` is English, one the SDK does not carry, or already there.
 */
function ask(lang: string): Promise<unknown> | undefined {
  const table = own(tables, lang) as (() => Promise<ElementStrings>) | undefined;
  if (!table || arrived.has(lang)) return undefined;
  return (asked[lang] ??= Promise.race([
    table().then(
      (strings) => {
        Object.assign(translations[lang], strings);
        arrived.add(lang);
        followers.forEach((follower) => follower.requestUpdate());
      },
      // Not a bio-error: nothing failed for the person at the reader, who reads English. Not asked again.
      (error: unknown) => console.warn(`${messageOf(error)} Until it does, the elements show English words for lang="${lang}".`),
    ),
    new Promise((resolve) => setTimeout(resolve, HOLD_MS)),
  ]));
}

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

  /** What the host's first render waits for: its language's table, at most HOLD_MS; undefined when there is nothing to wait for. */
  arriving(): Promise<unknown> | undefined {
    return ask(this.lang().toLowerCase().split('-')[0]);
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
    // A language on its way shows English until it arrives (and asks for it, the host's lang having changed).
    void ask(primary);
    const builtIn = arrived.has(primary) ? (own(translations, primary) as Translation | undefined) : undefined;
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
