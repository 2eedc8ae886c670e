// Plugins of the custom-elements-manifest analyzer (custom-elements-manifest.config.mjs), run by
// `npm run build` after rollup:
//  1. settingsFromSource: the settings every element shares are declared once in src/elements/parts/settings.ts
//     (the `Settings` interface: names, types and docs; the `SETTINGS` rows: property only or not), which
//     the analyzer cannot read as Lit properties: this plugin adds each to BioElement as a field and, unless
//     it is a property only, an attribute (`middlewareUrl` ↔ `middleware-url`), before the tags inherit them.
//     linkSettingAttributes then gives the other attributes without a field (`lang`) theirs.
//  2. frameworkTypes: the React 19 and Vue 3 typings, generated from the manifest by break-stuff's
//     generators (custom-element-jsx-integration, custom-element-vuejs-integration): every tag's attributes,
//     properties (by their own names too: `subjectId` beside `subject-id`) and `bio-*` event handlers, each
//     event typed with the detail type its class declares in `@fires {Type} name` (`<bio-verify>`'s
//     `bio-result` carries `BioVerifyResultDetail`).
//     dist/react.d.ts and dist/vue.d.ts are what `import type {} from 'bioid-sdk/react'` (or `/vue`) loads.
//  3. publicSurface: the manifest that ships keeps what is public (docs/versioning.md): no private or
//     protected members, nor names starting with `_` or `#`, and no source text of a module's constants
//     (the styles, the translation tables). It runs last, so the typings above are made from the whole.
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';
import { generateJsxTypes } from 'custom-element-jsx-integration';
import { generateVuejsTypes } from 'custom-element-vuejs-integration';

const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
const customElements = (manifest) => manifest.modules.flatMap((mod) => mod.declarations ?? []).filter((declaration) => declaration.tagName);

const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const SETTINGS_FILE = 'src/elements/parts/settings.ts';

/**
 * A setting as src/elements/parts/settings.ts declares it: the manifest plugin's reading of the file.
 * @typedef {object} SettingDeclaration
 * @property {string} name
 * @property {string} type Its type as a property of an element (`string | undefined`).
 * @property {string} doc
 * @property {string | undefined} defaultValue
 * @property {string | undefined} attribute The kebab-case attribute; undefined for a property only.
 */

/**
 * Each setting of src/elements/parts/settings.ts: its name, type, doc, and whether it has an attribute (a row without `attribute: false`).
 * @param {string} [file]
 * @returns {SettingDeclaration[]}
 */
export function readSettings(file = SETTINGS_FILE) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  let members;
  let rows;
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'Settings') members = node.members;
    if (ts.isVariableStatement(node)) {
      const declaration = node.declarationList.declarations.find((d) => d.name.getText() === 'SETTINGS');
      let value = declaration?.initializer;
      while (value && (ts.isSatisfiesExpression(value) || ts.isAsExpression(value))) value = value.expression;
      if (value) rows = value;
    }
  });
  if (!members || !rows) throw new Error(`${file}: the Settings interface and the SETTINGS table are what the manifest reads.`);
  const propertyOnly = new Set(
    rows.properties.filter((row) => /\battribute:\s*false\b/.test(row.initializer.getText())).map((row) => row.name.getText()),
  );
  return members.map((member) => {
    const name = member.name.getText();
    const comments = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
    const doc = comments
      .map((comment) => ts.getTextOfJSDocComment(comment.comment) ?? '')
      .join('\n')
      .replace(/\s*\n\s*/g, ' ')
      .trim();
    const defaultTag = comments.flatMap((comment) => comment.tags ?? []).find((tag) => tag.tagName.text === 'defaultValue');
    const defaultValue = defaultTag && ts.getTextOfJSDocComment(defaultTag.comment)?.replace(/^`|`$/g, '');
    const type = member.type.getText().includes('=>') ? `(${member.type.getText()}) | undefined` : `${member.type.getText()} | undefined`;
    return { name, type, doc, defaultValue, attribute: propertyOnly.has(name) ? undefined : kebab(name) };
  });
}

/** The settings as BioElement's fields and attributes, added before the tags inherit from it. */
export function settingsFromSource() {
  return {
    name: 'bioid-settings-from-source',
    moduleLinkPhase({ moduleDoc }) {
      const base = moduleDoc.declarations?.find((declaration) => declaration.name === 'BioElement');
      if (!base) return;
      const settings = readSettings();
      base.members = [
        ...settings.map(({ name, type, doc, defaultValue, attribute }) => ({
          kind: 'field',
          name,
          type: { text: type },
          description: doc,
          ...(defaultValue && { default: defaultValue }),
          ...(attribute && { attribute }),
        })),
        ...(base.members ?? []),
      ];
      const attributes = settings
        .filter(({ attribute }) => attribute)
        .map(({ name, type, doc, defaultValue, attribute }) => ({
          name: attribute,
          type: { text: type },
          description: doc,
          ...(defaultValue && { default: defaultValue }),
          fieldName: name,
        }));
      base.attributes = [...attributes, ...(base.attributes ?? [])];
    },
  };
}

/**
 * The manifest's modules in the order of their paths. The analyzer lists them in the order its glob meets
 * the files, which is the file system's and differs between checkouts; custom-elements.json and the typings
 * generated from it (frameworkTypes) then differed in order, and the packed tarball in size, by some 80 B.
 */
