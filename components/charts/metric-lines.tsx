"use client";

import { memo, useMemo } from "react";
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock } from "@/components/jobs/format";
import { axisFormat } from "./axis-format";
import { type ChartSeries, mergeSeries, seriesKey, timeTicks } from "./chart-data";
import { timeAxisProps } from "./time-axis";

/** Line colours: the accent for the aggregate, then hues distinct from it (all ≥ 4.5:1 on the panel). */
export const SERIES_COLORS = ["#4ea1ff", "#bc8cff", "#ff9b50", "#39c5cf", "#3fb950", "#d29922"];

/**
 * One recharts Line per series, to put inside a LineChart: coloured in SERIES_COLORS order, no dots, no
 * animation, gaps bridged. `steps`: a count, held until it changes (never a diagonal between two samples).
 */
export function seriesLines(
  series: readonly ChartSeries[],
  strokeWidth: (index: number) => number,
  steps = false,
) {
  return series.map((one, index) => (
    <Line
      key={one.name}
      dataKey={seriesKey(index)}
      name={one.name}
      stroke={SERIES_COLORS[index % SERIES_COLORS.length]}
      strokeWidth={strokeWidth(index)}
      type={steps ? "stepAfter" : "linear"}
      dot={false}
      connectNulls
      isAnimationActive={false}
    />
  ));
}

type MetricLinesProps = {
  series: readonly ChartSeries[];
  unit: string;
  height: number;
  /** A cumulative count: drawn as steps, on an integer axis from 0. */
  count?: boolean;
  /** A level held between samples: drawn as steps. */
  steps?: boolean;
};

/**
 * The chart's one value format (axis-format.ts): its ticks, and its tooltip and spoken values. Whole-number
 * series (ranks running, counts) get whole-number ticks: "1", never "0.90, 0.95, 1.00".
 */
export function chartFormat(series: readonly ChartSeries[], count = false) {
  const values = series.flatMap((one) => one.points.map((point) => point.value));
  const integer = count || (values.length > 0 && values.every(Number.isInteger));
  return axisFormat(values, { ...(count ? { from: 0 } : {}), integer });
}

/**
 * The recharts part of MetricChart, memoised on its (stable, deferred) series so it re-renders only when
 * a new sample arrives. No animation, explicit ticks and no recharts Legend (both measure text in the DOM
 * on every update): a re-render of ~200 rows stays well under the 50 ms long-task budget.
 */
export const MetricLines = memo(function MetricLines({
  series,
  unit,
  height,
  count,
  steps,
}: MetricLinesProps) {
  const rows = useMemo(() => mergeSeries(series), [series]);
  const format = useMemo(() => chartFormat(series, count), [series, count]);
  const ticks = useMemo(() => timeTicks(rows[0]?.t ?? 0, rows.at(-1)?.t ?? 0), [rows]);
  const suffix = unit ? ` ${unit}` : "";
  return (
    <div aria-hidden="true" style={{ height }}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={rows} margin={{ top: 8, right: 28, bottom: 0, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid stroke="var(--panel-border)" vertical={false} />
          <XAxis {...timeAxisProps(ticks, 11)} />
          <YAxis
            width={64}
            ticks={format.ticks}
            tickFormatter={format.tick}
            stroke="var(--muted)"
            fontSize={11}
            interval={0}
            domain={format.domain}
            allowDataOverflow
          />
          <Tooltip
            isAnimationActive={false}
            labelFormatter={(t) => formatClock(Number(t))}
            formatter={(value) => `${format.value(Number(value))}${suffix}`}
            contentStyle={{ background: "var(--panel)", border: "1px solid var(--panel-border)" }}
          />
          {seriesLines(series, (index) => (index === 0 ? 2.5 : 1.5), count || steps)}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
});
