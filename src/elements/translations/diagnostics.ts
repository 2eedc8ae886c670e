/**
 * <bio-diagnostics>' causes and buttons, one typed object per language like the element strings (en.ts):
 * they travel with the code the element loads on use (src/elements/bio-diagnostics/diagnostics.ts), which adds them to each language.
 * Row names and status words are the report's words, English, not strings.
 */
export const en = {
  csrf: 'Refused by the anti-CSRF or origin check (HTTP 403).',
  cors: 'This page’s origin is not allowed (CORS).',
  copyReport: 'Copy report',
  copied: 'Report copied.',
};

export type DiagnosticsStrings = { [K in keyof typeof en]: string };

/** German. */
export const de: DiagnosticsStrings = {
  csrf: 'Von der CSRF- oder Ursprungsprüfung abgelehnt (HTTP 403).',
  cors: 'Der Ursprung dieser Seite ist nicht zugelassen (CORS).',
  copyReport: 'Bericht kopieren',
  copied: 'Bericht kopiert.',
};

/** French. */
export const fr: DiagnosticsStrings = {
  csrf: 'Refusé par le contrôle anti-CSRF ou d’origine (HTTP 403).',
  cors: 'L’origine de cette page n’est pas autorisée (CORS).',
  copyReport: 'Copier le rapport',
  copied: 'Rapport copié.',
};

/** Spanish. */
export const es: DiagnosticsStrings = {
  csrf: 'Rechazado por el control anti-CSRF o de origen (HTTP 403).',
  cors: 'El origen de esta página no está permitido (CORS).',
  copyReport: 'Copiar informe',
  copied: 'Informe copiado.',
};
