"use client";

import { useMemo, useRef } from "react";
import { CartesianGrid, LineChart, XAxis, YAxis } from "recharts";
import { formatNumber } from "@/components/jobs/format";
import { useElementWidth } from "@/components/jobs/use-element-width";
import { type ChartSeries, mergeSeries, timeTicks } from "./chart-data";
import { seriesLines } from "./metric-lines";
import { timeAxisProps } from "./time-axis";

/**
 * A wall screen's line chart (the TV's cluster throughput): one line per series, sized from its box so
 * 1080p and 4K read alike (type scales with the width), no animation, no tooltip (nobody hovers a TV),
 * rows capped by mergeSeries. The figures are said in text beside it; the drawing is aria-hidden.
 */
export function TvLineChart({
  series,
  aspect,
  testId,
}: {
  series: readonly ChartSeries[];
  /** Height over width. */
  aspect: number;
  testId: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const width = useElementWidth(box);
  const rows = useMemo(() => mergeSeries(series, 240), [series]);
  const ticks = useMemo(() => timeTicks(rows[0]?.t ?? 0, rows.at(-1)?.t ?? 0, 6), [rows]);
  const fontSize = Math.max(12, Math.round(width / 48));
  const height = Math.round(width * aspect);
  return (
    <div
      ref={box}
      data-testid={testId}
      aria-hidden="true"
      style={{ height: height || undefined, width: "100%" }}
    >
      {width > 0 ? (
        <LineChart
          width={width}
          height={height}
          data={rows}
          margin={{ top: fontSize / 2, right: fontSize * 3, bottom: 0, left: 0 }}
          accessibilityLayer={false}
        >
          <CartesianGrid stroke="var(--panel-border)" vertical={false} />
          <XAxis {...timeAxisProps(ticks, fontSize)} height={fontSize * 2} />
          <YAxis
            width={fontSize * 5}
            tickFormatter={(value: number) => formatNumber(value, 3)}
            stroke="var(--muted)"
            fontSize={fontSize}
            interval={0}
            domain={[0, "auto"]}
          />
          {seriesLines(series, () => Math.max(2, fontSize / 6))}
        </LineChart>
      ) : null}
    </div>
  );
}
