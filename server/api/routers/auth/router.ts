import { z } from "zod";
import { createTRPCRouter, protectedProcedure, publicProcedure } from "@/server/api/trpc";
import { AppError } from "@/server/errors";
import { SESSION_COOKIE, signIn, signOut } from "@/server/services/auth/sessions";
import { signInInputSchema } from "./auth.schema";

const cookie = (value: string, maxAgeSeconds: number) =>
  `${SESSION_COOKIE}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}`;

export const authRouter = createTRPCRouter({
  me: publicProcedure.input(z.void()).query(({ ctx }) => ctx.user),

  signIn: publicProcedure.input(signInInputSchema).mutation(async ({ ctx, input }) => {
    const result = await signIn(ctx.db, input);
    if (!result.ok) throw new AppError("UNAUTHORIZED", result.reason);
    ctx.setCookie(cookie(result.token, Math.floor((result.expiresAt.getTime() - Date.now()) / 1000)));
    return result.user;
  }),

  signOut: protectedProcedure.input(z.void()).mutation(async ({ ctx }) => {
    await signOut(ctx.db, ctx.sessionToken);
    ctx.setCookie(cookie("", 0));
    return { ok: true as const };
  }),
});
