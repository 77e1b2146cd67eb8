import type { Db } from "@/server/db/client";
import { createSignInLimiter, type SignInLimiter } from "@/server/domain/access/sign-in-limiter";
import { AppError } from "@/server/errors";
import { type SessionUser, signIn } from "./sessions";

/**
 * Sign-in with growing delays (server/domain/access/sign-in-limiter.ts) per (account, client address) and per
 * client address, never a lock on the account: another address's failures cannot keep a user out. The
 * address is the one REBOUND_TRUSTED_PROXIES lets us believe (client-address.ts). The console's one process
 * keeps the counts in memory: a restart forgets them, and several console replicas each count their own.
 */
const processLimiter = createSignInLimiter();

export async function limitedSignIn(
  db: Db,
  attempt: { email: string; password: string; address: string },
  limiter: SignInLimiter = processLimiter,
): Promise<{ token: string; user: SessionUser; expiresAt: Date }> {
  const key = { account: attempt.email, address: attempt.address };
  const check = limiter.check(key, Date.now());
  if (!check.allowed) {
    const seconds = Math.ceil(check.retryAfterMs / 1000);
    throw new AppError(
      "TOO_MANY_REQUESTS",
      `too many failed sign-ins ${check.by === "address" ? "from this address" : "for this account from this address"}: try again in ${seconds} s`,
    );
  }
  const result = await signIn(db, { email: attempt.email, password: attempt.password });
  if (!result.ok) {
    limiter.failed(key, Date.now());
    throw new AppError("UNAUTHORIZED", result.reason);
  }
  limiter.succeeded(key);
  return result;
}
