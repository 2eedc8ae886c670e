import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What an adapter knows besides the web `Request`: the Node adapter passes the original `req` and `res`,
 * so `authorize` can read an Express session (`req.session`) or a Passport user. Empty for fetch-style hosts.
 */
export interface BrokerContext {
  req?: IncomingMessage;
  res?: ServerResponse;
}
