import type { XAxisProps } from "recharts";
import { formatClock } from "@/components/jobs/format";

/**
 * The time axis every line chart here draws: epoch-ms `t` from the first row to the last, at the given
 * clock-aligned ticks (timeTicks) with interval 0 so recharts measures no candidate labels, clock labels in
 * the muted colour. Spread into recharts' XAxis: `<XAxis {...timeAxisProps(ticks, 11)} />`.
 */
export function timeAxisProps(ticks: number[], fontSize: number): XAxisProps {
  return {
    dataKey: "t",
    type: "number",
    scale: "time",
    domain: ["dataMin", "dataMax"],
    ticks,
    interval: 0,
    tickFormatter: formatClock,
    stroke: "var(--muted)",
    fontSize,
  };
}
