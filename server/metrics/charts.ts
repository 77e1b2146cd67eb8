import type { JobSeriesName, MetricsResult } from "./series";

/**
 * A job's charts as pushed to the page (server/metrics/live.ts): one MetricsResult per series. Pure, so the
 * browser applies patches with the same code the server diffs with.
 */
export type JobCharts = Partial<Record<JobSeriesName, MetricsResult>>;

/** The series whose result differs (null: none). Results are small (≤ ~250 points per series). */
export function diffCharts(previous: JobCharts, next: JobCharts): JobCharts | null {
  const changed: JobCharts = {};
  let any = false;
  for (const [name, result] of Object.entries(next) as Array<[JobSeriesName, MetricsResult]>) {
    if (JSON.stringify(previous[name]) !== JSON.stringify(result)) {
      changed[name] = result;
      any = true;
    }
  }
  return any ? changed : null;
}

export const applyCharts = (value: JobCharts, patch: JobCharts): JobCharts => ({ ...value, ...patch });
