"use client";

import { type RefObject, useLayoutEffect, useMemo, useRef, useState } from "react";
import { CartesianGrid, LineChart, XAxis, YAxis } from "recharts";
import { axisFormat } from "./axis-format";
import { type ChartSeries, mergeSeries, timeTicks } from "./chart-data";
import { seriesLines } from "./metric-lines";
import { timeAxisProps } from "./time-axis";

type Box = { width: number; height: number; fontSize: number };

/**
 * The box's size and its computed font size, kept current with a ResizeObserver (whole pixels): the chart
 * fills whatever its place on the screen is, and its ticks use the screen's type size, so a 1080p and a 4K
 * screen read alike and no tick is smaller than the text around it.
 */
function useBox(ref: RefObject<HTMLElement | null>): Box {
  const [box, setBox] = useState<Box>({ width: 0, height: 0, fontSize: 0 });
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const update = () => {
      const rect = element.getBoundingClientRect();
      const next = {
        width: Math.floor(rect.width),
        height: Math.floor(rect.height),
        fontSize: Math.round(Number.parseFloat(getComputedStyle(element).fontSize) || 0),
      };
      setBox((current) =>
        current.width === next.width && current.height === next.height && current.fontSize === next.fontSize
          ? current
          : next,
      );
    };
    update();
    const observer = new ResizeObserver(update);
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref]);
  return box;
}

/**
 * A wall screen's line chart (the TV's cluster throughput): one line per series, filling its box (give it a
 * height, or a flex place, and a font size: the ticks are drawn at it), no animation, no tooltip (nobody
 * hovers a TV), rows capped by mergeSeries. The figures are said in text beside it; the drawing is aria-hidden.
 */
export function TvLineChart({
  series,
  className,
  testId,
}: {
  series: readonly ChartSeries[];
  /** Sizes the box: its height (or flex) and its font size, which the ticks take. */
  className?: string;
  testId: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const { width, height, fontSize } = useBox(ref);
  const rows = useMemo(() => mergeSeries(series, 240), [series]);
  // As many clock labels as fit side by side: an "hh:mm:ss" label is about 5 em wide, 6 em with a gap.
  const tickCount = Math.max(2, Math.min(6, Math.floor((width - fontSize * 8) / (fontSize * 6))));
  const ticks = useMemo(() => timeTicks(rows[0]?.t ?? 0, rows.at(-1)?.t ?? 0, tickCount), [rows, tickCount]);
  const format = useMemo(
    () =>
      axisFormat(
        series.flatMap((one) => one.points.map((point) => point.value)),
        { from: 0 },
      ),
    [series],
  );
  return (
    <div ref={ref} data-testid={testId} aria-hidden="true" className={className}>
      {width > 0 && height > 0 && fontSize > 0 ? (
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
            ticks={format.ticks}
            tickFormatter={format.tick}
            stroke="var(--muted)"
            fontSize={fontSize}
            interval={0}
            domain={format.domain}
          />
          {seriesLines(series, () => Math.max(2, fontSize / 6))}
        </LineChart>
      ) : null}
    </div>
  );
}
