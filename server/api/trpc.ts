import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError, z } from "zod";
import { wireTransformer } from "@/lib/trpc/transformer";
import type { Context } from "@/server/api/context";
import { isClusterAdmin } from "@/server/domain/access/roles";
import type { ShareGrant } from "@/server/domain/access/share";
import { AppError, type AppErrorCode, toTrpcCode } from "@/server/errors";
import type { SessionUser } from "@/server/services/auth/sessions";
import { liveHub } from "@/server/services/wiring";

/** A zod path as a form names it: `resources[1].guaranteed`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "input";
  return path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : `${index > 0 ? "." : ""}${String(key)}`))
    .join("");
}

function describeZodIssues(error: ZodError): string {
  return error.issues.map((issue) => `${fieldPath(issue.path)}: ${issue.message}`).join("; ");
}

const t = initTRPC.context<Context>().create({
  transformer: wireTransformer,
  // SSE subscriptions: a ping keeps idle streams alive; a client that hears nothing for 10 s reconnects.
  sse: {
    ping: { enabled: true, intervalMs: 3000 },
    client: { reconnectAfterInactivityMs: 10_000 },
  },
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
      // One readable line naming each bad field instead of the raw issue list.
      message: cause instanceof ZodError ? describeZodIssues(cause) : shape.message,
      data: {
        ...shape.data,
        // Field errors for forms: { fieldErrors: { name: ["..."] }, formErrors: [] }.
        zodError: cause instanceof ZodError ? z.flattenError(cause) : null,
        // Every bad field with its full path (nested ones too): [{ path: "resources[1].guaranteed", message }].
        issues:
          cause instanceof ZodError
            ? cause.issues.map((issue) => ({ path: fieldPath(issue.path), message: issue.message }))
            : null,
        appErrorCode: (cause instanceof AppError ? cause.code : null) as AppErrorCode | null,
      },
    };
  },
});

/** An AppError as the TRPCError of its code (anything else unchanged). */
export function toTrpcError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  return new TRPCError({ code: toTrpcCode(error.code), message: error.message, cause: error });
}

/** Maps AppError to its tRPC code and logs unexpected errors with the procedure path. */
const errorMapping = t.middleware(async ({ ctx, path, type, next }) => {
  const log = ctx.log.child({ path, type });
  const result = await next({ ctx: { log } });
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof AppError) throw toTrpcError(cause);
    if (result.error.code === "INTERNAL_SERVER_ERROR")
      log.error("procedure failed", { error: String(cause) });
  }
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * A TV share token is read-only, whatever the procedure: every mutation of a request that carries only a share
 * token is refused here, before any procedure's own check (so a new mutation is covered without a line of its
 * own; server/api/share-guard.integration-test.ts enumerates the router to prove it).
 */
const shareTokensReadOnly = t.middleware(({ ctx, type, next }) => {
  if (type === "mutation" && ctx.share && !ctx.user)
    throw new TRPCError({
      code: "FORBIDDEN",
      message:
        "a TV share token is read-only: sign in to change anything (open /tv/forget to drop the token)",
    });
  return next();
});

/**
 * A mutation that succeeded may change what live views show (a quota, a job, a token): the live hub loads
 * every open view again at once instead of at its next interval (server/services/live/hub.ts, `refresh`).
 */
const liveViewsAfterMutation = t.middleware(async ({ type, next }) => {
  const result = await next();
  if (type === "mutation" && result.ok) liveHub().refresh();
  return result;
});

export const publicProcedure = t.procedure
  .use(errorMapping)
  .use(shareTokensReadOnly)
  .use(liveViewsAfterMutation);

export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in first" });
  return next({ ctx: { user: ctx.user } });
});

/** Who is looking at a read-only view: a signed-in user, or a TV with a share token (reads its grant only). */
export type Viewer = { kind: "user"; user: SessionUser } | { kind: "share"; grant: ShareGrant };

/** Read-only views a TV may open (the TV dashboards): a signed-in user, or a share token. Queries and subscriptions only. */
export const viewerProcedure = publicProcedure.use(({ ctx, next }) => {
  const viewer: Viewer | null = ctx.user
    ? { kind: "user", user: ctx.user }
    : ctx.share
      ? { kind: "share", grant: ctx.share }
      : null;
  if (!viewer)
    throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in, or open this view with a share token" });
  return next({ ctx: { viewer } });
});

export const adminProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (!isClusterAdmin(ctx.user.memberships)) {
    throw new TRPCError({ code: "FORBIDDEN", message: "only a cluster admin may do this" });
  }
  return next();
});
