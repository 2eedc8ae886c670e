// The browser baseline's own ESLint rules (eslint.config.mjs runs them on src/ beside eslint-plugin-compat):
// the targets are package.json's `browserslist`, the support data the @mdn/browser-compat-data that
// eslint-plugin-compat itself depends on. eslint-plugin-compat judges with the data its ast-metadata-inferer
// was built with, which predates AbortSignal.any, Promise.withResolvers and Object.groupBy, so it lets them
// through; these rules read the current data:
//  - baseline/api: a global (`structuredClone`) or a static member of one (`AbortSignal.any`,
//    `Promise.withResolvers`) that a baseline browser lacks, unless it stands in the test of an `if` or a
//    `?:` that names it (used only behind a test for it, with a fallback: src/core/baseline.ts). Methods of
//    instances (`list.toSorted()`) are tsc's: tsconfig.json's `lib` is ES2022, all of it in the baseline.
//  - baseline/css: a property, function, unit, selector or at-rule in a Lit css`` template that a baseline
//    browser lacks, unless a fallback is there: an earlier declaration of the same property in the same
//    block (an engine drops the newer one and keeps it), or an `@supports not (…)` that names the feature
//    (its block is the fallback).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// Both through eslint-plugin-compat, whose dependencies they are: its browserslist reads the same targets.
const fromCompat = createRequire(createRequire(import.meta.url).resolve('eslint-plugin-compat'));
const browserslist = fromCompat('browserslist');
const bcd = fromCompat('@mdn/browser-compat-data');

// browserslist's names and the data's.
const BROWSERS = { chrome: 'chrome', edge: 'edge', firefox: 'firefox', safari: 'safari', ios_saf: 'safari_ios' };
const NAMES = { chrome: 'Chrome', edge: 'Edge', firefox: 'Firefox', safari: 'Safari', safari_ios: 'Safari on iOS' };

const version = (text) => String(text).replace('≤', '').split(/[.-]/).map(Number);
const atMost = (a, b) => {
  const [x, y] = [version(a), version(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return true;
};

/** The oldest version of each browser of the baseline, by the data's name: { chrome: '109', … }. */
const oldest = {};
for (const entry of browserslist(undefined, { path: fileURLToPath(new URL('.', import.meta.url)) })) {
  const [name, v] = entry.split(' ');
  const id = BROWSERS[name];
  if (id && (!oldest[id] || atMost(v, oldest[id]))) oldest[id] = v.split('-')[0];
}

/** The baseline browsers that lack a feature of the data ("Chrome 109"), none when each has it. */
function lacking(compat) {
  if (!compat?.support) return [];
  return Object.entries(oldest)
    .filter(([id, v]) => {
      const statements = [compat.support[id] ?? { version_added: true }].flat();
      // Support behind a flag or a prefix, under another name or since removed is none. Partial support counts:
      // the feature works, with a difference the data's note names (accent-color in Safari keeps no
      // minimum contrast; AbortSignal.timeout before Chrome 124 aborts with an AbortError, not a TimeoutError).
      return !statements.some(
        (s) =>
          !s.flags &&
          !s.prefix &&
          !s.alternative_name &&
          !s.version_removed &&
          (s.version_added === true ||
            (typeof s.version_added === 'string' && s.version_added !== 'preview' && atMost(s.version_added, v))),
      );
    })
    .map(([id, v]) => `${NAMES[id]} ${v}`);
}

const report = (context, node, feature, missing, fix) =>
  context.report({
    node,
    message: `${feature} is newer than the browser baseline (package.json "browserslist"): ${missing.join(', ')} ${missing.length > 1 ? 'lack' : 'lacks'} it. ${fix}`,
  });

const api = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const source = context.sourceCode;
    // In the test of an `if` or a `?:` that names it: the code tests for the feature before using it.
    const tested = (node, name) =>
      source
        .getAncestors(node)
        .some((a) => (a.type === 'IfStatement' || a.type === 'ConditionalExpression') && source.getText(a.test).includes(name));
    const check = (node, name, compat) => {
      const missing = lacking(compat);
      if (missing.length && !tested(node, name))
        report(context, node, name, missing, 'Use it only behind a test for it, with a fallback (src/core/baseline.ts).');
    };
    return {
      'Program:exit'(program) {
        // The globals: names no declaration of the file binds, whether the config declares them or not.
        const scope = source.getScope(program);
        const references = [...scope.variables.filter((v) => v.defs.length === 0).flatMap((v) => v.references), ...scope.through];
        for (const { identifier, isValueReference } of references) {
          if (isValueReference === false) continue;
          const name = identifier.name;
          const parent = identifier.parent;
          const member =
            parent.type === 'MemberExpression' && parent.object === identifier && !parent.computed ? parent.property.name : undefined;
          const own = bcd.api[name] ?? bcd.javascript.builtins[name];
          if (member)
            check(parent, `${name}.${member}`, own?.[`${member}_static`]?.__compat ?? bcd.javascript.builtins[name]?.[member]?.__compat);
          check(identifier, name, own?.__compat);
        }
      },
    };
  },
};

