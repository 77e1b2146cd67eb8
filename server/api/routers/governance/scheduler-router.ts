import { createTRPCRouter } from "@/server/api/trpc";
import { canEditScheduler } from "@/server/domain/access/governance";
import { schedulerUpdateInputSchema } from "@/server/services/governance/governance.schema";
import { priorityClassUsage, usersOfRemoved } from "@/server/services/governance/priority-usage";
import { getScheduler, updateScheduler } from "@/server/services/governance/scheduler";
import { forbidden, governanceProcedure } from "./procedure";

/** The scheduler config and priority classes: anyone signed in reads them; cluster admins change them. */
export const schedulerRouter = createTRPCRouter({
  get: governanceProcedure.query(async ({ ctx }) => {
    const scheduler = await getScheduler(ctx.db, await priorityClassUsage(ctx.cluster));
    return { ...scheduler, canEdit: canEditScheduler(ctx.user.memberships) };
  }),

  update: governanceProcedure.input(schedulerUpdateInputSchema).mutation(async ({ ctx, input }) => {
    if (!canEditScheduler(ctx.user.memberships)) {
      forbidden("only a cluster admin may change the scheduler config and priority classes");
    }
    const users = await usersOfRemoved({ db: ctx.db, cluster: ctx.cluster, next: input.priorityClasses });
    const scheduler = await updateScheduler(ctx.db, { input, actorId: ctx.user.id, users });
    return { ...scheduler, canEdit: true };
  }),
});
