import { z } from "zod";
import type { JobRef } from "@/server/cluster/types";
import { historyClusterSeriesSchema, historyJobSeriesSchema } from "@/server/domain/operator-api/contract";

/**
 * Time series for charts, from one of two sources behind one interface (source.ts picks one; these are the
 * shapes both share): a real Prometheus when PROMETHEUS_URL is set, else the operator's embedded bounded
 * history (read through the cluster source).
 * Neither throws for an unreachable or broken back end: it answers `unavailable` with the reason, which the
 * charts show in words ("Metrics unavailable — …"), never as an empty or broken chart.
 */
export const jobSeriesNameSchema = historyJobSeriesSchema;
export const clusterSeriesNameSchema = historyClusterSeriesSchema;
export const JOB_SERIES = jobSeriesNameSchema.options;
export type JobSeriesName = z.infer<typeof jobSeriesNameSchema>;
export type ClusterSeriesName = z.infer<typeof clusterSeriesNameSchema>;

export const metricPointSchema = z.object({ t: z.number(), value: z.number() });
export const metricSeriesSchema = z.object({ name: z.string(), points: z.array(metricPointSchema) });
export const metricsSourceKindSchema = z.enum(["prometheus", "embedded"]);
export const metricsResultSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("ok"), source: metricsSourceKindSchema, series: z.array(metricSeriesSchema) }),
  z.object({ status: z.literal("unavailable"), source: metricsSourceKindSchema, reason: z.string() }),
]);

export type MetricPoint = z.infer<typeof metricPointSchema>;
export type MetricSeries = z.infer<typeof metricSeriesSchema>;
export type MetricsResult = z.infer<typeof metricsResultSchema>;

/** Epoch milliseconds, start before end. */
export type MetricsWindow = { start: number; end: number };
export type MetricsScope = { namespaces: string[] | "all" };

export type MetricsSource = {
  readonly kind: "prometheus" | "embedded";
  job(
    ref: JobRef,
    series: JobSeriesName,
    window: MetricsWindow,
    opts?: { rank?: number },
  ): Promise<MetricsResult>;
  cluster(series: ClusterSeriesName, window: MetricsWindow, scope: MetricsScope): Promise<MetricsResult>;
};
