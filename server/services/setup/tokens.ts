import { createHash, randomBytes } from "node:crypto";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";

/** A setup link works for 24 hours, once, and only while no cluster admin exists. */
export const SETUP_TOKEN_TTL_MS = 24 * 3600 * 1000;

/** One lock for every step that may create the first admin or a link for it (xact-scoped, so it frees itself). */
const FIRST_ADMIN_LOCK_KEY = 72_707_370;

export const hashSetupToken = (token: string) => createHash("sha256").update(token).digest("hex");

export async function lockFirstAdmin(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${FIRST_ADMIN_LOCK_KEY})`;
}

/** A cluster admin is a user holding the cluster_admin role on some team (server/domain/access/roles.ts). */
export async function clusterAdminExists(db: Prisma.TransactionClient | Db): Promise<boolean> {
  return (await db.membership.count({ where: { role: "cluster_admin" } })) > 0;
}

/**
 * A new setup link's token while no cluster admin exists, else null. Stored as its SHA-256 only, so it can
 * be printed once and never again; any earlier unused token stops working (the last printed link counts).
 */
export async function issueSetupToken(
  db: Db,
  now: Date = new Date(),
): Promise<{ token: string; expiresAt: Date } | null> {
  return db.$transaction(async (tx) => {
    await lockFirstAdmin(tx);
    if (await clusterAdminExists(tx)) return null;
    await tx.setupToken.deleteMany({ where: { usedAt: null } });
    const token = randomBytes(32).toString("base64url");
    const expiresAt = new Date(now.getTime() + SETUP_TOKEN_TTL_MS);
    await tx.setupToken.create({ data: { tokenHash: hashSetupToken(token), expiresAt } });
    return { token, expiresAt };
  });
}

/** Whether the token can create the first admin now (unknown, used or expired tokens cannot). */
export async function usableSetupToken(
  tx: Prisma.TransactionClient | Db,
  opts: { token: string; now: Date },
): Promise<{ id: string } | null> {
  const row = await tx.setupToken.findUnique({
    where: { tokenHash: hashSetupToken(opts.token) },
    select: { id: true, usedAt: true, expiresAt: true },
  });
  if (!row || row.usedAt !== null || row.expiresAt.getTime() <= opts.now.getTime()) return null;
  return { id: row.id };
}
