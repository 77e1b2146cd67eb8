import { formatQuantity } from "@/lib/format";
import type { ChartSeries } from "./chart-data";

/** One sample of a team's capacity in one resource (base units), at epoch-ms `t`. */
export type CapacityPoint = { t: number; guaranteed: number; used: number; borrowed: number; lent: number };

type CapacityKey = Exclude<keyof CapacityPoint, "t">;

/** The four lines, in drawing order, with colours distinct on the panel (≥ 4.5:1). */
export const CAPACITY_SERIES: ReadonlyArray<{ key: CapacityKey; label: string; color: string }> = [
  { key: "guaranteed", label: "Guaranteed", color: "#9aa7b4" },
  { key: "used", label: "Used", color: "#4ea1ff" },
  { key: "borrowed", label: "Borrowed", color: "#ff9b50" },
  { key: "lent", label: "Lent", color: "#bc8cff" },
];

/** The samples as one chart series per line (points with a non-finite value are dropped by mergeSeries). */
export function capacitySeries(points: readonly CapacityPoint[]): ChartSeries[] {
  const sorted = [...points].sort((a, b) => a.t - b.t);
  return CAPACITY_SERIES.map(({ key, label }) => ({
    name: label,
    points: sorted.map((point) => ({ t: point.t, value: point[key] })),
  }));
}

/** "Latest: guaranteed 16, used 12, borrowed 0, lent 4." — the chart's text for screen readers. */
export function latestCapacityText(points: readonly CapacityPoint[], resource: string): string {
  const latest = points.reduce<CapacityPoint | null>(
    (best, point) => (best === null || point.t > best.t ? point : best),
    null,
  );
  if (!latest) return "No samples.";
  const parts = CAPACITY_SERIES.map(
    ({ key, label }) => `${label.toLowerCase()} ${formatQuantity(resource, latest[key])}`,
  );
  return `Latest: ${parts.join(", ")}.`;
}
