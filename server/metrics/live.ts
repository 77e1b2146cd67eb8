import type { JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { stillReadable } from "@/server/services/access/job-access";
import type { LiveMessage, LiveSource } from "@/server/services/live/hub";
import { rechecked } from "@/server/services/live/rechecked";
import { RECHECK_ACCESS_MS } from "@/server/services/live/scope";
import { liveHub } from "@/server/services/wiring";
import { diffCharts, type JobCharts } from "./charts";
import type { JobSeriesName, MetricsSource } from "./series";

/**
 * A job's charts, pushed: one loop per job, series list, window and rank for all its viewers
 * (server/services/live/hub.ts), asking the metrics source every METRICS_INTERVAL_MS for the window ending
 * now. The value is one MetricsResult per series; a patch carries the series whose result changed (charts.ts). The
 * source never throws: a Prometheus that is down is each series' `unavailable`, shown in its chart's place.
 */
export const METRICS_INTERVAL_MS = 5000;

export type JobChartsQuery = {
  ref: JobRef;
  series: readonly JobSeriesName[];
  windowMs: number;
  rank: number | null;
};

/** `sourceKey`: which source it reads (one loop per source, so a test's own stack never shares a console's). */
export function jobChartsSource(
  source: MetricsSource,
  query: JobChartsQuery,
  sourceKey: string = source.kind,
): LiveSource<JobCharts, JobCharts> {
  const series = [...new Set(query.series)].sort();
  const { ref, windowMs, rank } = query;
  return {
    key: `metrics.job:${sourceKey}:${ref.namespace}/${ref.name}:${series.join(",")}:${windowMs}:${rank ?? "-"}`,
    intervalMs: METRICS_INTERVAL_MS,
    async load() {
      const end = Date.now();
      const window = { start: end - windowMs, end };
      const results = await Promise.all(
        series.map((name) => source.job(ref, name, window, rank === null ? undefined : { rank })),
      );
      return Object.fromEntries(series.map((name, index) => [name, results[index]])) as JobCharts;
    },
    diff: diffCharts,
  };
}

/** The job's charts, live, for a viewer who may read the job (checked by the caller, and again every 2 s). */
export function watchJobCharts(opts: {
  db: Db;
  source: MetricsSource;
  sourceKey: string;
  sessionToken: string | undefined;
  query: JobChartsQuery;
  signal: AbortSignal | undefined;
}): AsyncGenerator<LiveMessage<JobCharts, JobCharts>, void> {
  const { db, query } = opts;
  return rechecked({
    signal: opts.signal,
    everyMs: RECHECK_ACCESS_MS,
    open: (signal) => liveHub().stream(jobChartsSource(opts.source, query, opts.sourceKey), signal),
    recheck: async () => {
      if (!(await stillReadable(db, { token: opts.sessionToken, ref: query.ref })))
        throw new AppError("UNAUTHORIZED", "the session ended or lost access to this job: sign in again");
      return "keep";
    },
  });
}
