/**
 * The demo app's sign-in session: a random id in an `HttpOnly; SameSite=Lax` cookie (`Secure` when the
 * page was served over https) and an in-memory store. This stands for "the integrator's existing
 * session" that gates the token broker (spec 4.1).
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';

export const SESSION_COOKIE = 'bioid_demo_session';
const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;

export interface Session {
  id: string;
  username: string;
  expiresAt: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  /**
   * A sign-in: always a new session id, and the one the browser held before stops working, so an id
   * someone else planted or saw before the sign-in (session fixation) never becomes a signed-in session.
   */
  signIn(username: string, previousCookieHeader: string | null | undefined): Session {
    const previous = readCookie(previousCookieHeader, SESSION_COOKIE);
    if (previous) this.destroy(previous);
    return this.create(username);
  }

  create(username: string): Session {
    const session = { id: randomBytes(32).toString('base64url'), username, expiresAt: Date.now() + SESSION_LIFETIME_MS };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session named by a Cookie header, if any. */
  fromCookieHeader(cookieHeader: string | null | undefined): Session | undefined {
    const id = readCookie(cookieHeader, SESSION_COOKIE);
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (Date.now() > session.expiresAt) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  destroy(id: string): void {
    this.sessions.delete(id);
  }

  get size(): number {
    return this.sessions.size;
  }
}

export function readCookie(header: string | null | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** `secure`: the page was served over https (directly or through a trusted proxy); the cookie then never travels over http. */
export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(id)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_LIFETIME_MS / 1000}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** Constant-time comparison of a submitted credential with the expected one. */
export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
