// Attribute values as people type them into markup: one converter per kind of value, used by every element
// (docs/elements.md, "Attributes").

// An id, without the spaces and line breaks around it (`subject-id=" alice\n"` is alice); blank, it reads as ''.
export const idAttribute = (value: string | null): string | undefined => value?.trim();

// A number: empty or not a number is no value, so the default applies.
export const numberAttribute = (value: string | null): number | undefined =>
  value?.trim() && !Number.isNaN(Number(value)) ? Number(value) : undefined;

// An enumerated value, ASCII case-insensitive as HTML's own are (`theme="DARK"` is dark; styles.ts matches with `i`).
export const keywordAttribute = (value: string | null): string | undefined => value?.replace(/[A-Z]/g, (c) => c.toLowerCase());
