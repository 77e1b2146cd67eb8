import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { readableNamespaces, requireReadable } from "@/server/services/access/job-access";
import { runJobAction } from "@/server/services/jobs/actions";
import {
  jobAccessOutputSchema,
  jobActInputSchema,
  jobActOutputSchema,
  jobLogsInputSchema,
  jobRefSchema,
  jobRowSchema,
  logLineSchema,
} from "@/server/services/jobs/jobs.schema";
import { resolveLogTarget } from "@/server/services/jobs/log-target";
import { listPastRuns, pastRun } from "@/server/services/jobs/past-runs";
import { jobPage, listJobRows, rankLogs } from "@/server/services/jobs/queries";
import { watchJobPage, watchJobRows, watchRankLog } from "@/server/services/live/job-streams";
import { opening, withTrpcErrors } from "./live-errors";
import { pastRunInputSchema } from "./runs.schema";

/**
 * Every procedure reads only jobs the signed-in user may see (server/services/access/job-access.ts): another
 * team's job is NOT_FOUND, exactly as a job that does not exist.
 */
export const jobsRouter = createTRPCRouter({
  list: protectedProcedure
    .output(jobRowSchema.array())
    .query(async ({ ctx }) =>
      listJobRows(ctx.db, await ctx.cluster(), await readableNamespaces(ctx.db, ctx.user)),
    ),

  /**
   * The jobs list, live (SSE): the rows the user may read whole, then keyed diffs, from one loop per
   * readable scope (server/services/live/job-streams.ts). Ends (UNAUTHORIZED) within RECHECK_ACCESS_MS of
   * the session being revoked; a team joined or left starts it again on the new scope.
   */
  listWatch: protectedProcedure.subscription(async function* ({ ctx, signal }) {
    const session = { db: ctx.db, user: ctx.user, sessionToken: ctx.sessionToken, signal };
    yield* withTrpcErrors(watchJobRows({ ...session, source: await ctx.cluster() }));
  }),

  /** What the signed-in user may do on this job's page (the page itself comes over `watch`). */
  access: protectedProcedure
    .input(jobRefSchema)
    .output(jobAccessOutputSchema)
    .query(async ({ ctx, input }) => {
      const access = await requireReadable(ctx.db, ctx.user, input);
      return {
        canAct: access.canAct,
        mode: (await ctx.cluster()).mode,
      };
    }),

  page: protectedProcedure.input(jobRefSchema).query(async ({ ctx, input }) => {
    const access = await requireReadable(ctx.db, ctx.user, input);
    const source = await ctx.cluster();
    return { page: await jobPage(ctx.db, source, input), canAct: access.canAct, mode: source.mode };
  }),

  /**
   * Live updates (SSE): the page first, then small diffs (server/domain/jobs/patch.ts diffPage), at most one
   * per PAGE_INTERVAL_MS, from one loop per job however many watch it. The stream ends (UNAUTHORIZED) within
   * RECHECK_ACCESS_MS of its session being revoked or its right to the job removed.
   */
  watch: protectedProcedure.input(jobRefSchema).subscription(async function* ({ ctx, input, signal }) {
    await opening(requireReadable(ctx.db, ctx.user, input));
    const source = await ctx.cluster();
    yield* withTrpcErrors(
      watchJobPage({ db: ctx.db, source, sessionToken: ctx.sessionToken, ref: input, signal }),
    );
  }),

  /** A rank's log, named by rank or by one of the job's pods; anything else is refused before the operator is asked. */
  logs: protectedProcedure
    .input(jobLogsInputSchema)
    .output(logLineSchema.array())
    .query(async ({ ctx, input }) => {
      await requireReadable(ctx.db, ctx.user, input.job);
      const source = await ctx.cluster();
      const page = await jobPage(ctx.db, source, input.job);
      const target = resolveLogTarget(page, input);
      return rankLogs(source, input.job, { ...target, tail: input.tail, rules: page.logRules });
    }),

  /**
   * A rank's log tail, live (SSE): whole first, then the lines that arrived (server/domain/live/tail-diff.ts),
   * from one loop per job, pod and rank. Refused as `logs` is, before any log is read.
   */
  logsWatch: protectedProcedure.input(jobLogsInputSchema).subscription(async function* ({
    ctx,
    input,
    signal,
  }) {
    await opening(requireReadable(ctx.db, ctx.user, input.job));
    const source = await ctx.cluster();
    await opening(jobPage(ctx.db, source, input.job).then((page) => resolveLogTarget(page, input)));
    yield* withTrpcErrors(
      watchRankLog({ db: ctx.db, source, sessionToken: ctx.sessionToken, input, signal }),
    );
  }),

  act: protectedProcedure
    .input(jobActInputSchema)
    .output(jobActOutputSchema)
    .mutation(async ({ ctx, input }) => {
      await runJobAction(ctx.db, await ctx.cluster(), { user: ctx.user, ref: input.job, input: input.input });
      return { ok: true as const };
    }),

  /** Earlier runs of this job's name (deleted jobs of the same namespace/name), newest first. */
  runs: protectedProcedure.input(jobRefSchema).query(async ({ ctx, input }) => {
    await requireReadable(ctx.db, ctx.user, input);
    return listPastRuns(ctx.db, input);
  }),

  /** One past run: its restart timeline, totals and events. */
  pastRun: protectedProcedure.input(pastRunInputSchema).query(async ({ ctx, input }) => {
    await requireReadable(ctx.db, ctx.user, input.job);
    return pastRun(ctx.db, { ref: input.job, uid: input.uid });
  }),
});
