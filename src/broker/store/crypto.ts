/**
 * The cryptography of a shared token store that others may read (docs/broker.md, "Several instances"):
 *  - a key name is the hex HMAC-SHA-256 of the broker's cache key, so no client id, user or subject
 *    token can be read from it, nor guessed back without the encryption key;
 *  - a value is AES-256-GCM with a random 12-byte IV and the storage key name as additional data, so a
 *    value copied under another key name does not decrypt (and a value that does not decrypt is absent);
 *  - several keys rotate: the first names and encrypts, every one is tried to read.
 * From each 32-byte encryption key, HKDF-SHA-256 derives one key for names and one for values, so neither
 * use weakens the other. WebCrypto only: runs in Node, Bun, Deno and workerd alike.
 */
import { BioIDError } from '../../core/errors.js';

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** How to make a key; shown in every error about one (never the value given). */
export const KEY_HINT = 'generate one with `openssl rand -base64 32`';

/**
 * The raw keys of `encryptionKey`: one base64 string of 32 bytes, a comma-separated list of them, or an
 * array. Throws a config error naming `field` (never echoing the value: it is a secret).
 */
export function readEncryptionKeys(value: unknown, field: string, where: string): Uint8Array<ArrayBuffer>[] {
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  const error = (what: string) => new BioIDError('config', `${where}: ${field} ${what}; ${KEY_HINT}.`);
  if (!list) throw error('is required: 32 random bytes in base64, or a list of them (the first encrypts, all decrypt)');
  const keys = list.map((entry, index) => {
    const bytes = typeof entry === 'string' ? decodeBase64(entry.trim()) : undefined;
    if (!bytes || bytes.length !== KEY_BYTES) {
      const which = list.length > 1 ? ` (entry ${index + 1} of ${list.length})` : '';
      throw error(`must be 32 random bytes in base64 (44 characters)${which}`);
    }
    return bytes;
  });
  if (keys.length === 0) throw error('is empty');
  return keys;
}

/** Standard or URL-safe base64, padded or not; undefined for anything else. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  const body = text.replace(/={1,2}$/, '');
  if (!/^[A-Za-z0-9+/_-]*$/.test(body) || body.length % 4 === 1) return undefined;
  try {
    const binary = atob(
      body
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(body.length / 4) * 4, '='),
    );
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

interface KeyPair {
  names: CryptoKey;
  values: CryptoKey;
}

export class StoreCipher {
  private readonly pairs: Promise<KeyPair[]>;

  constructor(keys: Uint8Array<ArrayBuffer>[]) {
    this.pairs = Promise.all(keys.map(derive));
    // Derivation of valid 32-byte keys does not fail; a rejection would surface on first use anyway.
    this.pairs.catch(() => {});
  }

  /** The storage key names of `cacheKey`, one per encryption key, the first under the encrypting key. */
  async names(cacheKey: string): Promise<string[]> {
    const pairs = await this.pairs;
    return Promise.all(pairs.map((pair) => hmacHex(pair.names, `name\0${cacheKey}`)));
  }

  /** A value to compare, never to read back (the lock holder's id): its HMAC under the first key. */
  async tag(value: string): Promise<string> {
    return hmacHex((await this.pairs)[0].names, `tag\0${value}`);
  }

  /** base64(IV ‖ AES-GCM(plaintext)) with `name` as additional data, under the first key. */
  async seal(name: string, plaintext: string): Promise<string> {
    const key = (await this.pairs)[0].values;
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(name) }, key, encoder.encode(plaintext)),
    );
    const out = new Uint8Array(IV_BYTES + sealed.length);
    out.set(iv);
    out.set(sealed, IV_BYTES);
    return toBase64(out);
  }

  /** The plaintext of a value stored under `name`, trying every key; undefined when none opens it. */
  async open(name: string, value: string): Promise<string | undefined> {
    const bytes = decodeBase64(value);
    if (!bytes || bytes.length <= IV_BYTES + 16) return undefined;
    const iv = bytes.subarray(0, IV_BYTES);
    const data = bytes.subarray(IV_BYTES);
    for (const pair of await this.pairs) {
      try {
        const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(name) }, pair.values, data);
        return decoder.decode(plain);
      } catch {
        // Not this key (or tampered with): try the next one.
      }
    }
    return undefined;
  }
}

async function derive(raw: Uint8Array<ArrayBuffer>): Promise<KeyPair> {
  const base = await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
  const hkdf = (info: string) => ({
    name: 'HKDF',
    hash: 'SHA-256',
    salt: new Uint8Array(0),
    info: encoder.encode(`bioid broker token store: ${info}`),
  });
  const [names, values] = await Promise.all([
    crypto.subtle.deriveKey(hkdf('key names'), base, { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['sign']),
    crypto.subtle.deriveKey(hkdf('values'), base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']),
  ]);
  return { names, values };
}

async function hmacHex(key: CryptoKey, text: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(text)));
  let hex = '';
  for (const byte of mac) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
