/**
 * Sign-in attempt limiting that an attacker cannot turn against a user. Failures are counted per (account,
 * client address) and per client address, never per account alone: wrong passwords for lead@ from address A
 * slow down only lead@-from-A and A, so lead@'s right password from B always gets checked. Past a few free
 * failures each key must wait a delay that doubles with every further failure (up to a cap) before its next
 * attempt is checked; an attempt made sooner is refused without checking the password and without counting,
 * so hammering does not lengthen the wait beyond the schedule. A key is forgotten after a quiet period. A
 * success clears its (account, address) key, not the address's (one's own account cannot launder an
 * address's failures). Pure: the clock is passed in; memory is bounded (least recently failed keys go first).
 */
export type Backoff = {
  /** Failures allowed before any delay. */
  free: number;
  /** The delay after the first failure past `free`; it doubles with each further failure. */
  baseMs: number;
  maxMs: number;
};

export type SignInLimits = {
  perAccountAddress: Backoff;
  perAddress: Backoff;
  /** A key with no failure for this long is forgotten (longer than either cap, so the cap is reached). */
  forgetAfterMs: number;
  /** Keys remembered at most (pairs and addresses together). */
  maxKeys: number;
};

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perAccountAddress: { free: 5, baseMs: 1000, maxMs: 5 * 60 * 1000 },
  perAddress: { free: 20, baseMs: 1000, maxMs: 5 * 60 * 1000 },
  forgetAfterMs: 60 * 60 * 1000,
  maxKeys: 10_000,
};

export type SignInCheck =
  | { allowed: true }
  | { allowed: false; retryAfterMs: number; by: "account-address" | "address" };

/** The wait after `failures` failures: none while free, then baseMs, 2·baseMs, 4·baseMs… up to maxMs. */
export function backoffDelayMs(failures: number, backoff: Backoff): number {
  const past = failures - backoff.free;
  if (past <= 0) return 0;
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(past - 1, 40));
}

type Entry = { failures: number; lastAt: number };

export function createSignInLimiter(limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS) {
  /** Map order is least recently failed first. */
  const entries = new Map<string, Entry>();

  const current = (key: string, now: number): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && now - entry.lastAt >= limits.forgetAfterMs) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  const waitFor = (key: string, backoff: Backoff, now: number): number => {
    const entry = current(key, now);
    if (!entry) return 0;
    return Math.max(0, entry.lastAt + backoffDelayMs(entry.failures, backoff) - now);
  };

  const remember = (key: string, now: number) => {
    const failures = (current(key, now)?.failures ?? 0) + 1;
    entries.delete(key);
    entries.set(key, { failures, lastAt: now });
    while (entries.size > limits.maxKeys) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
  };

  const keys = (attempt: { account: string; address: string }) => ({
    pair: `pair:${attempt.address}\n${attempt.account.toLowerCase()}`,
    address: `address:${attempt.address}`,
  });

  return {
    check(attempt: { account: string; address: string }, now: number): SignInCheck {
      const key = keys(attempt);
      const pair = waitFor(key.pair, limits.perAccountAddress, now);
      if (pair > 0) return { allowed: false, retryAfterMs: pair, by: "account-address" };
      const address = waitFor(key.address, limits.perAddress, now);
      if (address > 0) return { allowed: false, retryAfterMs: address, by: "address" };
      return { allowed: true };
    },
    failed(attempt: { account: string; address: string }, now: number): void {
      const key = keys(attempt);
      remember(key.pair, now);
      remember(key.address, now);
    },
    succeeded(attempt: { account: string; address: string }): void {
      entries.delete(keys(attempt).pair);
    },
    size: () => entries.size,
  };
}

export type SignInLimiter = ReturnType<typeof createSignInLimiter>;
