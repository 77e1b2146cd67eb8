import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { writeAudit } from "@/server/store/audit/mutations";
import { type CreateGroupMappingInput, type GroupMappingView, MAX_GROUP_MAPPINGS } from "./oidc.schema";

/** Group → role rules of single sign-on (docs/sso.md): listed, added and removed by a cluster admin, audited. */

const mappingSelect = { id: true, group: true, teamId: true, role: true, createdAt: true } as const;

async function teamNames(tx: Prisma.TransactionClient | Db): Promise<Map<string, string>> {
  const teams = await tx.team.findMany({ select: { id: true, name: true } });
  return new Map(teams.map((team) => [team.id, team.name]));
}

type MappingRow = {
  id: string;
  group: string;
  teamId: string | null;
  role: GroupMappingView["role"];
  createdAt: Date;
};

function toView(row: MappingRow, names: Map<string, string>): GroupMappingView {
  return {
    id: row.id,
    group: row.group,
    team: row.teamId === null ? null : { id: row.teamId, name: names.get(row.teamId) ?? row.teamId },
    role: row.role,
    createdAt: row.createdAt,
  };
}

const target = (group: string) => `groupMapping/${group}`;

/** Every rule, by group then team. */
export async function listGroupMappings(db: Db): Promise<GroupMappingView[]> {
  const rows = await db.oidcGroupMapping.findMany({
    select: mappingSelect,
    orderBy: [{ group: "asc" }, { createdAt: "asc" }],
  });
  const names = await teamNames(db);
  return rows.map((row) => toView(row, names));
}

export async function createGroupMapping(
  db: Db,
  args: { input: CreateGroupMappingInput; actorId: string },
): Promise<GroupMappingView> {
  const { input, actorId } = args;
  const teamId = input.kind === "team" ? input.teamId : null;
  const role = input.kind === "team" ? input.role : "cluster_admin";
  try {
    return await db.$transaction(async (tx) => {
      if ((await tx.oidcGroupMapping.count()) >= MAX_GROUP_MAPPINGS) {
        throw new AppError("INVALID", `group: at most ${MAX_GROUP_MAPPINGS} mappings; remove one first`);
      }
      const names = await teamNames(tx);
      if (teamId !== null && !names.has(teamId)) throw new AppError("NOT_FOUND", `teamId: no team ${teamId}`);
      const row = await tx.oidcGroupMapping.create({
        data: { group: input.group, teamId, role, createdById: actorId },
        select: mappingSelect,
      });
      const view = toView(row, names);
      await writeAudit(tx, {
        userId: actorId,
        action: "groupMapping.create",
        target: target(row.group),
        details: { before: null, after: { group: view.group, team: view.team?.name ?? "(cluster)", role } },
      });
      return view;
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const where = teamId === null ? "cluster-wide" : "for this team";
      throw new AppError("CONFLICT", `group: ${input.group} already has a mapping ${where}; remove it first`);
    }
    throw error;
  }
}

/** Removes a rule; members keep what it gave until their next sign-in, which takes it away. */
export async function deleteGroupMapping(
  db: Db,
  args: { id: string; actorId: string },
): Promise<{ id: string }> {
  return db.$transaction(async (tx) => {
    const row = await tx.oidcGroupMapping.findUnique({ where: { id: args.id }, select: mappingSelect });
    if (!row) throw new AppError("NOT_FOUND", `id: no group mapping ${args.id}`);
    await tx.oidcGroupMapping.delete({ where: { id: row.id } });
    const view = toView(row, await teamNames(tx));
    await writeAudit(tx, {
      userId: args.actorId,
      action: "groupMapping.delete",
      target: target(row.group),
      details: {
        before: { group: view.group, team: view.team?.name ?? "(cluster)", role: view.role },
        after: null,
      },
    });
    return { id: row.id };
  });
}
