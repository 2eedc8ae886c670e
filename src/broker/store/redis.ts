/**
 * `redisTokenStore`: the shared token store over Redis 7 or Valkey 7/8, through a node-redis 5 client that
 * the integrator creates, connects and closes: `createClient()` for one server, `createSentinel()` for a
 * master watched by sentinels, `createCluster()` for a cluster. bioid-sdk does not depend on `redis`: the
 * client is typed by the few commands used here, which the three have alike.
 *
 * What Redis holds (docs/broker.md, "Several instances"): key names `prefix` + hex HMAC of the broker's
 * cache key, values AES-256-GCM bound to their key name (crypto.ts). The encryption key is never
 * sent to Redis. Lock values are only compared, so they are stored as their HMAC. A lock's remaining life
 * is read with PTTL (`remainingMs`), when the client has it.
 *
 * Cluster: every command here names one key, so each goes to that key's master whatever the slot. A value
 * and its lock are two keys (shared-tokens.ts names the lock `<key>#lock`), HMACs apart and so in unrelated
 * slots, and no operation needs both at once: taking, reading and releasing the lock are separate
 * commands, as are the token's read and write. No hash tag is needed, and none is used: a tag would put
 * every user's keys of one prefix on one master.
 */
import { BioIDError } from '../../core/errors.js';
import { StoreCipher, readEncryptionKeys } from './crypto.js';
import type { TokenStore } from './token-store.js';

/** The node-redis 5 commands the store uses (a `RedisClientType`, `RedisSentinelType` or `RedisClusterType` fits). */
export interface RedisClientLike {
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options: { expiration: { type: 'PX'; value: number }; condition?: 'NX' }): Promise<unknown>;
  del(keys: string | string[]): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  /** PTTL: optional, so a client typed before it still fits; without it the store has no `remainingMs`. */
  pTTL?(key: string): Promise<unknown>;
}

export interface RedisTokenStoreOptions {
  client: RedisClientLike;
  /** 32 random bytes in base64 (`openssl rand -base64 32`), or a list of them: the first encrypts, all decrypt. */
  encryptionKey: string | readonly string[];
  /** Prefix of every key name; default `bioid:broker:`. */
  prefix?: string;
}

export const DEFAULT_STORE_PREFIX = 'bioid:broker:';

const WHERE = 'redisTokenStore';

/** Deletes KEYS[1] only while it holds ARGV[1]: a lock released by its holder only, in one step. */
const COMPARE_AND_DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export function redisTokenStore(options: RedisTokenStoreOptions): TokenStore {
  if (typeof options !== 'object' || options === null)
    throw new BioIDError('config', `${WHERE}: options { client, encryptionKey } are required.`);
  const { client } = options;
  if (
    typeof client !== 'object' ||
    client === null ||
    !(['get', 'set', 'del', 'eval'] as const).every((m) => typeof client[m] === 'function')
  ) {
    throw new BioIDError(
      'config',
      `${WHERE}: client must be a node-redis 5 client (createClient(), createSentinel() or createCluster() of the redis package).`,
    );
  }
  const cipher = new StoreCipher(readEncryptionKeys(options.encryptionKey, 'encryptionKey', WHERE));
  const prefix = options.prefix ?? DEFAULT_STORE_PREFIX;
  if (typeof prefix !== 'string') throw new BioIDError('config', `${WHERE}: prefix must be a string such as "${DEFAULT_STORE_PREFIX}".`);
  const names = async (key: string) => (await cipher.names(key)).map((name) => prefix + name);
  const ttl = (ttlMs: number) => ({ type: 'PX' as const, value: Math.max(1, Math.ceil(ttlMs)) });
  const pTTL = typeof client.pTTL === 'function' ? client.pTTL.bind(client) : undefined;

  const store: TokenStore = {
    async get(key) {
      // The encrypting key's name first; older keys' names only on a miss (while keys rotate).
      for (const name of await names(key)) {
        const value = await client.get(name);
        if (typeof value !== 'string') continue;
        const plain = await cipher.open(name, value);
        if (plain !== undefined) return plain;
      }
      return undefined;
    },
    async set(key, value, ttlMs) {
      const [name] = await names(key);
      await client.set(name, await cipher.seal(name, value), { expiration: ttl(ttlMs) });
    },
    async delete(key) {
      // One DEL per name: in a cluster, names of different keys live in different slots.
      await Promise.all((await names(key)).map((name) => client.del(name)));
    },
    async setIfAbsent(key, value, ttlMs) {
      const [[name], tag] = await Promise.all([names(key), cipher.tag(value)]);
      const reply = await client.set(name, tag, { expiration: ttl(ttlMs), condition: 'NX' });
      return reply === 'OK';
    },
    async compareAndDelete(key, value) {
      const [[name], tag] = await Promise.all([names(key), cipher.tag(value)]);
      const reply = await client.eval(COMPARE_AND_DELETE, { keys: [name], arguments: [tag] });
      return Number(reply) === 1;
    },
  };
  if (pTTL) {
    store.remainingMs = async (key) => {
      const [name] = await names(key);
      // PTTL: -2 when the key is absent, -1 when it has no expiry (a lock no broker sets: see TokenStore).
      const reply = Number(await pTTL(name));
      return reply === -1 ? Infinity : reply >= 0 ? reply : undefined;
    };
  }
  return store;
}
