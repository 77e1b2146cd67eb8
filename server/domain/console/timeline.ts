import type { JobTotals, TimelineEntry } from "@/server/domain/jobs/view-model";

/**
 * The job's recovery totals, from its restart timeline:
 * - mttrMs: mean of recoveredAt − faultAt over recovered faults (null with none), the user-visible cost of
 *   one fault from the moment it happened, detection included.
 * - downtimeMs: the union of [faultAt, recoveredAt] intervals, with pending and failed faults running to
 *   `now`. Overlapping faults (a second rank crashing during a recovery) are merged so time is not counted
 *   twice. Intervals are clipped to [startedAt, now]: a clock a little ahead on one node must not produce
 *   negative goodput or downtime from the future.
 * - goodput: 1 − downtime / (now − startedAt), clamped to [0, 1]; null before the job started.
 * Entries with non-finite times are ignored rather than poisoning the sums.
 */

type Interval = { start: number; end: number };

const clamp01 = (value: number): number => Math.min(1, Math.max(0, value));

function meanRecoveryMs(entries: readonly TimelineEntry[]): number | null {
  let sum = 0;
  let count = 0;
  for (const entry of entries) {
    if (entry.outcome !== "recovered" || entry.recoveredAt === null) continue;
    const ms = entry.recoveredAt - entry.faultAt;
    if (!Number.isFinite(ms) || ms < 0) continue;
    sum += ms;
    count += 1;
  }
  return count === 0 ? null : sum / count;
}

function downInterval(entry: TimelineEntry, bounds: Interval): Interval | null {
  const end = entry.outcome === "recovered" && entry.recoveredAt !== null ? entry.recoveredAt : bounds.end;
  const clipped = { start: Math.max(entry.faultAt, bounds.start), end: Math.min(end, bounds.end) };
  if (!Number.isFinite(clipped.start) || !Number.isFinite(clipped.end)) return null;
  return clipped.end > clipped.start ? clipped : null;
}

/** Total length of the union of intervals: sort by start, then sweep, merging overlaps. O(n log n). */
export function unionLength(intervals: readonly Interval[]): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let current: Interval | null = null;
  for (const next of sorted) {
    if (current !== null && next.start <= current.end) {
      current.end = Math.max(current.end, next.end);
      continue;
    }
    if (current !== null) total += current.end - current.start;
    current = { ...next };
  }
  return current === null ? total : total + current.end - current.start;
}

/** MTTR, downtime and goodput for a job; see the file header for the definitions and why. */
export function timelineTotals(
  entries: readonly TimelineEntry[],
  opts: { startedAt: number | null; now: number },
): JobTotals {
  const bounds = { start: opts.startedAt ?? Number.NEGATIVE_INFINITY, end: opts.now };
  const intervals: Interval[] = [];
  for (const entry of entries) {
    const interval = downInterval(entry, bounds);
    if (interval) intervals.push(interval);
  }
  const downtimeMs = unionLength(intervals);
  const elapsed = opts.startedAt === null ? null : opts.now - opts.startedAt;
  const goodput = elapsed === null ? null : elapsed > 0 ? clamp01(1 - downtimeMs / elapsed) : 1;
  return { faults: entries.length, mttrMs: meanRecoveryMs(entries), downtimeMs, goodput };
}
