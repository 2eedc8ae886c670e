/**
 * Where the shared token store is, read from the environment: one server (BIOID_TOKEN_STORE_URL), Sentinel
 * (BIOID_TOKEN_STORE_SENTINEL_URLS + BIOID_TOKEN_STORE_SENTINEL_MASTER) or a Cluster
 * (BIOID_TOKEN_STORE_CLUSTER_URLS), exactly one; and its TLS files (BIOID_TOKEN_STORE_CA_FILE, _CERT_FILE,
 * _KEY_FILE). Part of tokenStoreFromEnv (env.ts). Errors name variables, and an entry of a list by
 * its position, never a value: a URL may hold a password.
 */
import { BioIDError } from '../../core/errors.js';
import { envValue, type EnvLike } from '../config/env-values.js';
import { BROKER_VARIABLES } from '../config/env-variables.js';

const V = {
  url: BROKER_VARIABLES.tokenStoreUrl.env,
  sentinelUrls: BROKER_VARIABLES.tokenStoreSentinelUrls.env,
  sentinelMaster: BROKER_VARIABLES.tokenStoreSentinelMaster.env,
  clusterUrls: BROKER_VARIABLES.tokenStoreClusterUrls.env,
  caFile: BROKER_VARIABLES.tokenStoreCaFile.env,
  certFile: BROKER_VARIABLES.tokenStoreCertFile.env,
  keyFile: BROKER_VARIABLES.tokenStoreKeyFile.env,
} as const;

/** How to write each, for the errors. */
export const STORE_URL_EXAMPLE = 'redis://host:6379, rediss://host:6380 or unix:///path/to/redis.sock';

export interface StoreTopology {
  topology: 'server' | 'sentinel' | 'cluster';
  /** The variable that says where the store is: the one the errors name. */
  variable: string;
  url?: string;
  /** The parsed URL of one server. */
  parsed?: URL;
  sentinel?: { urls: string[]; master: string };
  cluster?: { urls: string[] };
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

/** The store's place, or undefined when none of the three is set (a master alone is an error). */
export function storeTopologyFromEnv(env: EnvLike, error: (message: string) => BioIDError): StoreTopology | undefined {
  const url = envValue(env, V.url);
  const sentinelUrls = envValue(env, V.sentinelUrls);
  const master = envValue(env, V.sentinelMaster);
  const clusterUrls = envValue(env, V.clusterUrls);
  const set = [url && V.url, sentinelUrls && V.sentinelUrls, clusterUrls && V.clusterUrls].filter((name) => !!name);
  if (set.length > 1) {
    throw error(
      `${set.join(' and ')} are ${set.length === 2 ? 'both' : 'all'} set: the shared token store is one server (${V.url}), Sentinel (${V.sentinelUrls}) or a Cluster (${V.clusterUrls}); keep the one you run and unset the others.`,
    );
  }
  if (master !== undefined && sentinelUrls === undefined) {
    throw error(
      `${V.sentinelMaster} is set but ${V.sentinelUrls} is not: set it to your sentinels (redis://sentinel-1:26379,redis://sentinel-2:26379), or unset ${V.sentinelMaster}.`,
    );
  }
  const tls = tlsFromEnv(env, error);
  if (set.length === 0) {
    const file = tls && [V.caFile, V.certFile, V.keyFile].find((name) => envValue(env, name) !== undefined);
    if (file)
      throw error(
        `${file} is set but no shared token store is: set ${V.url} to rediss://host:6380 (or ${V.sentinelUrls}, ${V.clusterUrls}), or unset ${file}.`,
      );
    return undefined;
  }
  let place: StoreTopology;
  let secure: boolean;
  if (url !== undefined) {
    const parsed = serverUrl(url, error);
    place = { topology: 'server', variable: V.url, url, parsed };
    secure = parsed.protocol === 'rediss:';
  } else if (sentinelUrls !== undefined) {
    if (master === undefined) {
      throw error(
        `${V.sentinelUrls} is set but ${V.sentinelMaster} is not: set it to the master's name your sentinels watch (the <name> of "sentinel monitor <name> host port quorum").`,
      );
    }
    const urls = nodeUrls(sentinelUrls, V.sentinelUrls, 'redis://sentinel-1:26379,redis://sentinel-2:26379', error);
    place = { topology: 'sentinel', variable: V.sentinelUrls, sentinel: { urls, master } };
    secure = urls[0].startsWith('rediss:');
  } else {
    const urls = nodeUrls(clusterUrls!, V.clusterUrls, 'redis://node-1:6379,redis://node-2:6379', error);
    // Every node of a cluster gets the same credentials; a seed's own would reach that seed alone.
    if (urls.some((u) => new URL(u).username !== '' || new URL(u).password !== '')) {
      throw error(
        `${V.clusterUrls} carries credentials (user:password@): every node of the cluster takes the same ones, so give them in ${BROKER_VARIABLES.tokenStoreUsername.env} and ${BROKER_VARIABLES.tokenStorePassword.env} instead.`,
      );
    }
    place = { topology: 'cluster', variable: V.clusterUrls, cluster: { urls } };
    secure = urls[0].startsWith('rediss:');
  }
  if (tls && !secure) {
    throw error(
      `TLS files (${[V.caFile, V.certFile, V.keyFile].filter((name) => envValue(env, name) !== undefined).join(', ')}) are set but ${place.variable} is not rediss://: write rediss://host:port, or unset them.`,
    );
  }
  return tls ? { ...place, tls } : place;
}

function serverUrl(url: string, error: (message: string) => BioIDError): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw error(`environment variable ${V.url} is not a URL: write ${STORE_URL_EXAMPLE}.`);
  }
  if (!['redis:', 'rediss:', 'unix:'].includes(parsed.protocol)) {
    throw error(`environment variable ${V.url} must start with redis://, rediss:// or unix://.`);
  }
  if (parsed.protocol === 'unix:' && (parsed.pathname === '' || parsed.pathname === '/')) {
    throw error(`environment variable ${V.url} names no socket: write unix:///path/to/redis.sock.`);
  }
  return parsed;
}

