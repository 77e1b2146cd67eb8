import { TRPCError } from "@trpc/server";
import { env } from "@/env";
import { createTRPCRouter, protectedProcedure, toTrpcError } from "@/server/api/trpc";
import { diffPage } from "@/server/domain/jobs/patch";
import { AppError } from "@/server/errors";
import { createPrometheusSource } from "@/server/metrics/prometheus";
import { readableNamespaces, requireReadable, stillReadable } from "@/server/services/access/job-access";
import { runJobAction } from "@/server/services/jobs/actions";
import { resolveLogTarget } from "@/server/services/jobs/log-target";
import { listPastRuns, pastRun } from "@/server/services/jobs/past-runs";
import { type JobPage, jobPage, listJobRows, rankLogs } from "@/server/services/jobs/queries";
import {
  jobAccessOutputSchema,
  jobActInputSchema,
  jobActOutputSchema,
  jobLogsInputSchema,
  jobMetricsInputSchema,
  jobMetricsOutputSchema,
  jobRefSchema,
  jobRowSchema,
  logLineSchema,
} from "./jobs.schema";
import { pastRunInputSchema } from "./runs.schema";

/** How often a watched job page is looked at; changes within one interval go out as one diff. */
const WATCH_INTERVAL_MS = 250;
/** How often a live stream asks again whether its session may still read the job. */
const RECHECK_ACCESS_MS = 2000;

/** Waits `ms`, or less if the subscription ends; leaves no listener behind on the long-lived signal. */
const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

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

  /** What the signed-in user may do on this job's page (the page itself comes over `watch`). */
  access: protectedProcedure
    .input(jobRefSchema)
    .output(jobAccessOutputSchema)
    .query(async ({ ctx, input }) => {
      const access = await requireReadable(ctx.db, ctx.user, input);
      return {
        canAct: access.canAct,
        mode: (await ctx.cluster()).mode,
        metrics: env.PROMETHEUS_URL ? ("prometheus" as const) : ("live" as const),
      };
    }),

  /** Loss and throughput history from Prometheus; null without one (the page keeps its own live history). */
  metrics: protectedProcedure
    .input(jobMetricsInputSchema)
    .output(jobMetricsOutputSchema)
    .query(async ({ ctx, input }) => {
      await requireReadable(ctx.db, ctx.user, input.job);
      if (!env.PROMETHEUS_URL) return null;
      return createPrometheusSource({ url: env.PROMETHEUS_URL })
        .jobMetrics(input.job, { windowMs: input.windowMs, rank: input.rank })
        .catch((error: unknown) => {
          throw new AppError("UNAVAILABLE", error instanceof Error ? error.message : String(error));
        });
    }),

  page: protectedProcedure.input(jobRefSchema).query(async ({ ctx, input }) => {
    const access = await requireReadable(ctx.db, ctx.user, input);
    const source = await ctx.cluster();
    return { page: await jobPage(ctx.db, source, input), canAct: access.canAct, mode: source.mode };
  }),

  /**
   * Live updates (SSE): the page first, then small diffs, at most one per WATCH_INTERVAL_MS. The stream ends
   * (UNAUTHORIZED) within RECHECK_ACCESS_MS of its session being revoked or its right to the job removed.
   */
  watch: protectedProcedure.input(jobRefSchema).subscription(async function* ({ ctx, input, signal }) {
    // A subscription's errors pass no middleware once it has started: AppErrors become TRPCErrors here.
    await requireReadable(ctx.db, ctx.user, input).catch((error: unknown) => {
      throw toTrpcError(error);
    });
    const source = await ctx.cluster();
    let previous: JobPage | null = null;
    let checkedAt = Date.now();
    while (!signal?.aborted) {
      if (Date.now() - checkedAt >= RECHECK_ACCESS_MS) {
        if (!(await stillReadable(ctx.db, { token: ctx.sessionToken, ref: input })))
          throw new TRPCError({
            code: "UNAUTHORIZED",
            message: "the session ended or lost access to this job: sign in again",
          });
        checkedAt = Date.now();
      }
      const next = await jobPage(ctx.db, source, input);
      const patch = diffPage(previous, next);
      previous = next;
      if (patch) yield patch;
      await sleep(WATCH_INTERVAL_MS, signal);
    }
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
