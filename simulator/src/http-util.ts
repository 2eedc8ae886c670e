/** Small HTTP helpers shared by the simulator's servers and the demo app: listen/close, CORS, JSON errors. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, Response, RequestHandler, Express } from 'express';
import { SimError } from './workstation.js';

export interface Listening {
  server: Server;
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
}

/** Listens on host:port (port 0 = any free port) and resolves once listening. */
export function listen(app: Express, host = '127.0.0.1', port = 0): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      resolve({ server, port: address.port, url: `http://${host}:${address.port}` });
    });
  });
}

/** Closes the server and every open connection (keep-alive sockets would otherwise hold the port). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Which browser origins may call a server. `'loopback'` (the simulator's default) allows any
 * http://127.0.0.1:* or http://localhost:* page, so a page an integrator serves on any local port works.
 */
export type AllowedOrigins = 'loopback' | readonly string[];

export function originAllowed(origin: string, allowed: AllowedOrigins): boolean {
  if (allowed === 'loopback') return /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin);
  return allowed.includes(origin);
}

/**
 * CORS for JSON APIs called from the demo pages. Preflights answer 204; `privateNetwork` adds
 * `Access-Control-Allow-Private-Network: true` (Chromium's Private Network Access preflight for a
 * public page calling a service on the user's machine, as the real local hardware service must).
 */
export function cors(allowed: AllowedOrigins, headers: string[], privateNetwork = false): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    if (origin && originAllowed(origin, allowed)) {
      res.set('Access-Control-Allow-Origin', origin);
      res.append('Vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
        res.set('Access-Control-Allow-Headers', headers.join(', '));
        res.set('Access-Control-Max-Age', '600');
        if (privateNetwork && req.get('access-control-request-private-network') === 'true') {
          res.set('Access-Control-Allow-Private-Network', 'true');
        }
        res.status(204).end();
        return;
      }
    } else if (req.method === 'OPTIONS') {
      // Not an allowed origin: no CORS headers, so the browser refuses the real request.
      res.status(204).end();
      return;
    }
    next();
  };
}

export function sendError(res: Response, status: number, error: string, message: string): void {
  res.status(status).json({ error, message });
}

/** Express error handler: SimError keeps its status; a body-parser failure is a 400; anything else a 500. */
export function jsonErrors(where: string) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    if (err instanceof SimError) return sendError(res, err.status, err.error, err.message);
    const status = (err as { status?: number; type?: string }).status;
    if (status === 400 || (err as { type?: string }).type === 'entity.parse.failed') {
      return sendError(res, 400, 'bad_request', 'The request body is not valid JSON.');
    }
    console.error(`${where}: unexpected error`, err instanceof Error ? err.message : err);
    sendError(res, 500, 'internal_error', `${where} failed unexpectedly; see its console.`);
  };
}

/** Wraps an async route so a rejection reaches the error handler (Express 5 does this too; explicit for clarity). */
export function route(handler: (req: Request, res: Response) => Promise<void> | void): RequestHandler {
  return (req, res, next) => {
    Promise.resolve(handler(req, res)).catch(next);
  };
}

/**
 * The value of the cookie `name` in a Cookie header, percent-decoded (as the setters encode it); a value
 * that is not well-formed percent-encoding is returned as sent, so a stray `%` is a session that does not
 * exist rather than an exception. Undefined when the cookie is absent.
 */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}
