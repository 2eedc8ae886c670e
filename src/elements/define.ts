/**
 * Version-aware registration. A page may load the script twice (a CMS snippet pasted twice) or two
 * versions of it; the first definition of a tag stays, a second never throws, and a different version
 * warns once per page.
 */
import { version } from '../version.js';

/** Marks a class with the SDK version that defined it. */
export interface VersionedElement extends CustomElementConstructor {
  readonly sdkVersion?: string;
}

const WARNED = Symbol.for('bioid-sdk.elements.version-warned');

export function defineElement(tag: string, element: VersionedElement): void {
  if (typeof customElements === 'undefined') return; // server-side rendering: nothing to define
  const existing: VersionedElement | undefined = customElements.get(tag);
  if (!existing) {
    customElements.define(tag, element);
    return;
  }
  const ours = element.sdkVersion ?? version;
  if (existing === element || existing.sdkVersion === ours) return;
  const host = globalThis as Record<symbol, unknown>;
  if (host[WARNED]) return;
  host[WARNED] = true;
  console.warn(
    `bioid-sdk ${ours}: <${tag}> is already defined (${existing.sdkVersion ?? 'another script'}); keeping it. Load the script once.`,
  );
}
