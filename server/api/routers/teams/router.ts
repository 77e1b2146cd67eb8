import { adminProcedure, createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { AppError } from "@/server/errors";
import { readClusterCapacity } from "@/server/services/governance/overcommit";
import { createTeam } from "@/server/services/teams/mutations";
import { listTeams } from "@/server/services/teams/queries";
import { createTeamInputSchema, listTeamsInputSchema } from "@/server/services/teams/teams.schema";

export const teamsRouter = createTRPCRouter({
  /** Signed-in users only: team ids, namespaces, member counts and quotas are not public. */
  list: protectedProcedure.input(listTeamsInputSchema).query(({ ctx }) => listTeams(ctx.db)),

  create: adminProcedure.input(createTeamInputSchema).mutation(async ({ ctx, input }) => {
    const needed = input.guaranteedGpus > 0 && input.allowOvercommit !== true;
    const capacity = needed
      ? await readClusterCapacity(ctx.cluster)
      : { ok: false as const, reason: "not read: nothing to check" };
    const result = await createTeam(ctx.db, { input, actorId: ctx.user.id, capacity });
    if (!result.ok) throw new AppError("CONFLICT", result.reason);
    return { id: result.teamId };
  }),
});
