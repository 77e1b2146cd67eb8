/**
 * Sign-in attempt limiting, per account and per client address (OWASP's advice: both, so one address cannot
 * guess many accounts' passwords and many addresses cannot guess one's). Failures are counted in a sliding
 * window; past the limit, further attempts are refused without checking the password until the oldest
 * failure leaves the window. A success clears the account's failures (not the address's). Pure: the clock
 * is passed in; memory is bounded (the least recently failed keys are forgotten first).
 */
export type SignInLimits = {
  /** Failures allowed per account within the window. */
  perAccount: number;
  /** Failures allowed per client address within the window. */
  perAddress: number;
  windowMs: number;
  /** Keys remembered at most (accounts and addresses together). */
  maxKeys: number;
};

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perAccount: 5,
  perAddress: 20,
  windowMs: 15 * 60 * 1000,
  maxKeys: 10_000,
};

export type SignInCheck =
  | { allowed: true }
  | { allowed: false; retryAfterMs: number; by: "account" | "address" };

export function createSignInLimiter(limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS) {
  /** Failure times per key, oldest first; Map order is least recently failed first. */
  const failures = new Map<string, number[]>();

  const recent = (key: string, now: number): number[] => {
    const times = (failures.get(key) ?? []).filter((at) => now - at < limits.windowMs);
    if (times.length === 0) failures.delete(key);
    else failures.set(key, times);
    return times;
  };

  const blockedFor = (key: string, limit: number, now: number): number | null => {
    const times = recent(key, now);
    if (times.length < limit) return null;
    const oldestCounted = times[times.length - limit] ?? now;
    return Math.max(1, oldestCounted + limits.windowMs - now);
  };

  const remember = (key: string, now: number) => {
    const times = recent(key, now);
    failures.delete(key);
    failures.set(key, [...times, now].slice(-Math.max(limits.perAccount, limits.perAddress)));
    while (failures.size > limits.maxKeys) {
      const oldest = failures.keys().next().value;
      if (oldest === undefined) break;
      failures.delete(oldest);
    }
  };

  const keys = (attempt: { account: string; address: string }) => ({
    account: `account:${attempt.account.toLowerCase()}`,
    address: `address:${attempt.address}`,
  });

  return {
    check(attempt: { account: string; address: string }, now: number): SignInCheck {
      const key = keys(attempt);
      const account = blockedFor(key.account, limits.perAccount, now);
      if (account !== null) return { allowed: false, retryAfterMs: account, by: "account" };
      const address = blockedFor(key.address, limits.perAddress, now);
      if (address !== null) return { allowed: false, retryAfterMs: address, by: "address" };
      return { allowed: true };
    },
    failed(attempt: { account: string; address: string }, now: number): void {
      const key = keys(attempt);
      remember(key.account, now);
      remember(key.address, now);
    },
    succeeded(attempt: { account: string; address: string }): void {
      failures.delete(keys(attempt).account);
    },
    size: () => failures.size,
  };
}

export type SignInLimiter = ReturnType<typeof createSignInLimiter>;