export function modulesInPathOrder() {
  return {
    name: 'bioid-modules-in-path-order',
    packageLinkPhase({ customElementsManifest }) {
      customElementsManifest.modules.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
  };
}

/** An attribute without a field gets the field of the same name in camelCase (`lang` is HTMLElement's). */
export function linkSettingAttributes() {
  return {
    name: 'bioid-link-setting-attributes',
    packageLinkPhase({ customElementsManifest }) {
      for (const element of customElements(customElementsManifest)) {
        for (const attribute of element.attributes ?? []) {
          if (attribute.fieldName) continue;
          attribute.fieldName = camel(attribute.name);
          const field = element.members?.find((m) => m.kind === 'field' && m.name === attribute.fieldName);
          if (!field) continue;
          field.attribute = attribute.name;
          attribute.type ??= field.type;
        }
      }
    },
  };
}

/** The React wrapper: the generated props of each tag over React's own props of an HTML element (ref, key, onClick…). */
const REACT_ENTRY = `// \`import type {} from 'bioid-sdk/react'\` adds every bioid-sdk tag to React 19's JSX: attributes,
// properties and \`onbio-*\` event handlers (React 19 listens to \`bio-result\` for \`onbio-result\`).
// Generated by scripts/framework-types.mjs from custom-elements.json; do not edit.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { CustomElements } from './react-elements.js';

type Tag = keyof CustomElements & keyof HTMLElementTagNameMap;
type ReactHTMLProps<T extends Tag> = DetailedHTMLProps<HTMLAttributes<HTMLElementTagNameMap[T]>, HTMLElementTagNameMap[T]>;

/** Each tag's JSX props: React's props of an HTML element, and the tag's own attributes, properties and events. */
export type BioElementsIntrinsicElements = {
  [T in Tag]: Omit<CustomElements[T], keyof ReactHTMLProps<T>> & ReactHTMLProps<T>;
};

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements extends BioElementsIntrinsicElements {}
  }
}
`;

/**
 * The generators import each tag's event detail types from that tag's entry, so a type that several tags
 * share (`BioErrorDetail`) is imported once per tag: a duplicate identifier for a consumer without
 * skipLibCheck. Keep each name's first import only.
 */
function importEachNameOnce(file) {
  const seen = new Set();
  const text = readFileSync(file, 'utf8').replace(/import type \{([^}]*)\} from ("[^"]+");/g, (_, names, from) => {
    const fresh = names
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name && !seen.has(name));
    fresh.forEach((name) => seen.add(name));
    return `import type { ${fresh.join(', ')} } from ${from};`;
  });
  // A type the generators could not name (an attribute without a field) would break every consumer.
  if (/\["undefined"\]/.test(text)) throw new Error(`${file}: an attribute has no field; see linkSettingAttributes.`);
  writeFileSync(file, text);
}

/**
 * The generators name a field that has an attribute by its attribute alone (`subject-id`), but React 19, Vue
 * and Svelte set a property when the element has one, and pages bind `subjectId={subject}`: both names must
 * type. Each tag's props also take those fields by their own names, picked from the class (so they keep its
 * types and docs, in a few bytes: the package's size has a ceiling); a field whose attribute has its own
 * name (`name`, `required`) is there already.
 */
function withPropertyNames(file, manifest) {
  const names = new Map(
    customElements(manifest).map((element) => [
      element.name,
      (element.members ?? [])
        .filter((member) => member.kind === 'field' && member.attribute && member.attribute !== member.name)
        .map((member) => JSON.stringify(member.name)),
    ]),
  );
  const text = readFileSync(file, 'utf8').replace(/^((?:export )?type (\w+)Props = )\{/gm, (line, head, name) =>
    names.get(name)?.length ? `${head}Partial<Pick<${name}, ${names.get(name).join(' | ')}>> & {` : line,
  );
  writeFileSync(file, text);
}

/**
 * A Vue template's `@bio-result` is the prop `onBioResult` (Vue camelCases the event name), while the
 * generator names it `onbio-result`, which only `h()` props use: each listener gets the camelCase name too,
 * so a template's listener is typed, and a strict template check (vue-tsc's `strictTemplates`) knows it.
 */
function withVueListenerNames(file) {
  const text = readFileSync(file, 'utf8').replace(
    /^( *)"on(bio-[a-z-]+)"\?: (.*)$/gm,
    (line, indent, event, type) => `${line}\n${indent}on${camel(`-${event}`)}?: ${type}`,
  );
  writeFileSync(file, text);
}

export function frameworkTypes({ outdir = 'dist' } = {}) {
  return {
    name: 'bioid-framework-types',
    packageLinkPhase({ customElementsManifest }) {
      // The classes and event detail types come from each tag's own entry (dist/elements/tags/<tag>.d.ts).
      const common = { outdir, hideLogs: true, componentTypePath: (_name, tag) => `./elements/tags/${tag}.js` };
      generateJsxTypes(customElementsManifest, { ...common, fileName: 'react-elements.d.ts' });
      generateVuejsTypes(customElementsManifest, { ...common, fileName: 'vue.d.ts' });
      importEachNameOnce(`${outdir}/react-elements.d.ts`);
      importEachNameOnce(`${outdir}/vue.d.ts`);
      withPropertyNames(`${outdir}/react-elements.d.ts`, customElementsManifest);
      withPropertyNames(`${outdir}/vue.d.ts`, customElementsManifest);
      withVueListenerNames(`${outdir}/vue.d.ts`);
      writeFileSync(`${outdir}/react.d.ts`, REACT_ENTRY);
    },
  };
}

/** Public members only (docs/versioning.md, "Not public"), and a module constant's name and type without its source text. */
export function publicSurface() {
  const isPublic = (member) => (member.privacy ?? 'public') === 'public' && !/^[_#]/.test(member.name);
  return {
    name: 'bioid-public-surface',
    packageLinkPhase({ customElementsManifest }) {
      for (const declaration of customElementsManifest.modules.flatMap((mod) => mod.declarations ?? [])) {
        if (declaration.members) declaration.members = declaration.members.filter(isPublic);
        if (declaration.kind === 'variable') delete declaration.default;
      }
    },
  };
}
