import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import type {
  PolicyListItem,
  PolicyVersionView,
  PolicyView,
  VersionSummary,
} from "@/server/services/policies/policies.schema";

/**
 * Reads of the policy library (issue 12): a team's named policies and their versions. The caller decides
 * what the reader may see (server/domain/access/policies.ts) and passes `canEdit`.
 */

/** The versions a policy page lists, newest first (older ones stay readable by number). */
export const MAX_LISTED_VERSIONS = 200;

const summarySelect = {
  version: true,
  author: true,
  createdAt: true,
  message: true,
} satisfies Prisma.PolicyVersionSelect;

const policySelect = {
  id: true,
  name: true,
  description: true,
  team: { select: { id: true, name: true } },
} satisfies Prisma.PolicySelect;

const notFound = (id: string) => new AppError("NOT_FOUND", `policy ${id} not found`);

/** The team a policy belongs to (for the access check), or NOT_FOUND. */
export async function policyTeam(db: Db, id: string): Promise<{ id: string; name: string }> {
  const row = await db.policy.findUnique({
    where: { id },
    select: { team: { select: policySelect.team.select } },
  });
  if (!row) throw notFound(id);
  return row.team;
}

/** The policies of `teams` (null: every team), by team then name, each with its latest version. */
export async function listPolicies(
  db: Db,
  query: { teams: readonly string[] | null; canEdit: (teamId: string) => boolean },
): Promise<PolicyListItem[]> {
  if (query.teams !== null && query.teams.length === 0) return [];
  const rows = await db.policy.findMany({
    where: query.teams === null ? {} : { teamId: { in: [...query.teams] } },
    orderBy: [{ team: { name: "asc" } }, { name: "asc" }],
    select: { ...policySelect, versions: { orderBy: { version: "desc" }, take: 1, select: summarySelect } },
  });
  return rows.flatMap(({ versions, ...policy }) => {
    const latest = versions[0];
    return latest ? [{ ...policy, latest, canEdit: query.canEdit(policy.team.id) }] : [];
  });
}

export async function getPolicy(db: Db, query: { id: string; canEdit: boolean }): Promise<PolicyView> {
  const row = await db.policy.findUnique({
    where: { id: query.id },
    select: {
      ...policySelect,
      versions: { orderBy: { version: "desc" }, take: MAX_LISTED_VERSIONS, select: summarySelect },
    },
  });
  if (!row) throw notFound(query.id);
  const latest = await db.policyVersion.findFirst({
    where: { policyId: query.id },
    orderBy: { version: "desc" },
    select: { version: true, yaml: true },
  });
  if (!latest) throw notFound(query.id);
  const versions: VersionSummary[] = row.versions;
  return { ...row, versions, canEdit: query.canEdit, latest };
}

/** One version as it was saved, or NOT_FOUND naming the versions that exist. */
export async function policyVersion(
  db: Db,
  query: { id: string; version: number },
): Promise<PolicyVersionView & { parsed: Prisma.JsonValue }> {
  const row = await db.policyVersion.findUnique({
    where: { policyId_version: { policyId: query.id, version: query.version } },
    select: { ...summarySelect, yaml: true, parsed: true },
  });
  if (row) return row;
  const latest = await db.policyVersion.aggregate({ where: { policyId: query.id }, _max: { version: true } });
  const max = latest._max.version;
  throw new AppError(
    "NOT_FOUND",
    max === null
      ? `policy ${query.id} not found`
      : `version: policy ${query.id} has versions 1 to ${max}; got ${query.version}`,
  );
}
