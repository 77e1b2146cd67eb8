"use client";

import { memo } from "react";
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock } from "@/components/jobs/format";
import { HEALTH_STYLE } from "@/components/jobs/health-style";
import { timeTicks } from "./chart-data";
import type { TimelineChartData, TimelineRow } from "./restart-timeline-model";
import { TimelineTooltip } from "./timeline-tooltip";

export const SPAN_COLORS = {
  /** The job's last progress → the fault (a hang's silence). */
  stalled: HEALTH_STYLE.hanging.color,
  detection: HEALTH_STYLE.slow.color,
  /** A crash-loop back-off's wait before the restart (waiting, not recovering). */
  waiting: HEALTH_STYLE.waiting.color,
  recovery: HEALTH_STYLE.restarting.color,
  failed: HEALTH_STYLE.faulted.color,
  /** Recovered → training back at the step it had reached (steps redone). */
  catchUp: HEALTH_STYLE.waiting.color,
};
const ROW_HEIGHT = 28;
/** A 150 ms detection on a 10-minute axis would be sub-pixel; keep every span visible. */
const MIN_SPAN_PX = 3;

/** The chart's height for `rows` bars (also the placeholder's, so nothing shifts when it mounts). */
export const chartHeight = (rows: number) => rows * ROW_HEIGHT + 56;

/** Recovered: solid; pending: translucent with a dashed outline (still growing); failed: red. */
function recoveryCell(row: TimelineRow) {
  switch (row.entry.outcome) {
    case "recovered":
      return { fill: SPAN_COLORS.recovery };
    case "pending":
      return {
        fill: SPAN_COLORS.recovery,
        fillOpacity: 0.35,
        stroke: SPAN_COLORS.recovery,
        strokeDasharray: "4 3",
      };
    case "failed":
      return { fill: SPAN_COLORS.failed };
    default:
      return row.entry.outcome satisfies never;
  }
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The Gantt of faults: stacked horizontal bars (invisible offset, stalled, detection, back-off wait, recovery,
 * catch-up)
 * on a clock axis.
 * Memoised on its data, which RestartTimeline keeps stable while nothing changed, so an idle 1 Hz tick
 * costs recharts nothing. aria-hidden: the list in RestartTimeline is the accessible version.
 */
export const TimelineChart = memo(function TimelineChart({
  chart,
}: {
  chart: TimelineChartData & { now: number };
}) {
  const { rows, origin, end, now } = chart;
  const labels = new Map(rows.map((row) => [row.id, row.label]));
  const domainEnd = Math.max(end, 1000);
  const ticks = timeTicks(origin, origin + domainEnd).map((t) => t - origin);
  return (
    <div aria-hidden="true" style={{ height: chartHeight(rows.length) }}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart
          data={rows}
          layout="vertical"
          // aria-hidden above: recharts' keyboard layer would make a hidden element focusable.
          accessibilityLayer={false}
          barCategoryGap={6}
          margin={{ top: 4, right: 16, bottom: 4, left: 4 }}
        >
          <CartesianGrid horizontal={false} stroke="var(--panel-border)" />
          <XAxis
            type="number"
            domain={[0, domainEnd]}
            ticks={ticks}
            interval={0}
            tickFormatter={(value: number) => formatClock(origin + value)}
            stroke="var(--muted)"
            fontSize={11}
          />
          <YAxis
            type="category"
            dataKey="id"
            width={190}
            interval={0}
            tickFormatter={(id: string) => truncate(labels.get(id) ?? id, 30)}
            stroke="var(--muted)"
            fontSize={11}
          />
          <Tooltip
            cursor={{ fill: "rgb(255 255 255 / 4%)" }}
            content={({ active, payload }) => <TimelineTooltip active={active} payload={payload} now={now} />}
            isAnimationActive={false}
          />
          <Bar dataKey="offset" stackId="t" fill="transparent" isAnimationActive={false} />
          <Bar
            dataKey="stalled"
            name="Stalled"
            stackId="t"
            fill={SPAN_COLORS.stalled}
            isAnimationActive={false}
          />
          <Bar
            dataKey="detection"
            name="Detection"
            stackId="t"
            fill={SPAN_COLORS.detection}
            minPointSize={MIN_SPAN_PX}
            isAnimationActive={false}
          />
          <Bar
            dataKey="waiting"
            name="Back-off wait"
            stackId="t"
            fill={SPAN_COLORS.waiting}
            fillOpacity={0.5}
            isAnimationActive={false}
          />
          <Bar
            dataKey="recovery"
            name="Recovery"
            stackId="t"
            fill={SPAN_COLORS.recovery}
            minPointSize={MIN_SPAN_PX}
            isAnimationActive={false}
          >
            {rows.map((row) => (
              <Cell key={row.id} {...recoveryCell(row)} />
            ))}
          </Bar>
          <Bar
            dataKey="catchUp"
            name="Catching up"
            stackId="t"
            fill={SPAN_COLORS.catchUp}
            isAnimationActive={false}
          />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
});
