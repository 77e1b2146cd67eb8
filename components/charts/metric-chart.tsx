"use client";

import { EmptyState, LoadingState } from "@/components/ui/query-state";
import type { ChartSeries } from "./chart-data";
import styles from "./charts.module.css";
import { chartFormat, MetricLines, SERIES_COLORS } from "./metric-lines";
import { usePacedValue } from "./use-paced-value";
import { useStableValue } from "./use-stable-value";

export type MetricChartProps = {
  title: string;
  /** Shown after values ("samples/s"); "" for unitless values such as loss. */
  unit: string;
  /** series[0] is the aggregate (drawn thicker); the rest are selected ranks. Points are epoch-ms times. */
  series: readonly ChartSeries[];
  height?: number;
  /** Why there is no data to chart (the metrics source is down): said in the chart's place, never drawn empty. */
  unavailable?: string | null;
  /** The first result has not arrived yet. */
  loading?: boolean;
  /** A cumulative count (restarts): drawn as steps on an integer axis from 0. */
  count?: boolean;
  /** A level held between samples (ranks running): drawn as steps, never a diagonal between two samples. */
  steps?: boolean;
};

/** Changes when a series gains, loses or shifts points: cheap (O(series)), and enough for append-only data. */
function seriesKeyOf(series: readonly ChartSeries[]): string {
  return series.map((s) => `${s.name}:${s.points.length}:${s.points[0]?.t}:${s.points.at(-1)?.t}`).join("|");
}

/**
 * Loss or throughput over time: the aggregate and selected ranks as separate lines, under a title, with a
 * screen-reader sentence of the latest values (the SVG is aria-hidden).
 *
 * Kept off the 1 Hz critical path: the series are swapped for the previous ones while no point was added
 * (the page re-renders every second with fresh arrays), and recharts renders them paced, in a task of
 * their own after the rank topology and table have updated (see use-paced-value.ts).
 */
/** What stands in for the chart: the reason it has no data, loading, or no points yet; null: draw it. */
function ChartState(props: {
  title: string;
  series: readonly ChartSeries[];
  unavailable?: string | null;
  loading?: boolean;
}) {
  if (props.unavailable)
    return (
      <div className="state" role="status">
        Metrics unavailable — {props.unavailable}
      </div>
    );
  if (props.loading) return <LoadingState label={props.title.toLowerCase()} />;
  if (props.series.every((one) => one.points.length === 0)) return <EmptyState>No data yet.</EmptyState>;
  return null;
}

export function MetricChart({
  title,
  unit,
  series,
  height = 220,
  unavailable,
  loading,
  count,
  steps,
}: MetricChartProps) {
  const stable = useStableValue(series, seriesKeyOf(series));
  const paced = usePacedValue(stable);
  const suffix = unit ? ` ${unit}` : "";
  const format = chartFormat(series, count);
  const latest = series.map(
    (one) => `${one.name} ${format.value(one.points.at(-1)?.value ?? null)}${suffix}`,
  );
  const state = ChartState({ title, series, unavailable, loading });
  return (
    <figure className={styles.metric}>
      <figcaption className={styles.metricTitle}>
        {title}
        {unit ? <span className="muted"> ({unit})</span> : null}
      </figcaption>
      {state ?? (
        <>
          <p className={styles.srOnly}>Latest: {latest.join("; ")}.</p>
          <ul className={styles.seriesLegend} aria-hidden="true">
            {series.map((one, index) => (
              <li key={one.name}>
                <span style={{ background: SERIES_COLORS[index % SERIES_COLORS.length] }} />
                {one.name}
              </li>
            ))}
          </ul>
          {paced ? (
            <MetricLines series={paced} unit={unit} height={height} count={count} steps={steps} />
          ) : (
            <div style={{ height }} />
          )}
        </>
      )}
    </figure>
  );
}
