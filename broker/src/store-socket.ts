/**
 * Keeps the shared token store's TLS sockets from crashing the process. node-redis listens for a socket's
 * first 'error' only (`once`). A server that refuses this instance's client certificate (mutual TLS, none
 * sent or one its CA did not sign) does so after the handshake: its alert is the first error, which
 * node-redis reports (serve-store.ts logs it with the hint), and the reset that often follows is a second
 * 'error' on the same socket with nobody listening, which ends the process.
 *
 * node-redis hands its socket options to `tls.connect` (copied, own symbol keys included): the store's
 * carry STORE_SOCKET, and the sockets made with them get a listener of their own for every later error.
 * Other TLS connections of the process pass through untouched.
 */
import { createRequire } from 'node:module';

/** Set in the store's socket options: `{ [STORE_SOCKET]: true, ... }`. */
export const STORE_SOCKET = Symbol('bioid-broker store socket');

type Connect = (...args: unknown[]) => { on(event: 'error', listener: () => void): unknown };
let kept = false;

/** Once per process: wraps `tls.connect` (the module object node-redis requires) for the store's sockets. */
export function keepStoreSocketErrors(): void {
  if (kept) return;
  kept = true;
  const tls = createRequire(import.meta.url)('node:tls') as { connect: Connect };
  const connect = tls.connect;
  tls.connect = function (this: unknown, ...args: unknown[]) {
    const socket = connect.apply(this, args);
    const marked = args.some((arg) => typeof arg === 'object' && arg !== null && (arg as Record<symbol, unknown>)[STORE_SOCKET] === true);
    if (marked) {
      socket.on('error', () => {
        // The first error reached node-redis, which reports it; a later one on this socket says nothing more.
      });
    }
    return socket;
  };
}
