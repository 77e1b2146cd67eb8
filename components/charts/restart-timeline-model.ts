import { faultFacts } from "@/server/domain/console/timeline";
import { type FaultLoss, faultLosses } from "@/server/domain/goodput";
import type { RestartAction, TimelineEntry } from "@/server/domain/jobs/view-model";

/**
 * Turns restart-timeline entries into rows for a stacked horizontal bar chart (a Gantt): per fault an
 * invisible `offset` from the chart's origin to the bar, then `stalled` (the job's last progress → the
 * fault: a hang's detection window), `detection` (faultAt → detectedAt), `waiting` (the crash-loop
 * back-off's wait after detection, waitMs), `recovery` (the rest of detectedAt → recoveredAt; while
 * pending, or when the recovery failed, → now), and `catchUp` (recovered → training
 * back at the step it had reached: steps redone after a checkpoint reload; → now while not back). Values
 * are ms relative to the origin so the axis stays small and exact.
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
  /** What the fault cost the training (server/domain/goodput). */
  loss: FaultLoss | null;
  offset: number;
  stalled: number;
  detection: number;
  /** Of detected → recovered, the crash-loop back-off's wait (kept apart from recovery). */
  waiting: number;
  recovery: number;
  catchUp: number;
};

export type TimelineChartData = { origin: number; end: number; rows: TimelineRow[] };

const span = (from: number, to: number) => (Number.isFinite(to - from) ? Math.max(0, to - from) : 0);

/** Each entry's loss (server/domain/goodput), by entry id. */
export function entryLosses(entries: readonly TimelineEntry[], now: number): Map<string, FaultLoss> {
  const facts = new Map(entries.map((entry) => [faultFacts(entry), entry.id] as const));
  const byId = new Map<string, FaultLoss>();
  for (const [fact, loss] of faultLosses([...facts.keys()], now)) byId.set(facts.get(fact) ?? "", loss);
  return byId;
}

/** " ×6" for a row standing for 6 identical failures in a row; "" for one. */
export const timesText = (entry: TimelineEntry): string => ((entry.count ?? 1) > 1 ? ` ×${entry.count}` : "");

/** Where a fault's bar begins: its last progress when that came before the fault. */
const barStart = (entry: TimelineEntry, loss: FaultLoss | null) =>
  loss?.basis === "progress" ? Math.min(loss.start, entry.faultAt) : entry.faultAt;

function row(input: {
  entry: TimelineEntry;
  loss: FaultLoss | null;
  origin: number;
  now: number;
}): TimelineRow {
  const { entry, loss, origin, now } = input;
  const recovered = entry.outcome === "recovered" && entry.recoveredAt !== null;
  const recoveredAt = recovered ? (entry.recoveredAt as number) : now;
  const start = barStart(entry, loss);
  const progress = loss?.basis === "progress";
  // The wait comes first after detection (the restart's stop steps take milliseconds, its wait seconds).
  const waiting = Math.min(entry.waitMs ?? 0, span(entry.detectedAt, recoveredAt));
  return {
    id: entry.id,
    label: `${ACTION_SHORT[entry.action]} · ${entry.reason}${timesText(entry)}`,
    entry,
    loss,
    offset: span(origin, start),
    stalled: span(start, entry.faultAt),
    detection: span(entry.faultAt, entry.detectedAt),
    waiting,
    recovery: span(entry.detectedAt + waiting, recoveredAt),
    catchUp: progress && recovered && loss ? span(recoveredAt, loss.end) : 0,
  };
}

/** Chart rows, oldest first, for the most recent `limit` entries (the list beneath shows all of them). */
export function timelineRows(
  entries: readonly TimelineEntry[],
  opts: { now: number; limit?: number },
): TimelineChartData {
  const limit = opts.limit ?? 50;
  const losses = entryLosses(entries, opts.now);
  const shown = [...entries].sort((a, b) => a.faultAt - b.faultAt || a.id.localeCompare(b.id)).slice(-limit);
  const origin = shown.reduce(
    (min, entry) => Math.min(min, barStart(entry, losses.get(entry.id) ?? null)),
    Number.POSITIVE_INFINITY,
  );
  if (!Number.isFinite(origin)) return { origin: opts.now, end: 0, rows: [] };
  const rows = shown.map((entry) =>
    row({ entry, loss: losses.get(entry.id) ?? null, origin, now: opts.now }),
  );
  const end = rows.reduce(
    (max, r) => Math.max(max, r.offset + r.stalled + r.detection + r.waiting + r.recovery + r.catchUp),
    0,
  );
  return { origin, end, rows };
}
