import type { Db } from "@/server/db/client";
import {
  assertFits,
  type CapacityReading,
  GUARANTEE_LOCK_KEY,
} from "@/server/services/governance/overcommit";
import { othersGuaranteedGpus } from "@/server/services/governance/quota";
import type { CreateTeamInput } from "@/server/services/teams/teams.schema";
import { writeAudit } from "@/server/store/audit/mutations";

export type CreateTeamResult = { ok: true; teamId: string } | { ok: false; reason: string };

/**
 * Creates a team with its namespace (hyperpod-ns-<name>) and GPU quota, audited, in one transaction. Guaranteed
 * GPUs that would over-commit the cluster (`capacity`) are refused unless `input.allowOvercommit`, as a quota
 * raise is (server/services/governance/overcommit.ts).
 */
export async function createTeam(
  db: Db,
  args: { input: CreateTeamInput; actorId: string; capacity: CapacityReading },
): Promise<CreateTeamResult> {
  const { input, actorId } = args;
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${GUARANTEE_LOCK_KEY})`;
    const existing = await tx.team.findUnique({ where: { name: input.name }, select: { id: true } });
    if (existing) return { ok: false, reason: `a team named ${input.name} already exists` };
    assertFits({
      team: input.name,
      before: 0,
      asked: input.guaranteedGpus,
      others: await othersGuaranteedGpus(tx, null),
      capacity: args.capacity,
      allowOvercommit: input.allowOvercommit === true,
    });
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
      details: { before: null, after: input },
    });
    return { ok: true, teamId: team.id };
  });
}
