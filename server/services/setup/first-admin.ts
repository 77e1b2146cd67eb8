import { hash } from "@node-rs/argon2";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { CreateAdminInput } from "@/server/services/setup/setup.schema";
import { writeAudit } from "@/server/store/audit/mutations";
import { clusterAdminExists, lockFirstAdmin, usableSetupToken } from "./tokens";

/**
 * The team the first admin holds the cluster_admin role on: in Rebound a role is held on a team, and a
 * production database starts with none. A cluster admin creates the real teams in the console.
 */
export const ADMIN_TEAM = { name: "platform", displayName: "Platform", namespace: "hyperpod-ns-platform" };

export type CreateFirstAdminResult = { ok: true; userId: string } | { ok: false; reason: string };

async function createClusterAdmin(
  tx: Prisma.TransactionClient,
  user: { email: string; name: string; passwordHash: string },
): Promise<string> {
  const team = await tx.team.upsert({
    where: { name: ADMIN_TEAM.name },
    create: ADMIN_TEAM,
    update: {},
    select: { id: true },
  });
  const row = await tx.user.create({
    data: { ...user, memberships: { create: { teamId: team.id, role: "cluster_admin" } } },
    select: { id: true },
  });
  return row.id;
}

/** Why a setup link cannot create an admin now, or null when it can. */
async function refusal(tx: Prisma.TransactionClient, opts: { token: string; email: string; now: Date }) {
  if (await clusterAdminExists(tx)) return "setup is closed: a cluster admin already exists; sign in instead";
  if (!(await usableSetupToken(tx, opts))) {
    return "this setup link is unknown, used or expired: restart the console and use the new link its log prints";
  }
  const taken = await tx.user.findUnique({ where: { email: opts.email }, select: { id: true } });
  return taken ? `a user with the email ${opts.email} already exists` : null;
}

/**
 * The setup page's step: with a usable link and no cluster admin yet, creates the user as cluster admin,
 * uses the link up (every other link with it) and audits it, in one transaction.
 */
export async function createFirstAdmin(
  db: Db,
  args: { input: CreateAdminInput; now?: Date },
): Promise<CreateFirstAdminResult> {
  const now = args.now ?? new Date();
  const email = args.input.email.toLowerCase();
  const passwordHash = await hash(args.input.password);
  return db.$transaction(async (tx) => {
    await lockFirstAdmin(tx);
    const reason = await refusal(tx, { token: args.input.token, email, now });
    if (reason) return { ok: false, reason };
    const userId = await createClusterAdmin(tx, { email, name: args.input.name, passwordHash });
    await tx.setupToken.updateMany({ where: { usedAt: null }, data: { usedAt: now } });
    await writeAudit(tx, {
      userId,
      action: "setup.first-admin",
      target: `user/${email}`,
      details: { via: "setup-link", team: ADMIN_TEAM.name },
    });
    return { ok: true, userId };
  });
}

export type SuppliedAdminResult = "created" | "exists";

/**
 * The installer's admin (REBOUND_ADMIN_EMAIL + REBOUND_ADMIN_PASSWORD): created as cluster admin when no
 * user has that email; an existing user is left as it is (its password is not reset). Voids setup links.
 */
export async function ensureSuppliedAdmin(
  db: Db,
  admin: { email: string; password: string },
): Promise<SuppliedAdminResult> {
  const email = admin.email.toLowerCase();
  if (await db.user.findUnique({ where: { email }, select: { id: true } })) return "exists";
  const passwordHash = await hash(admin.password);
  return db.$transaction(async (tx) => {
    await lockFirstAdmin(tx);
    if (await tx.user.findUnique({ where: { email }, select: { id: true } })) return "exists";
    const userId = await createClusterAdmin(tx, { email, name: "Cluster Admin", passwordHash });
    await tx.setupToken.updateMany({ where: { usedAt: null }, data: { usedAt: new Date() } });
    await writeAudit(tx, {
      userId,
      action: "setup.first-admin",
      target: `user/${email}`,
      details: { via: "REBOUND_ADMIN_PASSWORD", team: ADMIN_TEAM.name },
    });
    return "created";
  });
}
