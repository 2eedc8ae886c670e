/**
 * The elements' words in English, German, French and Spanish. The language is the `lang` of the element
 * or its nearest ancestor (across shadow roots), else the document's; every string can be overridden per
 * element (`el.strings = {...}`) or per page and language (`BioIDElementsConfig.strings`).
 * `{name}` placeholders are filled with plain text; nothing here is ever parsed as HTML.
 */
import { pageConfig } from './page-config.js';

/** Keys of failures are the `bio-error` codes they explain (see errorKey in operation-element.ts). */
export const en = {
  enroll: 'Enroll fingerprint',
  verify: 'Verify fingerprint',
  search: 'Identify fingerprint',
  fetchEnrolled: 'Show enrolled fingerprints',
  token: 'Signing in…',
  locating: 'Looking for the fingerprint reader…',
  dispatched: 'Sent to workstation {workstation}. Place your finger on the reader.',
  enrolled: 'Fingerprint enrolled.',
  match: 'Fingerprint verified.',
  noMatch: 'Fingerprint does not match.',
  candidates: 'Possible matches: {count}',
  noCandidates: 'No match found.',
  records: 'Enrolled fingerprints: {count}',
  noRecords: 'No enrolled fingerprints.',
  score: 'score {score}',
  required: 'Verify your fingerprint first.',
  'session-expired': 'Your session has ended. Sign in again.',
  'broker-unavailable': 'Sign-in service unavailable. Try again later.',
  config: 'This component is not set up correctly.',
  'workstation-offline': 'The workstation is offline.',
  'local-service-unreachable': 'The fingerprint service on this computer is not reachable.',
  'no-device': 'No fingerprint reader is connected.',
  network: 'Connection failed. Try again.',
  failed: 'The operation failed.',
  ready: 'Reader ready.',
  'status-error': 'The fingerprint service reported a problem.',
  pinned: 'Using the configured workstation and reader.',
  workstation: 'Workstation',
  device: 'Device',
  adviceStart: 'Start the fingerprint companion app on this computer.',
  advicePrompt: 'If the browser asks to allow access to your local network, allow it.',
  adviceBlocked: 'The browser blocks local network access for this site: allow it in the site settings.',
  advicePin: 'Or have workstation-id and device-id configured.',
};

export type StringKey = keyof typeof en;
export type Strings = Record<StringKey, string>;

const KEYS = Object.keys(en) as StringKey[];

/**
 * A translation: one line per string, in the order of the English catalog above (a test checks the
 * counts). Lines instead of objects keep the script-tag bundle under its size budget.
 */
function catalog(lines: string): Strings {
  const values = lines.trim().split('\n');
  return Object.fromEntries(KEYS.map((key, i) => [key, values[i] ?? en[key]])) as Strings;
}

const de = catalog(`
Fingerabdruck registrieren
Fingerabdruck prüfen
Fingerabdruck identifizieren
Registrierte Fingerabdrücke anzeigen
Anmeldung…
Fingerabdruckleser wird gesucht…
An Arbeitsplatz {workstation} gesendet. Legen Sie den Finger auf den Leser.
Fingerabdruck registriert.
Fingerabdruck bestätigt.
Fingerabdruck stimmt nicht überein.
Mögliche Treffer: {count}
Kein Treffer gefunden.
Registrierte Fingerabdrücke: {count}
Keine registrierten Fingerabdrücke.
Wert {score}
Bitte zuerst den Fingerabdruck prüfen.
Ihre Sitzung ist abgelaufen. Bitte neu anmelden.
Anmeldedienst nicht verfügbar. Später erneut versuchen.
Diese Komponente ist nicht richtig eingerichtet.
Der Arbeitsplatz ist offline.
Der Fingerabdruckdienst auf diesem Computer ist nicht erreichbar.
Kein Fingerabdruckleser angeschlossen.
Verbindung fehlgeschlagen. Erneut versuchen.
Der Vorgang ist fehlgeschlagen.
Leser bereit.
Der Fingerabdruckdienst meldet ein Problem.
Konfigurierter Arbeitsplatz und Leser werden verwendet.
Arbeitsplatz
Gerät
Starten Sie die Fingerabdruck-App auf diesem Computer.
Wenn der Browser nach Zugriff auf das lokale Netzwerk fragt, erlauben Sie ihn.
Der Browser sperrt den Zugriff auf das lokale Netzwerk für diese Seite: erlauben Sie ihn in den Website-Einstellungen.
Oder lassen Sie workstation-id und device-id konfigurieren.
`);

