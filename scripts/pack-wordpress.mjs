#!/usr/bin/env node
// `npm run pack:wordpress`: the WordPress plugin (wordpress/bioid/) as a zip that WordPress's
// Plugins > Add New > Upload Plugin installs. Into the zip, beside the plugin's own files, go:
//  - assets/bioid-elements.js: the script-tag bundle (dist/bioid-elements.js; run `npm run build` first), and
//    beside it every file it loads on use (dist/bioid-<part>.js: bioid-diagnostics.js, and bioid-de.js, bioid-es.js, bioid-fr.js for a page in German, Spanish or French), which it fetches
//    from its own folder;
//  - assets/elements.json: every tag of that bundle with its attributes, from custom-elements.json, so
//    the plugin's blocks, shortcode and allowed HTML follow the elements without a hand-kept list;
//  - LICENSE; and the package version in the plugin header, BIOID_VERSION and readme.txt.
// Node only: the zip is written here (deflate from node:zlib), no zip program or dependency needed.
// Usage: node scripts/pack-wordpress.mjs [--out path/to/bioid.zip]
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { scriptPartFiles } from './script-parts.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Every tag in custom-elements.json with its attribute names.
 * @param {any} manifest custom-elements.json, parsed
 * @returns {Record<string, string[]>}
 */
export function elementTags(manifest) {
  const tags = {};
  for (const module of manifest.modules ?? []) {
    for (const declaration of module.declarations ?? []) {
      if (declaration.tagName) tags[declaration.tagName] = (declaration.attributes ?? []).map((a) => a.name).filter(Boolean);
    }
  }
  return tags;
}

/**
 * The plugin's files as [path in the zip, contents], the built pieces included.
 * @param {string} [root]
 * @returns {{ version: string; files: Array<[string, Buffer]> }}
 */
export function pluginFiles(root = ROOT) {
  const read = (path, what) => {
    try {
      return readFileSync(join(root, path));
    } catch {
      throw new Error(`pack-wordpress: ${path} is missing (${what}). Run npm run build first.`);
    }
  };
  const { version } = JSON.parse(read('package.json', 'the package').toString());
  const tags = elementTags(JSON.parse(read('custom-elements.json', 'the elements manifest').toString()));
  if (!tags['bio-verify']) throw new Error('pack-wordpress: custom-elements.json lists no <bio-verify>; run npm run build.');
  const plugin = join(root, 'wordpress', 'bioid');
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push([`bioid/${relative(plugin, path).split(sep).join('/')}`, stamp(name, readFileSync(path), version)]);
    }
  };
  walk(plugin);
  files.push(['bioid/assets/bioid-elements.js', read('dist/bioid-elements.js', 'the script-tag bundle')]);
  const parts = existsSync(join(root, 'dist')) ? scriptPartFiles(join(root, 'dist')) : [];
  // <bio-diagnostics>' code and the languages other than English (src/elements/parts/localize.ts).
  for (const needed of ['bioid-diagnostics.js', 'bioid-de.js', 'bioid-es.js', 'bioid-fr.js'])
    if (!parts.includes(needed))
      throw new Error(`pack-wordpress: dist/${needed} is missing (the script loads it on use). Run npm run build first.`);
  for (const part of parts) files.push([`bioid/assets/${part}`, read(`dist/${part}`, 'a file the script loads on use')]);
  files.push(['bioid/assets/elements.json', Buffer.from(`${JSON.stringify({ version, tags }, null, 1)}\n`)]);
  files.push(['bioid/LICENSE', read('LICENSE', 'the licence')]);
  return { version, files: files.sort(([a], [b]) => a.localeCompare(b)) };
}

/** The package version into the plugin header, BIOID_VERSION and readme.txt's stable tag. */
function stamp(name, contents, version) {
  if (name === 'bioid.php') {
    return Buffer.from(
      contents
        .toString()
        .replace(/^( \* Version:\s+).*$/m, `$1${version}`)
        .replace(/define\( 'BIOID_VERSION', '[^']*' \)/, `define( 'BIOID_VERSION', '${version}' )`),
    );
  }
  if (name === 'readme.txt') return Buffer.from(contents.toString().replace(/^Stable tag: .*$/m, `Stable tag: ${version}`));
  return contents;
}

// --- A small zip writer (PKWARE APPNOTE: local headers, central directory, end record; deflate). ---

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// A fixed time stamp (2020-01-01 00:00) keeps the zip the same for the same files.
const DOS_TIME = 0;
const DOS_DATE = ((2020 - 1980) << 9) | (1 << 5) | 1;

/**
 * A zip of `files` ([name, contents]); directories are implied by the names.
 * @param {Array<[string, Buffer]>} files
 * @returns {Buffer}
 */
export function zip(files) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const [name, contents] of files) {
    const nameBytes = Buffer.from(name, 'utf8');
    const deflated = deflateRawSync(contents, { level: 9 });
    const stored = deflated.length >= contents.length;
    const data = stored ? contents : deflated;
    const crc = crc32(contents);
    // The local header and the central directory entry carry the same file fields, the entry two bytes
    // later (it starts with "version made by"): written once, at either place.
    const header = (signature, size, at) => {
      const b = Buffer.alloc(size);
      b.writeUInt32LE(signature, 0);
      b.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
      b.writeUInt16LE(0x0800, at + 2); // UTF-8 names
      b.writeUInt16LE(stored ? 0 : 8, at + 4);
      b.writeUInt16LE(DOS_TIME, at + 6);
      b.writeUInt16LE(DOS_DATE, at + 8);
      b.writeUInt32LE(crc, at + 10);
      b.writeUInt32LE(data.length, at + 14);
      b.writeUInt32LE(contents.length, at + 18);
      b.writeUInt16LE(nameBytes.length, at + 22);
      return b;
    };
    const local = header(0x04034b50, 30, 4);
    locals.push(local, nameBytes, data);

    const entry = header(0x02014b50, 46, 6);
    entry.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
    entry.writeUInt32LE((0o100644 << 16) >>> 0, 38); // rw-r--r-- regular file
    entry.writeUInt32LE(offset, 42);
    central.push(entry, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * Writes the plugin zip to `out` (default wordpress/dist/bioid-<version>.zip); returns its path.
 * @param {{ out?: string; root?: string }} [options]
 * @returns {string}
 */
export function packWordPress({ out, root = ROOT } = {}) {
  const { version, files } = pluginFiles(root);
  const path = resolve(out ?? join(root, 'wordpress', 'dist', `bioid-${version}.zip`));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, zip(files));
  return path;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf('--out');
  try {
    const path = packWordPress({ out: at > 0 ? process.argv[at + 1] : undefined });
    console.log(
      `WordPress plugin: ${relative(process.cwd(), path)} (${statSync(path).size} bytes). Upload it in Plugins > Add New > Upload Plugin.`,
    );
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
