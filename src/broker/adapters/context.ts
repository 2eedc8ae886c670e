import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What an adapter knows besides the web `Request`: the Node adapter passes the original `req` and `res`,
 * so `authorize` can read an Express session (`req.session`) or a Passport user. Empty for fetch-style hosts.
 */
export interface BrokerContext {
  req?: IncomingMessage;
  res?: ServerResponse;
  /**
   * A host that may end its work with the answer (a worker's `ctx.waitUntil`, pass its `ctx` as the
   * context): given the shared token store's writes that follow the answer (the token's save, the lock's
   * release, a refused token's delete), so they are not cut off. Node, Bun and Deno servers need none.
   */
  waitUntil?(promise: Promise<unknown>): void;
}
