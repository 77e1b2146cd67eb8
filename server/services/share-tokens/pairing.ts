import type { Db } from "@/server/db/client";
import { isTvView, type TvView } from "@/server/domain/access/share";
import {
  createSignInLimiter,
  type SignInLimiter,
  type SignInLimits,
} from "@/server/domain/access/sign-in-limiter";
import { AppError } from "@/server/errors";
import { writeAudit } from "@/server/store/audit/mutations";
import { hashShareSecret } from "./grants";
import { hashPairingCode, newShareSecret } from "./mutations";

/**
 * Wrong codes per client address, with sign-in's growing delays (server/domain/access/sign-in-limiter.ts):
 * 10 free, then 1 s doubling up to 5 min, so one address gets about a dozen tries an hour and 40-bit codes
 * living 10 minutes stay out of reach; only the failing address waits, so a flood from one address does not
 * keep another's TV from pairing. The address is the one REBOUND_TRUSTED_PROXIES lets us believe. The
 * console's one process keeps the counts in memory, like sign-in's.
 */
const PAIRING_BACKOFF = { free: 10, baseMs: 1000, maxMs: 5 * 60 * 1000 };
export const PAIRING_LIMITS: SignInLimits = {
  perAccountAddress: PAIRING_BACKOFF,
  perAddress: PAIRING_BACKOFF,
  forgetAfterMs: 60 * 60 * 1000,
  maxKeys: 10_000,
};
const processLimiter = createSignInLimiter(PAIRING_LIMITS);

export const WRONG_CODE_MESSAGE =
  "code: this pairing code is wrong, expired or already used: ask a cluster admin for a new one";

/**
 * Redeems a pairing code (normalized, see pairing-code.ts): the token gets a fresh secret (its hash
 * stored), the code is cleared, and the secret is returned for the TV's cookie with the first view to
 * open. Any wrong, expired or used code gets one message and changes nothing; failures count per address.
 */
export async function pairWithCode(
  db: Db,
  attempt: { code: string; address: string },
  limiter: SignInLimiter = processLimiter,
): Promise<{ secret: string; view: TvView }> {
  const key = { account: "pairing", address: attempt.address };
  const check = limiter.check(key, Date.now());
  if (!check.allowed) {
    const seconds = Math.ceil(check.retryAfterMs / 1000);
    throw new AppError(
      "TOO_MANY_REQUESTS",
      `too many wrong pairing codes from this address: try again in ${seconds} s`,
    );
  }
  const secret = newShareSecret();
  const paired = await db.$transaction(async (tx) => {
    const claimed = await tx.shareToken.updateManyAndReturn({
      where: {
        pairingCodeHash: hashPairingCode(attempt.code),
        pairingExpiresAt: { gt: new Date() },
        revokedAt: null,
        tokenHash: null,
      },
      data: { tokenHash: hashShareSecret(secret), pairingCodeHash: null, pairingExpiresAt: null },
      select: { id: true, label: true, views: true },
    });
    const row = claimed[0];
    if (!row) return null;
    const view = row.views.find(isTvView);
    // A token always names a view (the schema's rule); without one, pairing would open nothing: undone.
    if (!view) throw new AppError("INVALID", WRONG_CODE_MESSAGE);
    await writeAudit(tx, {
      userId: null,
      action: "shareToken.pair",
      target: `shareToken/${row.id}`,
      details: { label: row.label, address: attempt.address },
    });
    return { view };
  });
  if (!paired) {
    limiter.failed(key, Date.now());
    throw new AppError("INVALID", WRONG_CODE_MESSAGE);
  }
  return { secret, view: paired.view };
}
