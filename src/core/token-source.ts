// A module of its own so that the options (config.ts) and the sources that implement it (auth.ts,
// token-broker-client.ts) can both name it without importing each other.

/**
 * Where every middleware call takes its bearer token from (spec 5): `brokerTokenSource(url)`, or the
 * source a reader or BioID builds from its `auth` option. One cache behind it, so caching, single flight
 * and the 401 refresh rule behave the same everywhere.
 */
export interface TokenSource {
  /** The current token, fetched on first use. */
  get(signal?: AbortSignal): Promise<string>;
  /** A token to retry with after the middleware answered 401 to `stale`. */
  refresh(stale: string, signal?: AbortSignal): Promise<string>;
  /**
   * Called before `token` is sent to the middleware at `origin`: throws a config error when the token is
   * bound to another middleware (docs/wire-contract.md, "Tokens"). Sources whose tokens serve one middleware need none.
   */
  bind?(token: string, origin: string): void;
  /** Called when the middleware refused `token` again after a refresh: it is not handed out again. */
  drop?(token: string): void;
  /** Set when the source bounds its own waits (`brokerTokenSource(url, { timeoutMs })`); otherwise the instance's timeoutMs does. */
  timeoutMs?: number;
}
