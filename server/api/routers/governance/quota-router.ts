import { createTRPCRouter } from "@/server/api/trpc";
import { canEditQuota } from "@/server/domain/access/governance";
import { quotaUpdateInputSchema, teamInputSchema } from "@/server/services/governance/governance.schema";
import { readClusterCapacity } from "@/server/services/governance/overcommit";
import { getQuota, updateQuota } from "@/server/services/governance/quota";
import { forbidden, governanceProcedure, teamIdByName } from "./procedure";

/**
 * A team's compute quota: anyone signed in reads it (as teams.list shows); its team admins and cluster admins
 * change it, within the cluster's GPUs unless they choose to over-commit (`allowOvercommit`).
 */
export const quotaRouter = createTRPCRouter({
  get: governanceProcedure.input(teamInputSchema).query(async ({ ctx, input }) => {
    const teamId = await teamIdByName(ctx.db, input.team);
    const quota = await getQuota(ctx.db, input.team);
    return { ...quota, canEdit: canEditQuota(ctx.user.memberships, teamId) };
  }),

  update: governanceProcedure.input(quotaUpdateInputSchema).mutation(async ({ ctx, input }) => {
    const teamId = await teamIdByName(ctx.db, input.team);
    if (!canEditQuota(ctx.user.memberships, teamId)) {
      forbidden(`only a team admin of ${input.team} or a cluster admin may change its quota`);
    }
    const capacity = input.allowOvercommit
      ? { ok: false as const, reason: "not read: over-commit allowed" }
      : await readClusterCapacity(ctx.cluster);
    const quota = await updateQuota(ctx.db, { input, actorId: ctx.user.id, capacity });
    return { ...quota, canEdit: true };
  }),
});
