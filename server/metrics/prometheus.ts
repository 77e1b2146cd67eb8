import type { JobRef } from "@/server/cluster/types";
import { createPrometheusClient, type PrometheusClient } from "./prometheus-api";
import { clusterQueries, jobQueries, type SeriesQuery } from "./promql";
import type {
  ClusterSeriesName,
  JobSeriesName,
  MetricSeries,
  MetricsResult,
  MetricsScope,
  MetricsSource,
  MetricsWindow,
} from "./series";
import { alignWindow, chooseStepSeconds } from "./step";

/**
 * The metrics source on a real Prometheus that scrapes the agents' and the operator's /metrics
 * (deploy/prometheus/scrape-config.yaml on Kubernetes; on one machine the local back end's file_sd targets
 * file and the operator's port: docs/metrics.md). Range queries with a step chosen from the window
 * (step.ts); every answer validated (prometheus-api.ts); any failure is `unavailable` with the reason.
 */
export { jobSelector, quote } from "./promql";

async function run(
  client: PrometheusClient,
  queries: readonly SeriesQuery[],
  window: MetricsWindow & { stepSeconds: number },
): Promise<MetricSeries[]> {
  const answers = await Promise.all(queries.map((one) => client.range(one.query, window)));
  return queries.flatMap((one, index) =>
    (answers[index] ?? []).map((series) => ({
      name: (one.nameBy ? series.labels[one.nameBy] : undefined) ?? one.name,
      points: series.samples,
    })),
  );
}

export function createPrometheusMetricsSource(opts: {
  url: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}): MetricsSource & { client: PrometheusClient } {
  const client = createPrometheusClient(opts);
  const answer = async (
    window: MetricsWindow,
    queriesFor: (stepSeconds: number) => SeriesQuery[] | null,
  ): Promise<MetricsResult> => {
    try {
      if (!(window.end > window.start))
        return { status: "unavailable", source: "prometheus", reason: "the window ends before it starts" };
      const stepSeconds = chooseStepSeconds(window.end - window.start);
      const queries = queriesFor(stepSeconds);
      if (queries === null) return { status: "ok", source: "prometheus", series: [] };
      const series = await run(client, queries, { ...alignWindow(window, stepSeconds), stepSeconds });
      return { status: "ok", source: "prometheus", series };
    } catch (error) {
      return {
        status: "unavailable",
        source: "prometheus",
        reason: error instanceof Error ? error.message : String(error),
      };
    }
  };
  return {
    kind: "prometheus",
    client,
    job: (ref: JobRef, series: JobSeriesName, window: MetricsWindow, options?: { rank?: number }) =>
      answer(window, (stepSeconds) => jobQueries(ref, series, { rank: options?.rank, stepSeconds })),
    cluster: (series: ClusterSeriesName, window: MetricsWindow, scope: MetricsScope) =>
      answer(window, (stepSeconds) => clusterQueries(series, scope, stepSeconds)),
  };
}
