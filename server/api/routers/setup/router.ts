import { z } from "zod";
import { createTRPCRouter, publicProcedure } from "@/server/api/trpc";
import { AppError } from "@/server/errors";
import { createFirstAdmin } from "@/server/services/setup/first-admin";
import { setupStatus } from "@/server/services/setup/queries";
import {
  createAdminInputSchema,
  setupStatusInputSchema,
  setupStatusSchema,
} from "@/server/services/setup/setup.schema";

/**
 * The first cluster admin, from the one-time link the console prints at start (docs/security.md). Public
 * by necessity (nobody can sign in yet); the link's token is the credential, and it stops working once
 * used, expired, or once any cluster admin exists.
 */
export const setupRouter = createTRPCRouter({
  status: publicProcedure
    .input(setupStatusInputSchema)
    .output(setupStatusSchema)
    .query(({ ctx, input }) => setupStatus(ctx.db, input.token)),

  createAdmin: publicProcedure
    .input(createAdminInputSchema)
    .output(z.object({ email: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const result = await createFirstAdmin(ctx.db, { input });
      if (!result.ok) throw new AppError("FORBIDDEN", result.reason);
      const email = input.email.toLowerCase();
      ctx.log.info("first cluster admin created from a setup link", { email });
      return { email };
    }),
});
