#!/usr/bin/env node
// `npm run api:update`: the public API of bioid-sdk as committed files (docs/versioning.md): one API
// Extractor report per entry point (api/<entry>.api.md, from the built .d.ts in dist/) and a summary of
// custom-elements.json (api/elements.json: each tag's attributes, properties, events with their detail
// types, CSS parts and custom properties). test/package/public-api.node.test.ts compares the built ones with the committed
// ones; `npm run api:update` (this script with --update, after `npm run build`) rewrites them.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { ApiModel } from '@microsoft/api-extractor-model';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const API_DIR = join(ROOT, 'api');

/**
 * A tag's public surface in api/elements.json.
 * @typedef {object} TagSummary
 * @property {string} class
 * @property {Record<string, string>} attributes
 * @property {Record<string, string>} properties
 * @property {string[]} methods
 * @property {Record<string, string>} events
 * @property {string[]} cssParts
 * @property {string[]} cssProperties
 */
/** @typedef {Record<string, TagSummary>} ElementsSummary */

/**
 * The entry points whose exports are public (package.json "exports"), by report name.
 * @type {Record<string, string>}
 */
export const ENTRIES = {
  'bioid-sdk': 'dist/index.d.ts',
  'bioid-sdk-broker': 'dist/broker/index.d.ts',
  'bioid-sdk-elements': 'dist/elements/index.d.ts',
  'bioid-sdk-sw': 'dist/sw/index.d.ts',
};

/**
 * The API Extractor report (api/<name>.api.md) of one built entry point.
 * @param {string} name
 * @returns {string}
 */
export const apiReport = (name) => extract(name).report;

/** @type {Map<string, { report: string; model: import('@microsoft/api-extractor-model').ApiModel }>} */
const extracted = new Map();

/**
 * The report of one built entry point and its doc model (the exports with their TSDoc, as
 * @microsoft/api-extractor-model reads it; scripts/docs-reference.mjs renders it). API Extractor runs once
 * per entry in a process: the report and the reference are made from the same run.
 * @param {string} name
 * @returns {{ report: string; model: import('@microsoft/api-extractor-model').ApiModel }}
 */
export function extract(name) {
  if (!extracted.has(name)) extracted.set(name, runExtractor(name));
  return extracted.get(name);
}

