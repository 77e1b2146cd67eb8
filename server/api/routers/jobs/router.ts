import { env } from "@/env";
import { diffPage } from "@/server/domain/jobs/patch";
import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { getClusterSource } from "@/server/services/jobs/gateway";
import { AppError } from "@/server/errors";
import { createPrometheusSource } from "@/server/metrics/prometheus";
import { canActOn, runJobAction } from "@/server/services/jobs/actions";
import { type JobPage, jobPage, listJobRows, rankLogs } from "@/server/services/jobs/queries";
import { jobActInputSchema, jobLogsInputSchema, jobMetricsInputSchema, jobRefSchema } from "./jobs.schema";

/** How often a watched job page is looked at; changes within one interval go out as one diff. */
const WATCH_INTERVAL_MS = 250;

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

export const jobsRouter = createTRPCRouter({
  list: protectedProcedure.query(async ({ ctx }) => listJobRows(ctx.db, await getClusterSource())),

  /** What the signed-in user may do on this job's page (the page itself comes over `watch`). */
  access: protectedProcedure.input(jobRefSchema).query(async ({ ctx, input }) => {
    const source = await getClusterSource();
    return {
      canAct: await canActOn(ctx.db, ctx.user, input.namespace),
      mode: source.mode,
      metrics: env.PROMETHEUS_URL ? ("prometheus" as const) : ("live" as const),
    };
  }),

  /** Loss and throughput history from Prometheus; null without one (the page keeps its own live history). */
  metrics: protectedProcedure.input(jobMetricsInputSchema).query(async ({ input }) => {
    if (!env.PROMETHEUS_URL) return null;
    return createPrometheusSource({ url: env.PROMETHEUS_URL })
      .jobMetrics(input.job, { windowMs: input.windowMs, rank: input.rank })
      .catch((error: unknown) => {
        throw new AppError("UNAVAILABLE", error instanceof Error ? error.message : String(error));
      });
  }),

  page: protectedProcedure.input(jobRefSchema).query(async ({ ctx, input }) => {
    const source = await getClusterSource();
    const [page, canAct] = await Promise.all([
      jobPage(ctx.db, source, input),
      canActOn(ctx.db, ctx.user, input.namespace),
    ]);
    return { page, canAct, mode: source.mode };
  }),

  /** Live updates (SSE): the page first, then small diffs, at most one per WATCH_INTERVAL_MS. */
  watch: protectedProcedure.input(jobRefSchema).subscription(async function* ({ ctx, input, signal }) {
    const source = await getClusterSource();
    let previous: JobPage | null = null;
    while (!signal?.aborted) {
      const next = await jobPage(ctx.db, source, input);
      const patch = diffPage(previous, next);
      previous = next;
      if (patch) yield patch;
      await sleep(WATCH_INTERVAL_MS, signal);
    }
  }),

  logs: protectedProcedure.input(jobLogsInputSchema).query(async ({ ctx, input }) => {
    const source = await getClusterSource();
    const page = await jobPage(ctx.db, source, input.job);
    return rankLogs(source, input.job, {
      pod: input.pod,
      localRank: input.localRank,
      tail: input.tail,
      rules: page.logRules,
    });
  }),

  act: protectedProcedure.input(jobActInputSchema).mutation(async ({ ctx, input }) => {
    await runJobAction(ctx.db, await getClusterSource(), {
      user: ctx.user,
      ref: input.job,
      input: input.input,
    });
    return { ok: true };
  }),
});