/** Every leaf of the data's CSS types (functions, units, keywords) by its name: light-dark, lh, color-mix… */
const TYPES = {};
(function index(node) {
  for (const [key, child] of Object.entries(node)) {
    if (key === '__compat' || typeof child !== 'object') continue;
    TYPES[key] ??= child.__compat;
    index(child);
  }
})(bcd.css.types);

// Values whose absence loses nothing: iPadOS shows its default pointer for these, and only with a mouse.
const HARMLESS = new Set(['cursor: pointer', 'cursor: progress']);

/** What the declarations in `text` use, by name with its data: properties, their keywords, functions, units. */
function declared(text, found = new Map()) {
  const add = (name, compat) => compat && !HARMLESS.has(name) && found.set(name, compat);
  for (const [, property, value] of text.matchAll(/([\w-]+)\s*:\s*([^;{}]*)/g)) {
    const data = bcd.css.properties[property];
    add(property, data?.__compat);
    const plain = value.replace(/#[\da-f]+/gi, '');
    for (const [, name] of plain.matchAll(/([\w-]+)\(/g)) add(`${name}()`, TYPES[name]);
    for (const [, unit] of plain.matchAll(/\d([a-z]+)\b/g)) add(unit, bcd.css.types.length[unit]?.__compat);
    for (const [, word] of plain.matchAll(/(?<![\w-])([a-z][\w-]*)(?![\w(-])/g)) add(`${property}: ${word}`, data?.[word]?.__compat);
  }
  return found;
}

/** What a block's prelude uses: its at-rule and media features, or the pseudo-classes and elements of its selectors. */
function prelude(text) {
  const found = new Map();
  const add = (name, compat) => compat && found.set(name, compat);
  const atRule = /^\s*@([\w-]+)/.exec(text)?.[1];
  if (atRule) {
    add(`@${atRule}`, bcd.css['at-rules'][atRule]?.__compat);
    for (const [, feature] of text.matchAll(/\(\s*([\w-]+)/g))
      add(`@${atRule} ${feature}`, bcd.css['at-rules'][atRule]?.[feature]?.__compat);
  } else for (const [, name] of text.matchAll(/::?([\w-]+)/g)) add(`:${name}`, bcd.css.selectors[name]?.__compat);
  return found;
}

const css = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    return {
      TaggedTemplateExpression(node) {
        if (node.tag.type !== 'Identifier' || node.tag.name !== 'css') return;
        const text = node.quasi.quasis.map((q) => q.value.raw.replace(/\/\*[\s\S]*?\*\//g, '')).join('0');
        // What `@supports not (…)` conditions name: their blocks are the fallback for engines without it.
        const fallbacks = new Set(
          [...text.matchAll(/@supports\s+not\s*([^{]*)\{/g)].flatMap(([, condition]) => [...declared(condition).keys()]),
        );
        const reported = new Set();
        const check = (found, fallback = false) => {
          for (const [feature, compat] of found) {
            const missing = lacking(compat);
            if (!missing.length || fallback || fallbacks.has(feature) || reported.has(feature)) continue;
            reported.add(feature);
            report(
              context,
              node,
              `CSS ${feature}`,
              missing,
              'Give it a fallback: the same property declared before it, or @supports not (…) with plain values.',
            );
          }
        };
        // The text up to each brace: a prelude before {, the declarations of the innermost block before }.
        for (const [, chunk, brace] of text.matchAll(/([^{}]*)([{}])/g)) {
          if (brace === '{') {
            // An @supports condition is a test, not a use.
            if (!/^\s*@supports/.test(chunk)) check(prelude(chunk));
            continue;
          }
          // Declarations in order: an earlier one of the same property is the fallback of a later one.
          const earlier = new Set();
          for (const declaration of chunk.split(';')) {
            const property = declaration.split(':')[0].trim();
            check(declared(declaration), earlier.has(property));
            earlier.add(property);
          }
        }
      },
    };
  },
};

export default { meta: { name: 'baseline' }, rules: { api, css } };
