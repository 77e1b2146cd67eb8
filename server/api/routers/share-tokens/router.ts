import { z } from "zod";
import { adminProcedure, createTRPCRouter, publicProcedure } from "@/server/api/trpc";
import { shareCookie } from "@/server/services/share-tokens/cookie";
import { createShareToken, revokeShareToken } from "@/server/services/share-tokens/mutations";
import { pairWithCode } from "@/server/services/share-tokens/pairing";
import { listShareTokens } from "@/server/services/share-tokens/queries";
import {
  createShareTokenInputSchema,
  type PairedScreen,
  pairShareTokenInputSchema,
  revokeShareTokenInputSchema,
} from "@/server/services/share-tokens/share-tokens.schema";

/** TV share tokens: a cluster admin creates, lists and revokes them; a TV redeems a pairing code. */
export const shareTokensRouter = createTRPCRouter({
  /** Every token, never a secret nor a code. */
  list: adminProcedure.input(z.void()).query(({ ctx }) => listShareTokens(ctx.db)),

  /** A new token: its secret and link (or its pairing code) are in this answer only. */
  create: adminProcedure
    .input(createShareTokenInputSchema)
    .mutation(({ ctx, input }) => createShareToken(ctx.db, { input, actorId: ctx.user.id })),

  /** Revoked at once and for good; revoking twice changes nothing. */
  revoke: adminProcedure
    .input(revokeShareTokenInputSchema)
    .mutation(({ ctx, input }) => revokeShareToken(ctx.db, { id: input.id, actorId: ctx.user.id })),

  /**
   * A TV redeems a pairing code (no one signed in): the answer sets the share cookie and names the view to
   * open. Wrong codes are limited per client address.
   */
  pair: publicProcedure
    .input(pairShareTokenInputSchema)
    .mutation(async ({ ctx, input }): Promise<PairedScreen> => {
      const paired = await pairWithCode(ctx.db, { code: input.code, address: ctx.clientAddress });
      ctx.setCookie(shareCookie({ value: paired.secret, secure: ctx.secure }));
      return { view: paired.view, path: `/tv/${paired.view}` };
    }),
});
