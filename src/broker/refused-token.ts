/**
 * Rule 13 (docs/broker-contract.md): a client names a token the middleware refused by its hash
 * (X-Refused-Token), and the broker may replace it. The header is untrusted input: it takes nothing but
 * the hash of the token the caller was just handed, so "ask, hash the answer, ask again with it" would be
 * one exchange with the identity provider per request (and, in client_credentials mode, a new token for
 * the whole organisation each time). So a hint is honoured only when
 *  - it names the token the broker holds for the caller's cache key (the next token has another hash);
 *  - that token was issued at least `minAgeMs` ago: the middleware refuses a new token for a reason a
 *    replacement shares (it does not know the IdP's new signing key yet, clocks apart), never because it
 *    was revoked in its first moments;
 *  - no hint for the same cache key was honoured in the last `intervalMs`, here or, through a shared
 *    store, on any instance.
 * Any other hint is answered with the current token, as if it had not been sent, and every hint is
 * reported as a `refused-token` event with what became of it, so a client that loops shows on a dashboard.
 */
import { hashToken, type TimedTokenCache } from '../core/token-cache.js';
import type { BrokerEvent, RefusedTokenResult } from './events.js';

/** One cache key's token, as the hints for it see it. */
export interface HintTarget {
  /** The cache key (the subject token's hash in the RFC 8693 variant, '' for the organisation's token). */
  readonly key: string;
  readonly cache: TimedTokenCache;
  /** When (epoch ms) a hint for this key was last honoured here. */
  honouredAt: number;
  /** The replacement under way: the refused token, and the token that replaces it. */
  replacing?: { token: string; done: Promise<string> };
}

export interface RefusedTokensOptions {
  minAgeMs: number;
  intervalMs: number;
  emit: (event: BrokerEvent) => void;
  now?: () => number;
  /**
   * With a shared store: takes the key's interval for every instance (SharedTokens.claim): true when
   * taken here, false when another instance took it, undefined when the store cannot say (then this
   * instance's own interval decides).
   */
  claim?: (key: string, intervalMs: number) => Promise<boolean | undefined>;
  /** With a shared store: drops the refused token from it, so the replacement is not the stored token again. */
  forget?: (key: string) => Promise<void>;
}

export class RefusedTokens {
  private readonly now: () => number;

  constructor(private readonly options: RefusedTokensOptions) {
    this.now = options.now ?? Date.now;
  }

  /** A new target for `key`, with no hint honoured yet. */
  static target(key: string, cache: TimedTokenCache): HintTarget {
    return { key, cache, honouredAt: -Infinity };
  }

  /** The token to answer a request whose X-Refused-Token is `hint`, given `token`, the one its cache answered. */
  async answer(target: HintTarget, token: string, hint: string | null | undefined): Promise<string> {
    if (!hint) return token;
    const named = hint === (await hashToken(token));
    const result = this.judge(target, token, named);
    if (result === 'honoured') return this.replace(target, token);
    this.options.emit({ type: 'refused-token', result });
    // The current token: once a replacement under way settled, the one it left.
    await target.replacing?.done.catch(() => undefined);
    return target.cache.get();
  }

  /** What this instance makes of a hint that is (`named`) or is not the hash of `token`. */
  private judge(target: HintTarget, token: string, named: boolean): RefusedTokenResult {
    // Checked after the hash: a concurrent hint may have had the token replaced meanwhile.
    const servedMs = named ? target.cache.servedMs(token) : undefined;
    if (servedMs === undefined || target.replacing?.token === token) return 'not-held';
    if (this.now() - target.honouredAt < this.options.intervalMs) return 'too-soon';
    if (servedMs < this.options.minAgeMs) return 'too-young';
    return 'honoured';
  }

  /**
   * Replaces `token`, unless another instance did within the interval (the shared store's claim): then the
   * refresh reads that replacement from the store. Started without an await, so concurrent hints for the
   * key find it under way and wait for it.
   */
  private replace(target: HintTarget, token: string): Promise<string> {
    target.honouredAt = this.now();
    const done = (async () => {
      const claimed = await this.options.claim?.(target.key, this.options.intervalMs);
      this.options.emit({ type: 'refused-token', result: claimed === false ? 'too-soon' : 'honoured' });
      // A shared store drops it first, or the refresh would be answered with the refused token again.
      if (claimed !== false) await this.options.forget?.(target.key);
      return target.cache.refresh(token);
    })();
    const replacing = { token, done };
    target.replacing = replacing;
    // Not kept once settled: it would hold a token the cache may have let go.
    void done.then(
      () => target.replacing === replacing && delete target.replacing,
      () => target.replacing === replacing && delete target.replacing,
    );
    return done;
  }
}