/** A comma-separated list of redis:// or rediss:// nodes, all of one scheme (TLS is all or nothing). */
function nodeUrls(list: string, name: string, example: string, error: (message: string) => BioIDError): string[] {
  const urls = list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  urls.forEach((entry, i) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(entry);
    } catch {
      // Named by position below.
    }
    if (!parsed || !['redis:', 'rediss:'].includes(parsed.protocol) || parsed.hostname === '') {
      throw error(`environment variable ${name}: entry ${i + 1} is not a redis:// or rediss:// URL with a host; write ${example}.`);
    }
  });
  if (new Set(urls.map((entry) => new URL(entry).protocol)).size > 1) {
    throw error(`environment variable ${name} mixes redis:// and rediss://: TLS is used for every node or none; write them all alike.`);
  }
  return urls;
}

/** The TLS files by path, or undefined when none is set; a certificate and its key come together. */
function tlsFromEnv(env: EnvLike, error: (message: string) => BioIDError): StoreTopology['tls'] {
  const caFile = envValue(env, V.caFile);
  const certFile = envValue(env, V.certFile);
  const keyFile = envValue(env, V.keyFile);
  if ((certFile === undefined) !== (keyFile === undefined)) {
    const [given, missing] = certFile === undefined ? [V.keyFile, V.certFile] : [V.certFile, V.keyFile];
    throw error(
      `${given} is set but ${missing} is not: a client certificate (mutual TLS) needs both, the certificate's PEM file and its private key's.`,
    );
  }
  if (caFile === undefined && certFile === undefined) return undefined;
  return {
    ...(caFile === undefined ? {} : { caFile }),
    ...(certFile === undefined ? {} : { certFile, keyFile: keyFile! }),
  };
}
