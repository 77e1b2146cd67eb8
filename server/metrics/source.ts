import { env } from "@/env";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { createEmbeddedSource } from "./embedded";
import { createPrometheusMetricsSource } from "./prometheus";
import type { MetricsSource } from "./series";

export type {
  ClusterSeriesName,
  JobSeriesName,
  MetricPoint,
  MetricSeries,
  MetricsResult,
  MetricsScope,
  MetricsSource,
  MetricsWindow,
} from "./series";
export {
  clusterSeriesNameSchema,
  JOB_SERIES,
  jobSeriesNameSchema,
  metricPointSchema,
  metricSeriesSchema,
  metricsResultSchema,
  metricsSourceKindSchema,
} from "./series";

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