function runExtractor(name) {
  const entry = join(ROOT, ENTRIES[name]);
  if (!existsSync(entry)) throw new Error(`${ENTRIES[name]} is missing: run \`npm run build\` first.`);
  const out = mkdtempSync(join(tmpdir(), 'bioid-api-'));
  try {
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: ROOT,
        mainEntryPointFilePath: entry,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'ES2022',
              module: 'ESNext',
              moduleResolution: 'Bundler',
              lib: ['ES2022', 'DOM', 'DOM.Iterable'],
              types: ['node'],
              strict: true,
              skipLibCheck: true,
            },
            files: [entry],
          },
        },
        apiReport: { enabled: true, reportFolder: out, reportTempFolder: out, reportFileName: `${name}.api.md` },
        docModel: { enabled: true, apiJsonFilePath: join(out, `${name}.api.json`) },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          // The report is the contract; TSDoc style and release tags are not checked here.
          extractorMessageReporting: { default: { logLevel: 'none' } },
          tsdocMessageReporting: { default: { logLevel: 'none' } },
          compilerMessageReporting: { default: { logLevel: 'warning' } },
        },
      },
      configObjectFullPath: join(ROOT, 'api', 'api-extractor.json'),
      packageJsonFullPath: join(ROOT, 'package.json'),
    });
    const result = Extractor.invoke(config, {
      localBuild: true,
      showVerboseMessages: false,
      messageCallback: (message) => {
        if (message.logLevel === 'warning' || message.logLevel === 'error') message.handled = false;
        else message.handled = true;
      },
    });
    if (result.errorCount > 0) throw new Error(`API Extractor failed on ${ENTRIES[name]} (${result.errorCount} errors).`);
    // The header names the package; the report is the same whatever the local path.
    const report = readFileSync(join(out, `${name}.api.md`), 'utf8').replace(/\r\n/g, '\n');
    return { report, model: new ApiModel().loadPackage(join(out, `${name}.api.json`)) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The public surface of the custom elements from custom-elements.json: per tag its attributes, public
 * properties and methods, events (with the detail type), CSS parts and CSS custom properties.
 * @param {string} [manifestPath]
 * @returns {ElementsSummary}
 */
export function elementsSummary(manifestPath = join(ROOT, 'custom-elements.json')) {
  if (!existsSync(manifestPath)) throw new Error('custom-elements.json is missing: run `npm run build` first.');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const tags = {};
  const byName = (a, b) => a.localeCompare(b);
  for (const mod of manifest.modules ?? []) {
    for (const d of mod.declarations ?? []) {
      if (!d.tagName) continue;
      const publicMember = (m) => !m.static && (m.privacy ?? 'public') === 'public' && !m.name.startsWith('_') && !m.name.startsWith('#');
      tags[d.tagName] = {
        class: d.name,
        attributes: Object.fromEntries((d.attributes ?? []).map((a) => [a.name, a.type?.text ?? '']).sort(([a], [b]) => byName(a, b))),
        properties: Object.fromEntries(
          (d.members ?? [])
            .filter((m) => m.kind === 'field' && publicMember(m))
            .map((m) => [m.name, m.type?.text ?? ''])
            .sort(([a], [b]) => byName(a, b)),
        ),
        methods: (d.members ?? [])
          .filter((m) => m.kind === 'method' && publicMember(m))
          .map((m) => m.name)
          .sort(byName),
        events: Object.fromEntries(
          (d.events ?? [])
            .filter((e) => e.name)
            .map((e) => [e.name, e.type?.text ?? ''])
            .sort(([a], [b]) => byName(a, b)),
        ),
        cssParts: (d.cssParts ?? []).map((p) => p.name).sort(byName),
        cssProperties: (d.cssProperties ?? []).map((p) => p.name).sort(byName),
      };
    }
  }
  return Object.fromEntries(Object.entries(tags).sort(([a], [b]) => byName(a, b)));
}

const KINDS = {
  attributes: 'attribute',
  properties: 'property',
  methods: 'method',
  events: 'event',
  cssParts: 'CSS part',
  cssProperties: 'CSS custom property',
};

/**
 * The differences between the committed summary and the built one: `breaking` (a tag or member
 * removed or renamed, or a type changed) and `additions`, each a sentence naming it.
 * @param {ElementsSummary} committed
 * @param {ElementsSummary} built
 * @returns {{ breaking: string[]; additions: string[] }}
 */
export function compareElements(committed, built) {
  const breaking = [];
  const additions = [];
  for (const tag of Object.keys(committed)) if (!(tag in built)) breaking.push(`<${tag}> removed`);
  for (const tag of Object.keys(built)) if (!(tag in committed)) additions.push(`<${tag}> added`);
  for (const [tag, was] of Object.entries(committed)) {
    const now = built[tag];
    if (!now) continue;
    for (const [key, kind] of Object.entries(KINDS)) {
      const a = was[key] ?? (Array.isArray(now[key]) ? [] : {});
      const b = now[key] ?? (Array.isArray(a) ? [] : {});
      const names = (x) => (Array.isArray(x) ? x : Object.keys(x));
      for (const name of names(a)) if (!names(b).includes(name)) breaking.push(`<${tag}> ${kind} "${name}" removed or renamed`);
      for (const name of names(b)) if (!names(a).includes(name)) additions.push(`<${tag}> ${kind} "${name}" added`);
      if (!Array.isArray(a)) {
        for (const name of Object.keys(a)) {
          if (name in b && a[name] !== b[name])
            breaking.push(`<${tag}> ${kind} "${name}" type changed from ${a[name] || '(none)'} to ${b[name] || '(none)'}`);
        }
      }
    }
  }
  return { breaking, additions };
}

/**
 * api/elements.json's text.
 * @param {ElementsSummary} summary
 * @returns {string}
 */
export const elementsJson = (summary) => `${JSON.stringify(summary, null, 2)}\n`;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--update')) {
    console.error('Usage: node scripts/public-api.mjs --update   (after `npm run build`; `npm run api:update` does both)');
    process.exit(2);
  }
  mkdirSync(API_DIR, { recursive: true });
  for (const name of Object.keys(ENTRIES)) {
    writeFileSync(join(API_DIR, `${name}.api.md`), apiReport(name));
    console.log(`api/${name}.api.md`);
  }
  writeFileSync(join(API_DIR, 'elements.json'), elementsJson(elementsSummary()));
  console.log('api/elements.json');
}
