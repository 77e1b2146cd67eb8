import { z } from "zod";
import { createTRPCRouter, protectedProcedure, publicProcedure } from "@/server/api/trpc";
import { canEditGroupMappings } from "@/server/domain/access/sso";
import { AppError } from "@/server/errors";
import { localPasswordsEnabled, oidcSettings } from "@/server/services/auth/oidc/from-env";
import {
  createGroupMapping,
  deleteGroupMapping,
  listGroupMappings,
} from "@/server/services/auth/oidc/mappings";
import {
  createGroupMappingInputSchema,
  deleteGroupMappingInputSchema,
  type SsoStatus,
} from "@/server/services/auth/oidc/oidc.schema";

/**
 * Single sign-on (docs/sso.md): whether it is on (the sign-in page asks, signed in or not), and the group →
 * role mappings, which only a cluster admin reads and edits (server/domain/access/sso.ts); the service
 * audits every change in its transaction.
 */
const mappingsProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (!canEditGroupMappings(ctx.user.memberships)) {
    throw new AppError("FORBIDDEN", "only a cluster admin reads or edits single sign-on's group mappings");
  }
  return next();
});

export const ssoRouter = createTRPCRouter({
  status: publicProcedure.input(z.void()).query((): SsoStatus => {
    const settings = oidcSettings();
    return {
      enabled: settings !== null,
      providerName: settings?.name ?? null,
      localPasswords: localPasswordsEnabled(),
      groupsClaim: settings?.groupsClaim ?? null,
    };
  }),

  listMappings: mappingsProcedure.input(z.void()).query(({ ctx }) => listGroupMappings(ctx.db)),

  createMapping: mappingsProcedure
    .input(createGroupMappingInputSchema)
    .mutation(({ ctx, input }) => createGroupMapping(ctx.db, { input, actorId: ctx.user.id })),

  deleteMapping: mappingsProcedure
    .input(deleteGroupMappingInputSchema)
    .mutation(({ ctx, input }) => deleteGroupMapping(ctx.db, { id: input.id, actorId: ctx.user.id })),
});
