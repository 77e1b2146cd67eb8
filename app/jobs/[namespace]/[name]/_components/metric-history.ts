"use client";

import { type Live, useLive } from "@/lib/live/use-live";
import { useTRPC } from "@/lib/trpc/client";
import { applyCharts, type JobCharts } from "@/server/metrics/charts";
import type { JobSeriesName } from "@/server/metrics/series";

/**
 * The job page's charts, pushed by the server (metrics.job): Prometheus when the console has one, else the
 * operator's embedded history, so they survive a reload either way. One shared server-side query per job,
 * series list, window and rank every 5 s; no request from the browser after the subscription opens.
 */
export const JOB_CHARTS: ReadonlyArray<{
  series: JobSeriesName;
  title: string;
  unit: string;
  /** A cumulative count of the run: drawn as steps from the job's creation (countSince). */
  count?: true;
  /** A level that holds until it changes: drawn as steps. */
  steps?: true;
}> = [
  { series: "throughput", title: "Throughput", unit: "samples/s" },
  { series: "loss", title: "Loss", unit: "" },
  { series: "heartbeat_age", title: "Heartbeat age", unit: "s" },
  { series: "ranks", title: "Ranks running", unit: "", steps: true },
  { series: "detection_latency", title: "Detection latency", unit: "s" },
  { series: "restart_latency", title: "Restart latency", unit: "s" },
  { series: "restarts", title: "Restarts", unit: "", count: true },
];

/** Each chart's window: the last 15 minutes. */
export const CHART_WINDOW_MS = 15 * 60 * 1000;

const SERIES = JOB_CHARTS.map((chart) => chart.series);

export function useJobCharts(input: {
  job: { namespace: string; name: string };
  rank: number | null;
}): Live<JobCharts> {
  const trpc = useTRPC();
  return useLive(
    trpc.metrics.job.subscriptionOptions({
      job: input.job,
      series: SERIES,
      windowMs: CHART_WINDOW_MS,
      rank: input.rank,
    }),
    applyCharts,
  );
}
