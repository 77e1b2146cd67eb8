import { z } from "zod";
import { createTRPCRouter, protectedProcedure, publicProcedure } from "@/server/api/trpc";
import { AppError } from "@/server/errors";
import { localPasswordsEnabled } from "@/server/services/auth/oidc/from-env";
import { SESSION_COOKIE, signOut } from "@/server/services/auth/sessions";
import { limitedSignIn } from "@/server/services/auth/sign-in-attempts";
import { signInInputSchema } from "./auth.schema";

/** The session cookie: HttpOnly, SameSite=Lax, and Secure whenever the console is reached over HTTPS. */
export const sessionCookie = (opts: { value: string; maxAgeSeconds: number; secure: boolean }) =>
  `${SESSION_COOKIE}=${encodeURIComponent(opts.value)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${opts.maxAgeSeconds}${opts.secure ? "; Secure" : ""}`;

export const authRouter = createTRPCRouter({
  me: publicProcedure.input(z.void()).query(({ ctx }) => ctx.user),

  signIn: publicProcedure.input(signInInputSchema).mutation(async ({ ctx, input }) => {
    if (!localPasswordsEnabled()) {
      throw new AppError(
        "FORBIDDEN",
        "passwords are turned off here (REBOUND_LOCAL_PASSWORDS=off): use single sign-on",
      );
    }
    const result = await limitedSignIn(ctx.db, { ...input, address: ctx.clientAddress });
    const maxAgeSeconds = Math.floor((result.expiresAt.getTime() - Date.now()) / 1000);
    ctx.setCookie(sessionCookie({ value: result.token, maxAgeSeconds, secure: ctx.secure }));
    return result.user;
  }),

  signOut: protectedProcedure.input(z.void()).mutation(async ({ ctx }) => {
    await signOut(ctx.db, ctx.sessionToken);
    ctx.setCookie(sessionCookie({ value: "", maxAgeSeconds: 0, secure: ctx.secure }));
    return { ok: true as const };
  }),
});
