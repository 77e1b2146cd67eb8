import type { Db } from "@/server/db/client";
import { ensureSuppliedAdmin } from "./first-admin";
import { clusterAdminExists, issueSetupToken } from "./tokens";

export type FirstAdminOutcome =
  | { kind: "supplied"; email: string; created: boolean }
  | { kind: "link"; token: string; expiresAt: Date }
  | { kind: "admin-exists" };

/**
 * At start, after migrating and seeding: the installer's admin when one is supplied; otherwise, while no
 * cluster admin exists, a new setup link's token (the caller prints it, once). Nothing when an admin exists.
 */
export async function bootstrapFirstAdmin(
  db: Db,
  admin: { email: string; password: string } | null,
): Promise<FirstAdminOutcome> {
  if (admin) {
    const result = await ensureSuppliedAdmin(db, admin);
    return { kind: "supplied", email: admin.email.toLowerCase(), created: result === "created" };
  }
  if (await clusterAdminExists(db)) return { kind: "admin-exists" };
  const link = await issueSetupToken(db);
  return link ? { kind: "link", ...link } : { kind: "admin-exists" };
}
