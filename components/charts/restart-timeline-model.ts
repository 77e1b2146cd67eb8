import type { RestartAction, TimelineEntry } from "@/server/domain/jobs/view-model";

/**
 * Turns restart-timeline entries into rows for a stacked horizontal bar chart (a Gantt): per fault an
 * invisible `offset` from the chart's origin to the fault, then `detection` (faultAt → detectedAt), then
 * `recovery` (detectedAt → recoveredAt; while pending, or when the recovery failed, → now, the same span
 * the downtime total counts). Values are ms relative to the origin so the axis stays small and exact.
 */

export const ACTION_LABEL: Readonly<Record<RestartAction, string>> = {
  PLR: "Process restart (PLR)",
  POD_REPLACEMENT: "Pod replacement",
  JLR: "Full job restart",
  FAIL: "Job failed",
};

export const ACTION_SHORT: Readonly<Record<RestartAction, string>> = {
  PLR: "PLR",
  POD_REPLACEMENT: "Pod replacement",
  JLR: "Full restart",
  FAIL: "Failed",
};

export type TimelineRow = {
  id: string;
  /** Axis label: action and reason. */
  label: string;
  entry: TimelineEntry;
  offset: number;
  detection: number;
  recovery: number;
};

export type TimelineChartData = { origin: number; end: number; rows: TimelineRow[] };

const span = (from: number, to: number) => (Number.isFinite(to - from) ? Math.max(0, to - from) : 0);

/** Chart rows, oldest first, for the most recent `limit` entries (the list beneath shows all of them). */
export function timelineRows(
  entries: readonly TimelineEntry[],
  opts: { now: number; limit?: number },
): TimelineChartData {
  const limit = opts.limit ?? 50;
  const shown = [...entries].sort((a, b) => a.faultAt - b.faultAt || a.id.localeCompare(b.id)).slice(-limit);
  const origin = shown.reduce((min, entry) => Math.min(min, entry.faultAt), Number.POSITIVE_INFINITY);
  if (!Number.isFinite(origin)) return { origin: opts.now, end: 0, rows: [] };
  let end = 0;
  const rows = shown.map((entry) => {
    const recoveredAt =
      entry.outcome === "recovered" && entry.recoveredAt !== null ? entry.recoveredAt : opts.now;
    const offset = span(origin, entry.faultAt);
    const detection = span(entry.faultAt, entry.detectedAt);
    const recovery = span(entry.detectedAt, recoveredAt);
    end = Math.max(end, offset + detection + recovery);
    return {
      id: entry.id,
      label: `${ACTION_SHORT[entry.action]} · ${entry.reason}`,
      entry,
      offset,
      detection,
      recovery,
    };
  });
  return { origin, end, rows };
}