const fr = catalog(`
Enregistrer l’empreinte
Vérifier l’empreinte
Identifier l’empreinte
Afficher les empreintes enregistrées
Connexion…
Recherche du lecteur d’empreintes…
Envoyé au poste {workstation}. Posez le doigt sur le lecteur.
Empreinte enregistrée.
Empreinte vérifiée.
L’empreinte ne correspond pas.
Correspondances possibles : {count}
Aucune correspondance.
Empreintes enregistrées : {count}
Aucune empreinte enregistrée.
score {score}
Vérifiez d’abord votre empreinte.
Votre session a expiré. Reconnectez-vous.
Service de connexion indisponible. Réessayez plus tard.
Ce composant n’est pas correctement configuré.
Le poste de travail est hors ligne.
Le service d’empreintes de cet ordinateur est injoignable.
Aucun lecteur d’empreintes connecté.
Échec de la connexion. Réessayez.
L’opération a échoué.
Lecteur prêt.
Le service d’empreintes signale un problème.
Poste et lecteur configurés utilisés.
Poste
Appareil
Démarrez l’application d’empreintes sur cet ordinateur.
Si le navigateur demande l’accès au réseau local, autorisez-le.
Le navigateur bloque l’accès au réseau local pour ce site : autorisez-le dans les paramètres du site.
Ou faites configurer workstation-id et device-id.
`);

const es = catalog(`
Registrar huella
Verificar huella
Identificar huella
Mostrar huellas registradas
Iniciando sesión…
Buscando el lector de huellas…
Enviado al puesto {workstation}. Coloque el dedo en el lector.
Huella registrada.
Huella verificada.
La huella no coincide.
Posibles coincidencias: {count}
Sin coincidencias.
Huellas registradas: {count}
No hay huellas registradas.
puntuación {score}
Verifique primero su huella.
Su sesión ha terminado. Inicie sesión de nuevo.
Servicio de inicio de sesión no disponible. Inténtelo más tarde.
Este componente no está bien configurado.
El puesto de trabajo está desconectado.
El servicio de huellas de este equipo no está accesible.
No hay ningún lector de huellas conectado.
Error de conexión. Vuelva a intentarlo.
La operación ha fallado.
Lector listo.
El servicio de huellas informa de un problema.
Se usan el puesto y el lector configurados.
Puesto
Dispositivo
Inicie la aplicación de huellas en este equipo.
Si el navegador pide acceso a la red local, permítalo.
El navegador bloquea el acceso a la red local para este sitio: permítalo en la configuración del sitio.
O pida que se configuren workstation-id y device-id.
`);

export const catalogs: Record<string, Strings> = { en, de, fr, es };

/** The `lang` in effect for `el`: its own, an ancestor's (crossing shadow roots), the document's, or 'en'. */
export function langOf(el: Element): string {
  let node: Node | null = el;
  while (node) {
    if (node instanceof Element && node.hasAttribute('lang')) return node.getAttribute('lang') || 'en';
    node = node instanceof ShadowRoot ? node.host : node.parentNode;
  }
  return 'en';
}

/** A translator for `lang` (primary subtag decides: de-AT → de), with overrides applied over the catalog. */
export function translator(lang: string, overrides?: Partial<Strings>): (key: StringKey, params?: Record<string, string | number>) => string {
  const primary = lang.toLowerCase().split('-')[0] ?? 'en';
  const base = catalogs[primary] ?? en;
  const pageStrings = pageConfig().strings;
  const page = (pageStrings?.[lang] ?? pageStrings?.[primary]) as Partial<Strings> | undefined;
  return (key, params) => {
    const template = overrides?.[key] ?? page?.[key] ?? base[key] ?? en[key];
    return params ? template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m)) : template;
  };
}

/**
 * Re-renders connected elements when any `lang` attribute on the page changes (an element follows its
 * ancestors' language, which its own attributeChangedCallback cannot see).
 */
const watchers = new Set<{ requestUpdate(): void }>();
let observer: MutationObserver | undefined;

export function followLang(el: { requestUpdate(): void }): () => void {
  watchers.add(el);
  if (!observer && typeof MutationObserver === 'function') {
    observer = new MutationObserver(() => watchers.forEach((w) => w.requestUpdate()));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
  }
  return () => {
    watchers.delete(el);
    if (watchers.size === 0) {
      observer?.disconnect();
      observer = undefined;
    }
  };
}
