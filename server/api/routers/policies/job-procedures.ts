import { protectedProcedure } from "@/server/api/trpc";
import { applyPolicy, jobPolicy, promoteShadow, setShadow } from "@/server/services/policies/job-policy";
import {
  applyPolicyInputSchema,
  forJobInputSchema,
  promoteShadowInputSchema,
  setShadowInputSchema,
} from "@/server/services/policies/policies.schema";

/**
 * A job's policy (issue 12): read it, apply a library version (enforcing), attach or detach a shadow rule
 * set (reports only), promote the shadow. Authorised and audited in server/services/policies/job-policy.ts
 * (the job's team's engineers and cluster admins act; anyone who reads the job reads its policy).
 */
export const jobPolicyProcedures = {
  forJob: protectedProcedure
    .input(forJobInputSchema)
    .query(async ({ ctx, input }) =>
      jobPolicy(ctx.db, { source: await ctx.cluster(), user: ctx.user, ref: input }),
    ),

  // Not `apply`: tRPC reserves call, apply and then as router keys (a router is callable).
  applyPolicy: protectedProcedure.input(applyPolicyInputSchema).mutation(async ({ ctx, input }) => {
    const { namespace, name, policyId, version, expectedVersion } = input;
    return applyPolicy(ctx.db, {
      source: await ctx.cluster(),
      user: ctx.user,
      ref: { namespace, name },
      policy: { policyId, version },
      expectedVersion,
      action: "policy.apply",
    });
  }),

  setShadow: protectedProcedure.input(setShadowInputSchema).mutation(async ({ ctx, input }) =>
    setShadow(ctx.db, {
      source: await ctx.cluster(),
      user: ctx.user,
      ref: { namespace: input.namespace, name: input.name },
      shadow: input.shadow,
    }),
  ),

  promoteShadow: protectedProcedure.input(promoteShadowInputSchema).mutation(async ({ ctx, input }) =>
    promoteShadow(ctx.db, {
      source: await ctx.cluster(),
      user: ctx.user,
      ref: { namespace: input.namespace, name: input.name },
      expectedVersion: input.expectedVersion,
    }),
  ),
};
