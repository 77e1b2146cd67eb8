"use client";

import { countSince } from "@/components/charts/chart-data";
import { MetricChart } from "@/components/charts/metric-chart";
import type { MetricsResult } from "@/server/metrics/series";
import { CHART_WINDOW_MS, JOB_CHARTS, useJobCharts } from "./metric-history";

const NO_SERIES: [] = [];

/**
 * One chart's props from its series' latest result (none yet: loading; unavailable: the reason in its place);
 * a count (restarts) only from the job's creation, starting there at 0.
 */
function chartProps(
  result: MetricsResult | undefined,
  streamError: string | null,
  count: { createdAt: number | null } | null,
) {
  if (!result) return { series: NO_SERIES, loading: streamError === null, unavailable: streamError };
  if (result.status === "unavailable") return { series: NO_SERIES, unavailable: result.reason };
  if (!count) return { series: result.series };
  return { series: countSince(result.series, count.createdAt, Date.now() - CHART_WINDOW_MS), count: true };
}

/**
 * Throughput, loss, heartbeat age, ranks, detection and restart latency and restarts of the job (with the
 * selected rank's line where the source keeps one), each in its own card. A chart whose source is down says
 * "Metrics unavailable — <reason>" in its place; the rest of the page carries on.
 */
export function JobCharts(props: {
  job: { namespace: string; name: string };
  selected: number | null;
  /** The job's creation (epoch ms): a count's chart starts there. */
  createdAt?: number | null;
}) {
  const charts = useJobCharts({ job: props.job, rank: props.selected });
  const streamError = charts.data === null && charts.status !== "connecting" ? charts.error : null;
  return (
    <div className="grid-2">
      {JOB_CHARTS.map((chart) => (
        <section key={chart.series} className="card" aria-label={chart.title}>
          <MetricChart
            title={chart.title}
            unit={chart.unit}
            steps={chart.steps}
            {...chartProps(
              charts.data?.[chart.series],
              streamError,
              chart.count ? { createdAt: props.createdAt ?? null } : null,
            )}
          />
        </section>
      ))}
    </div>
  );
}
