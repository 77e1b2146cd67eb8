import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";

/** One audit row with who wrote it (null: no user, or one since deleted). */
export type AuditEntry = {
  id: string;
  at: Date;
  actor: { id: string; name: string } | null;
  action: string;
  target: string;
  details: unknown;
};

/** Audit entries matching `where`, newest first, at most `limit`, with who made each (governance, policies). */
export async function readAudit(
  db: Db,
  where: Prisma.AuditLogWhereInput,
  limit: number,
): Promise<AuditEntry[]> {
  const rows = await db.auditLog.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    select: {
      id: true,
      createdAt: true,
      action: true,
      target: true,
      details: true,
      user: { select: { id: true, name: true } },
    },
  });
  return rows.map((row) => ({
    id: row.id,
    at: row.createdAt,
    actor: row.user,
    action: row.action,
    target: row.target,
    details: row.details,
  }));
}
