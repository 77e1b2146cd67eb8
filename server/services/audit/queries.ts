import type { Prisma } from "@/generated/prisma/client";
import type { AuditEntry } from "@/server/api/routers/governance/governance.schema";
import type { Db } from "@/server/db/client";

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
