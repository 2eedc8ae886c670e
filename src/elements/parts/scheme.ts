/**
 * The colour scheme of a card: the `theme` attribute's (`light`, `dark`, or `auto`, the system's preference),
 * else the one the page declares, on its root (`color-scheme`) or in `<meta name="color-scheme">`; a page
 * that declares both (`light dark`) lets the system choose. Light where the page declares none: a card
 * must not turn dark on a light portal because the system is dark.
 */
export function schemeOf(theme: string | undefined): 'light' | 'dark' | 'auto' {
  if (theme === 'light' || theme === 'dark' || theme === 'auto') return theme;
  // Through the platform's getters: markup such as `<img name="documentElement">` shadows the document's own.
  const root = Reflect.get(Document.prototype, 'documentElement', document) as Element;
  let declared = getComputedStyle(root).colorScheme || 'normal';
  if (declared === 'normal') {
    const meta = Document.prototype.querySelector.call(document, 'meta[name="color-scheme" i]');
    declared = meta?.getAttribute('content') ?? '';
  }
  const dark = /\bdark\b/i.test(declared);
  return dark ? (/\blight\b/i.test(declared) ? 'auto' : 'dark') : 'light';
}
