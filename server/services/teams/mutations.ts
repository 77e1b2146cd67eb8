import type { CreateTeamInput } from "@/server/api/routers/teams/teams.schema";
import type { Db } from "@/server/db/client";
import { writeAudit } from "@/server/services/audit/mutations";

export type CreateTeamResult = { ok: true; teamId: string } | { ok: false; reason: string };

/** Creates a team with its namespace (hyperpod-ns-<name>) and GPU quota, audited, in one transaction. */
export async function createTeam(
  db: Db,
  args: { input: CreateTeamInput; actorId: string },
): Promise<CreateTeamResult> {
  const { input, actorId } = args;
  return db.$transaction(async (tx) => {
    const existing = await tx.team.findUnique({ where: { name: input.name }, select: { id: true } });
    if (existing) return { ok: false, reason: `a team named ${input.name} already exists` };
    const team = await tx.team.create({
      data: {
        name: input.name,
        displayName: input.displayName,
        namespace: `hyperpod-ns-${input.name}`,
        quota: {
          create: {
            updatedById: actorId,
            resources: { create: [{ resource: "nvidia.com/gpu", guaranteed: input.guaranteedGpus }] },
          },
        },
      },
      select: { id: true },
    });
    await writeAudit(tx, {
      userId: actorId,
      action: "team.create",
      target: `team/${input.name}`,
      details: input,
    });
    return { ok: true, teamId: team.id };
  });
}
