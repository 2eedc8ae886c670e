/**
 * A limit on failed sign-ins: after `max` failures for one user name from one address within `windowMs`,
 * every sign-in of that pair is refused (the right password too, or guessing would simply go on) until
 * the window ends. Counting the pair, not the user alone, means nobody can lock a user out from elsewhere.
 */
export const MAX_FAILED_SIGN_INS = 5;
export const FAILED_SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

export class SignInLimiter {
  /** key -> failures counted since `since` (ms since the epoch). */
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly max = MAX_FAILED_SIGN_INS,
    private readonly windowMs = FAILED_SIGN_IN_WINDOW_MS,
  ) {}

  /** Milliseconds until `address` may try `username` again; 0 when it may now. */
  blockedFor(address: string, username: string): number {
    const entry = this.current(key(address, username));
    return entry && entry.count >= this.max ? entry.since + this.windowMs - Date.now() : 0;
  }

  failed(address: string, username: string): void {
    this.forgetOld();
    const k = key(address, username);
    const entry = this.current(k) ?? { count: 0, since: Date.now() };
    entry.count += 1;
    this.failures.set(k, entry);
  }

  succeeded(address: string, username: string): void {
    this.failures.delete(key(address, username));
  }

  private current(k: string) {
    const entry = this.failures.get(k);
    return entry && Date.now() < entry.since + this.windowMs ? entry : undefined;
  }

  /** Windows that ended are dropped, so memory stays bounded by the failures of the last window. */
  private forgetOld(): void {
    for (const [k, entry] of this.failures) if (Date.now() >= entry.since + this.windowMs) this.failures.delete(k);
  }
}

// JSON of the pair: no user name can make two different pairs one key.
const key = (address: string, username: string) => JSON.stringify([address, username]);
