import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { AuditEntry } from "@/server/services/governance/governance.schema";
import { readAudit } from "@/server/store/audit/queries";

/** The audit actions of task governance; team-scoped ones target `team/<name>` or `team/<name>/…`. */
export const GOVERNANCE_ACTIONS = [
  "team.create",
  "quota.update",
  "scheduler.update",
  "member.setRole",
  "member.remove",
  // TV share tokens (cluster admins only: their targets are `shareToken/<id>`, no team's).
  "shareToken.create",
  "shareToken.revoke",
  "shareToken.pair",
  // Single sign-on's group mappings (cluster admins only: `groupMapping/<group>`), and the memberships a
  // sign-in changed by them (`user/<email>`).
  "groupMapping.create",
  "groupMapping.delete",
  "sso.memberships",
];

function teamTargets(team: string): Prisma.AuditLogWhereInput[] {
  return [{ target: `team/${team}` }, { target: { startsWith: `team/${team}/` } }];
}

/**
 * Governance audit entries, newest first, at most `limit`. `teams`: the teams to show (null: all, the
 * scheduler's entries included). The caller decides what the reader may see.
 */
export async function listGovernanceAudit(
  db: Db,
  query: { teams: readonly string[] | null; limit: number },
): Promise<AuditEntry[]> {
  if (query.teams !== null && query.teams.length === 0) return [];
  const where: Prisma.AuditLogWhereInput = {
    action: { in: GOVERNANCE_ACTIONS },
    ...(query.teams === null ? {} : { OR: query.teams.flatMap(teamTargets) }),
  };
  return readAudit(db, where, query.limit);
}
