import { timelineTotals } from "@/server/domain/console/timeline";
import type { TimelineEntry } from "@/server/domain/jobs/view-model";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Faults in one hour of the last 24: (`start`, `start` + 1 h], hours counted back from now. */
export type HourBucket = { start: number; faults: number };

export type ReliabilityStats = {
  /** Faults whose fault time falls in the last 24 h. */
  faults: number;
  recovered: number;
  failed: number;
  /** Still recovering now. */
  pending: number;
  /** Mean fault → recovered over the recovered ones (timelineTotals' definition); null with none. */
  mttrMs: number | null;
  /** 24 hourly buckets, oldest first, ending now; they add up to `faults`. */
  perHour: HourBucket[];
};

/**
 * Faults and recovery over the 24 h before `now`, from restart-timeline entries of any jobs (the caller
 * passes only the entries in the viewer's scope). Entries outside the window, or with a non-finite fault
 * time, are not counted.
 */
export function reliabilityOf(entries: readonly TimelineEntry[], now: number): ReliabilityStats {
  const since = now - DAY_MS;
  const inWindow = entries.filter(
    (entry) => Number.isFinite(entry.faultAt) && entry.faultAt > since && entry.faultAt <= now,
  );
  const perHour: HourBucket[] = Array.from({ length: 24 }, (_, index) => ({
    start: since + index * HOUR_MS,
    faults: 0,
  }));
  // A row standing for several identical failures in a row (a folded crash loop) counts each of them.
  const failures = (entry: TimelineEntry) => entry.count ?? 1;
  for (const entry of inWindow) {
    const bucket = perHour[Math.ceil((entry.faultAt - since) / HOUR_MS) - 1];
    if (bucket) bucket.faults += failures(entry);
  }
  const count = (outcome: TimelineEntry["outcome"]) =>
    inWindow.reduce((sum, entry) => sum + (entry.outcome === outcome ? failures(entry) : 0), 0);
  return {
    faults: count("recovered") + count("failed") + count("pending"),
    recovered: count("recovered"),
    failed: count("failed"),
    pending: count("pending"),
    mttrMs: timelineTotals(inWindow, { startedAt: since, now }).mttrMs,
    perHour,
  };
}
