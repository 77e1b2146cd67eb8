import { adminProcedure, createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { isClusterAdmin } from "@/server/domain/access/roles";
import {
  resetNodeSignals,
  setCordonMovesPods,
  updateNodeSignals,
} from "@/server/services/node-signals/mutations";
import { nodeSignalHistory, readNodeSignals } from "@/server/store/node-signals/queries";
import {
  nodeSignalsCordonInputSchema,
  nodeSignalsResetInputSchema,
  nodeSignalsUpdateInputSchema,
} from "./node-signals.schema";

/**
 * The node-signal table (docs/node-signals.md): anyone signed in reads it with its recent changes; only a
 * cluster admin changes it (adminProcedure, the one guard of admin-only procedures).
 */
export const nodeSignalsRouter = createTRPCRouter({
  get: protectedProcedure.query(async ({ ctx }) => {
    const [stored, history] = await Promise.all([readNodeSignals(ctx.db), nodeSignalHistory(ctx.db, 5)]);
    return { ...stored, history, canEdit: isClusterAdmin(ctx.user.memberships) };
  }),

  update: adminProcedure
    .input(nodeSignalsUpdateInputSchema)
    .mutation(({ ctx, input }) => updateNodeSignals(ctx.db, { ...input, actorId: ctx.user.id })),

  setCordon: adminProcedure
    .input(nodeSignalsCordonInputSchema)
    .mutation(({ ctx, input }) => setCordonMovesPods(ctx.db, { ...input, actorId: ctx.user.id })),

  reset: adminProcedure
    .input(nodeSignalsResetInputSchema)
    .mutation(({ ctx, input }) => resetNodeSignals(ctx.db, { ...input, actorId: ctx.user.id })),
});
