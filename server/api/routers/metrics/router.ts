import { createTRPCRouter, protectedProcedure } from "@/server/api/trpc";
import { watchJobCharts } from "@/server/metrics/live";
import { requireReadable } from "@/server/services/access/job-access";
import { sourceId } from "@/server/services/live/scope";
import { getMetricsSource } from "@/server/services/wiring";
import { opening, withTrpcErrors } from "../jobs/live-errors";
import { jobChartsInputSchema } from "./metrics.schema";

/** Time series for charts from server/metrics (Prometheus, or the operator's embedded history), pushed. */
export const metricsRouter = createTRPCRouter({
  /**
   * A job's charts, live (SSE): every series' MetricsResult whole, then the series that changed, every 5 s,
   * from one loop per job, series list, window and rank for all viewers (server/metrics/live.ts). Refused
   * (NOT_FOUND) as jobs.watch is for a job the user may not read; ends (UNAUTHORIZED) once they may not.
   */
  job: protectedProcedure.input(jobChartsInputSchema).subscription(async function* ({ ctx, input, signal }) {
    await opening(requireReadable(ctx.db, ctx.user, input.job));
    const cluster = await ctx.cluster();
    const source = getMetricsSource(cluster);
    yield* withTrpcErrors(
      watchJobCharts({
        db: ctx.db,
        source,
        sourceKey: source.kind === "prometheus" ? "prometheus" : `embedded:${sourceId(cluster)}`,
        sessionToken: ctx.sessionToken,
        query: { ref: input.job, series: input.series, windowMs: input.windowMs, rank: input.rank },
        signal,
      }),
    );
  }),
});
