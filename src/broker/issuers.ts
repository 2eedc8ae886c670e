/**
 * Who issues the broker's tokens: in client-credentials mode one token for the whole organisation (spec 1:
 * a machine identity), in exchange mode (RFC 8693) one cache per end user, never shared between users.
 * With a shared store (docs/broker.md, "Several instances"), a local miss asks the store before the
 * identity provider, so that all instances together make one exchange per token life. Both judge
 * X-Refused-Token (rule 13) through RefusedTokens, and report each exchange as an `exchange` event.
 */
import { BioIDError } from '../core/errors.js';
import { clientCredentialsForm, exchangeToken, tokenExchangeForm } from '../core/exchange.js';
import { TimedTokenCache, type DatedToken, type IssuedToken } from '../core/token-cache.js';
import { tokenCacheKey } from './store/cache-key.js';
import type { BrokerEvent, ExchangeEvent } from './events.js';
import type { ResolvedBrokerOptions } from './config/resolve-options.js';
import { RefusedTokens } from './refused-token.js';
import { SharedTokens } from './store/shared-tokens.js';
import { UserTokens } from './user-tokens.js';

/** A token to answer with, and what is left of its cached life in seconds. */
export interface Issued {
  accessToken: string;
  remaining: number | undefined;
}

export interface TokenIssuer {
  /**
   * The organisation's token, or (exchange mode) the token of the user whose subject token is given;
   * `refusedToken` is the request's X-Refused-Token. Rejects when the identity provider issues none.
   */
  issue(refusedToken: string | null, subjectToken?: string): Promise<Issued>;
  /** The shared store, whose writes after an answer a host that ends its work with the answer waits for. */
  readonly store: SharedTokens | undefined;
}

type Exchange = (grant: ExchangeEvent['grant'], form: URLSearchParams) => Promise<IssuedToken>;

/** A 4xx from the identity provider: it refused the grant, rather than failed. */
export const refusedByIdp = (error: unknown): boolean =>
  error instanceof BioIDError && error.code === 'auth' && error.status !== undefined && error.status >= 400 && error.status < 500;

export function createIssuer(config: ResolvedBrokerOptions, emit: (event: BrokerEvent) => void): TokenIssuer {
  const { client, endpoint, tokenExchange } = config;
  const store = config.store
    ? new SharedTokens({
        store: config.store,
        timeoutMs: config.storeTimeoutMs,
        waitMs: config.timeoutMs,
        lockWaitMs: config.storeLockWaitMs,
        emit,
      })
    : undefined;
  const machineKey = tokenCacheKey(endpoint, client, 'client_credentials');
  /** A cache key in the store: the organisation's token (''), or a user's by their subject token's hash. */
  const storeKey = (key: string) => (tokenExchange ? tokenCacheKey(endpoint, client, 'token-exchange', key) : machineKey);
  const refusals = new RefusedTokens({
    minAgeMs: config.refusedTokenMinAgeMs,
    intervalMs: config.refusedTokenIntervalMs,
    emit,
    ...(store && {
      claim: (key: string, intervalMs: number) => store.claim(`${storeKey(key)}#refused`, intervalMs),
      forget: (key: string) => store.forget(storeKey(key)),
    }),
  });
  const exchange = timedExchange(config, emit);
  if (!tokenExchange) {
    const machineToken = () => exchange('client_credentials', clientCredentialsForm(client));
    return machineIssuer(new TimedTokenCache(store ? () => store.obtain(machineKey, machineToken) : machineToken), refusals, store);
  }
  const userToken = (subjectToken: string) => exchange('token-exchange', tokenExchangeForm(client, subjectToken));
  const { maxReuseMs, maxCachedUsers } = tokenExchange;
  const users = new UserTokens(
    store ? (subjectToken, hash) => sharedUserToken(store, storeKey(hash), () => userToken(subjectToken), maxReuseMs) : userToken,
    maxCachedUsers,
    {
      maxReuseMs,
      // A user's earlier subject token retired here is dropped from the store too (never awaited:
      // forget never throws and is bounded by storeTimeoutMs).
      onRetire: store && ((hash) => store.forget(storeKey(hash))),
      refusals,
    },
  );
  return {
    store,
    async issue(refusedToken, subjectToken) {
      const { accessToken, remainingSeconds } = await users.get(subjectToken!, refusedToken);
      return { accessToken, remaining: remainingSeconds };
    },
  };
}

/** The organisation's one token, cached just under its expires_in with single flight. */
function machineIssuer(cache: TimedTokenCache, refusals: RefusedTokens, store: SharedTokens | undefined): TokenIssuer {
  const machine = RefusedTokens.target('', cache);
  return {
    store,
    async issue(refusedToken) {
      const accessToken = await refusals.answer(machine, await machine.cache.get(), refusedToken);
      return { accessToken, remaining: machine.cache.remainingSeconds() };
    },
  };
}

/** An IdP exchange, reported as an `exchange` event with its result and duration. */
function timedExchange({ endpoint, fetchImpl, timeoutMs }: ResolvedBrokerOptions, emit: (event: BrokerEvent) => void): Exchange {
  const exchangeOptions = { fetchImpl, timeoutMs };
  return async (grant, form) => {
    const started = performance.now();
    const report = (result: ExchangeEvent['result'], status?: number) =>
      emit({ type: 'exchange', grant, result, ...(status === undefined ? {} : { status }), durationMs: performance.now() - started });
    try {
      const issued = await exchangeToken(endpoint, form, exchangeOptions);
      report('ok');
      return issued;
    } catch (error) {
      report(refusedByIdp(error) ? 'refused' : 'failed', error instanceof BioIDError ? error.status : undefined);
      throw error;
    }
  };
}

/**
 * One user's token through the store. What is stored is already capped at maxReuseMs, so no instance
 * serves it longer than the revocation bound; a subject token the IdP refuses is dropped from the store
 * too, so the other instances ask the IdP again instead of serving what was cached for it.
 */
async function sharedUserToken(
  store: SharedTokens,
  key: string,
  userToken: () => Promise<IssuedToken>,
  maxReuseMs: number,
): Promise<DatedToken> {
  try {
    return await store.obtain(key, async () => {
      const issued = await userToken();
      return { accessToken: issued.accessToken, expiresIn: Math.min(issued.expiresIn ?? Infinity, maxReuseMs / 1000) };
    });
  } catch (error) {
    // The refusal is answered at once; the delete follows (forget never throws, and reports a failure).
    if (refusedByIdp(error)) void store.forget(key);
    throw error;
  }
}
