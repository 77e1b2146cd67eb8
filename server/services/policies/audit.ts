import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import type { AuditEntry } from "@/server/services/governance/governance.schema";
import { readAudit } from "@/server/store/audit/queries";

/**
 * The policy audit, newest first (issue 12: "the audit log shows who did what"): creates and saves of a
 * team's policies (target `team/<name>/policy/<policy>`) and applies, shadows and promotions on its jobs
 * (target `<namespace>/<job>`). The caller decides which teams the reader may see.
 */
export const POLICY_ACTIONS = [
  "policy.create",
  "policy.save",
  "policy.apply",
  "policy.shadow",
  "policy.unshadow",
  "policy.promote",
];

type AuditTeam = { name: string; namespace: string };

function teamTargets(team: AuditTeam): Prisma.AuditLogWhereInput[] {
  return [
    { target: { startsWith: `team/${team.name}/policy/` } },
    { target: { startsWith: `${team.namespace}/` } },
  ];
}

export async function listPolicyAudit(
  db: Db,
  query: { teams: readonly AuditTeam[]; job?: { namespace: string; name: string }; limit: number },
): Promise<AuditEntry[]> {
  if (query.teams.length === 0) return [];
  const where: Prisma.AuditLogWhereInput = {
    action: { in: POLICY_ACTIONS },
    OR: query.teams.flatMap(teamTargets),
    ...(query.job ? { target: `${query.job.namespace}/${query.job.name}` } : {}),
  };
  return readAudit(db, where, query.limit);
}
