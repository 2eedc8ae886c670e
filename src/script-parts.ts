/**
 * The files the script-tag bundle loads on use (docs/elements.md, "Files next to the script"): code a page
 * needs only when a rare tag appears, such as `<bio-diagnostics>`' checks in `bioid-diagnostics.js`. Each is
 * fetched from next to `bioid-elements.js`, resolved from the script's own URL, so a CDN path, a WordPress
 * plugin folder or a site's own folder all work without a setting.
 *
 * How a file loads: `import()` of an ES module whose default export receives the script's shared code
 * (Lit, the core, the base element) and returns the part (rollup.config.mjs and scripts/script-parts.mjs
 * build both files from one module graph). Chosen over injecting a classic `<script>` because it works
 * under every policy docs/cms.md shows without anything from the page:
 *  - Trusted Types: `import()` of a string is not an injection sink, so no policy has to be created (a
 *    `<script>.src` needs one, and a page's `trusted-types` list would have to name it);
 *  - CSP: the import inherits the nonce of the script that asks, and is allowed by 'strict-dynamic' as by
 *    `script-src 'self'` or a CDN's host; an injected script would have to copy the nonce itself;
 *  - no global hook: the part gets the shared code from its caller, so two copies or versions of the script
 *    on one page never hand one part to the other.
 * The price: from another origin a module needs CORS (`Access-Control-Allow-Origin`), which the npm CDNs
 * (jsDelivr, unpkg) send; a file that does not load is a `config` error naming its URL and the fix.
 * test/elements/script-parts.browser.test.ts shows each case in Chromium, Firefox and WebKit.
 */
import { BioIDError, messageOf } from './core/errors.js';
import { pageBase } from './elements/parts/settings.js';

/**
 * The script's own URL, read while it runs (`currentScript` is null afterwards) through the platform's
 * getter (markup such as `<img name="currentScript">` shadows the document's own). Without it (the script
 * run by a loader that evaluates it), the page's script named bioid-elements, else the page's own address.
 * There is always a document here: lit-html, earlier in the script, needs one to load at all.
 */
const scriptUrl = ((): string => {
  const current = Reflect.get(Document.prototype, 'currentScript', document) as unknown;
  if (current instanceof HTMLScriptElement && current.src) return current.src;
  const named = [...document.querySelectorAll<HTMLScriptElement>('script[src*="bioid-elements"]')].pop();
  return named?.src || pageBase();
})();

const parts = new Map<string, Promise<unknown>>();

/**
 * The part in `file` (a name like `./bioid-diagnostics.js`), built from the script's shared code, which
 * `kit` returns once the file has arrived (scripts/script-parts.mjs); loaded once per page for this copy of
 * the script. A failed load is not kept: the next use asks again.
 */
export function loadRarePart(file: string, kit: () => object): Promise<unknown> {
  const script = new URL(scriptUrl);
  const next = new URL(file, script);
  // The script's query (a CMS's ?ver=) goes with the file: a cached file of another version is never used.
  next.search = script.search;
  const url = next.href;
  let part = parts.get(url);
  if (!part) {
    part = import(/* webpackIgnore: true */ /* @vite-ignore */ url)
      .then((module: { default: (kit: object) => unknown }) => module.default(kit()))
      .catch((error: unknown) => {
        parts.delete(url);
        throw new BioIDError(
          'config',
          `${url} did not load (${messageOf(error)}). This file comes with bioid-elements.js and must sit next to it, from the same version: copy it there. Served from another origin, it needs the header Access-Control-Allow-Origin.`,
          { cause: error },
        );
      });
    parts.set(url, part);
  }
  return part;
}
