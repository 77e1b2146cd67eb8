"use client";

import { memo, useMemo } from "react";
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock } from "@/components/jobs/format";
import { EmptyState } from "@/components/ui/query-state";
import { formatQuantity } from "@/lib/format";
import { CAPACITY_SERIES, type CapacityPoint, capacitySeries, latestCapacityText } from "./capacity-data";
import { mergeSeries, seriesKey, timeTicks } from "./chart-data";
import styles from "./charts.module.css";
import { timeAxisProps } from "./time-axis";

export type CapacityChartProps = {
  /** e.g. "LLM Research · GPUs". */
  title: string;
  /** The resource the amounts are in (nvidia.com/gpu, cpu, memory), for axis and tooltip units. */
  resource: string;
  points: readonly CapacityPoint[];
  height?: number;
};

const CapacityLines = memo(function CapacityLines(props: {
  points: readonly CapacityPoint[];
  resource: string;
  height: number;
}) {
  const rows = useMemo(() => mergeSeries(capacitySeries(props.points)), [props.points]);
  const ticks = useMemo(() => timeTicks(rows[0]?.t ?? 0, rows.at(-1)?.t ?? 0), [rows]);
  const format = (value: number) => formatQuantity(props.resource, value);
  return (
    <div aria-hidden="true" style={{ height: props.height }}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid stroke="var(--panel-border)" vertical={false} />
          <XAxis {...timeAxisProps(ticks, 11)} />
          <YAxis width={64} tickFormatter={format} stroke="var(--muted)" fontSize={11} domain={[0, "auto"]} />
          <Tooltip
            isAnimationActive={false}
            labelFormatter={(t) => formatClock(Number(t))}
            formatter={(value) => format(Number(value))}
            contentStyle={{ background: "var(--panel)", border: "1px solid var(--panel-border)" }}
          />
          {CAPACITY_SERIES.map((series, index) => (
            <Line
              key={series.key}
              type="stepAfter"
              dataKey={seriesKey(index)}
              name={series.label}
              stroke={series.color}
              strokeWidth={series.key === "guaranteed" ? 2.5 : 1.5}
              strokeDasharray={series.key === "guaranteed" ? "6 3" : undefined}
              dot={false}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
});

/**
 * A team's capacity over time: guaranteed (dashed), used, borrowed and lent, as step lines. The SVG is
 * aria-hidden; a sentence gives the latest values to screen readers and the legend names the lines.
 */
export function CapacityChart({ title, resource, points, height = 200 }: CapacityChartProps) {
  return (
    <figure className={styles.metric}>
      <figcaption className={styles.metricTitle}>{title}</figcaption>
      {points.length === 0 ? (
        <EmptyState>No capacity samples yet.</EmptyState>
      ) : (
        <>
          <p className={styles.srOnly}>{latestCapacityText(points, resource)}</p>
          <ul className={styles.seriesLegend} aria-hidden="true">
            {CAPACITY_SERIES.map((series) => (
              <li key={series.key}>
                <span style={{ background: series.color }} />
                {series.label}
              </li>
            ))}
          </ul>
          <CapacityLines points={points} resource={resource} height={height} />
        </>
      )}
    </figure>
  );
}
