import { z } from "zod";
import { env } from "@/env";
import type { JobRef } from "@/server/cluster/types";
import { historyClusterSeriesSchema, historyJobSeriesSchema } from "@/server/domain/operator-api/contract";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { createEmbeddedSource } from "./embedded";
import { createPrometheusMetricsSource } from "./prometheus";

/**
 * Time series for charts, from one of two sources behind one interface: a real Prometheus when
 * PROMETHEUS_URL is set, else the operator's embedded bounded history (read through the cluster source).
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

let current: { key: string; source: MetricsSource } | undefined;
const embeddedOf = new WeakMap<ClusterSource, MetricsSource>();

/**
 * The console's metrics source: Prometheus when PROMETHEUS_URL is set, else the operator's embedded history,
 * read through `cluster` when given (a request's own cluster source), else through the console's gateway.
 */
export function getMetricsSource(cluster?: ClusterSource): MetricsSource {
  if (cluster && !env.PROMETHEUS_URL) {
    const known = embeddedOf.get(cluster);
    if (known) return known;
    const source = createEmbeddedSource(async () => cluster);
    embeddedOf.set(cluster, source);
    return source;
  }
  const key = env.PROMETHEUS_URL ?? "embedded";
  if (current?.key !== key) {
    current = {
      key,
      source: env.PROMETHEUS_URL
        ? createPrometheusMetricsSource({ url: env.PROMETHEUS_URL })
        : createEmbeddedSource(async () =>
            (await import("@/server/services/jobs/gateway")).getClusterSource(),
          ),
    };
  }
  return current.source;
}
