/** A chart series: a name and its points (epoch-ms time, value). */
export type ChartSeries = { name: string; points: ReadonlyArray<{ t: number; value: number }> };

/** One chart row per time, with each series' value under `s0`, `s1`, … (missing → undefined). */
export type ChartRow = { t: number } & Record<string, number | undefined>;

export const seriesKey = (index: number) => `s${index}`;

/**
 * Merges series into rows keyed by time, so a shared tooltip shows every series at one instant, and
 * thins them to at most `maxRows` by keeping every k-th row (and always the newest) — a guard against
 * long histories making each 1 Hz re-render slow. Non-finite values are dropped, never drawn as 0.
 */
export function mergeSeries(series: readonly ChartSeries[], maxRows = 200): ChartRow[] {
  const byTime = new Map<number, ChartRow>();
  series.forEach((one, index) => {
    for (const point of one.points) {
      if (!Number.isFinite(point.t) || !Number.isFinite(point.value)) continue;
      let row = byTime.get(point.t);
      if (!row) {
        row = { t: point.t };
        byTime.set(point.t, row);
      }
      row[seriesKey(index)] = point.value;
    }
  });
  const rows = [...byTime.values()].sort((a, b) => a.t - b.t);
  if (rows.length <= maxRows) return rows;
  const stride = Math.ceil(rows.length / maxRows);
  return rows.filter((_, i) => i % stride === 0 || i === rows.length - 1);
}

const SECOND = 1000;
const TICK_STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
].map((s) => s * SECOND);

/**
 * Clock-aligned ticks for a time axis from `min` to `max` (epoch ms): the smallest "nice" step (1 s … 1 d)
 * giving at most `count` intervals (so count + 1 ticks at most), at multiples of that step. Handing recharts explicit ticks (with
 * interval 0) spares it measuring every candidate label in the DOM on each update, which dominated the
 * cost of a 1 Hz re-render.
 */
export function timeTicks(min: number, max: number, count = 6): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max) || max <= min) return Number.isFinite(min) ? [min] : [];
  const span = max - min;
  const step =
    TICK_STEPS.find((candidate) => span / candidate <= count) ??
    Math.ceil(span / count / 86_400_000) * 86_400_000;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max; t += step) ticks.push(t);
  return ticks;
}

/**
 * A cumulative count of this run (restarts) as it is drawn: nothing before the run's creation (a window
 * reaching back past it, or an earlier run's samples under the same name, would draw a count the job never
 * had), and, when the creation falls in the chart's window (after `windowStart`), a first point at it with
 * the count 0, so the steps start where the job did. `createdAt` null: the series as they are.
 */
export function countSince(
  series: readonly ChartSeries[],
  createdAt: number | null,
  windowStart: number,
): ChartSeries[] {
  if (createdAt === null || !Number.isFinite(createdAt)) return [...series];
  return series.map((one) => {
    const kept = one.points.filter((point) => point.t >= createdAt);
    const first = kept[0];
    const points =
      createdAt >= windowStart && (first === undefined || first.t > createdAt)
        ? [{ t: createdAt, value: 0 }, ...kept]
        : kept;
    return { name: one.name, points };
  });
}
