import { type FaultFacts, type FaultLoss, faultLoss, hasProgress } from "./fault-loss";

/**
 * A job's goodput as training progress: 1 − lost time / elapsed time, where lost time is the union of its
 * faults' lost intervals (fault-loss.ts) clipped to the job's life [startedAt, now]. The union counts a fault
 * during the recovery of another once, not twice. A fault still open counts up to `now`, so a hung or
 * recovering job's goodput falls while it stays down.
 */

export type GoodputBasis =
  /** Every fault measured as training progress. */
  | "progress"
  /** Some faults carry no progress facts (older rows, agents without steps): those count control-plane time. */
  | "mixed"
  /** No fault carries progress facts: the control-plane figure (fault → recovered) alone. */
  | "control-plane"
  /** No faults. */
  | "none";

export type JobGoodput = {
  /** 1 − lostMs / elapsed, in [0, 1]; null before the job started. */
  goodput: number | null;
  /** The union of the faults' lost intervals within the job's life, ms. */
  lostMs: number;
  /** Steps redone, summed over the faults that know theirs. */
  lostSteps: number;
  basis: GoodputBasis;
  /** Faults counted on the control-plane basis (no progress facts). */
  controlPlaneFaults: number;
  /** Faults not over as of `now`. */
  openFaults: number;
};

type Interval = { start: number; end: number };

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

const byDetection = <T extends FaultFacts>(a: T, b: T) =>
  a.detectedAt - b.detectedAt || a.faultAt - b.faultAt;

/** Each fault's loss, in the order given, each with the job's next fault (by detection) as its `next`. */
export function faultLosses<T extends FaultFacts>(faults: readonly T[], now: number): Map<T, FaultLoss> {
  const ordered = [...faults].sort(byDetection);
  const losses = new Map<T, FaultLoss>();
  ordered.forEach((fault, index) => {
    losses.set(fault, faultLoss(fault, { now, next: ordered[index + 1] ?? null }));
  });
  return losses;
}

function basisOf(faults: number, controlPlane: number): GoodputBasis {
  if (faults === 0) return "none";
  if (controlPlane === 0) return "progress";
  return controlPlane === faults ? "control-plane" : "mixed";
}

const clamp01 = (value: number): number => Math.min(1, Math.max(0, value));

/** The faults' lost intervals clipped to [start, end], with their redone steps and how many are open. */
function sumLosses(faults: readonly FaultFacts[], bounds: Interval) {
  const intervals: Interval[] = [];
  let lostSteps = 0;
  let openFaults = 0;
  for (const loss of faultLosses(faults, bounds.end).values()) {
    const start = Math.max(loss.start, bounds.start);
    const end = Math.min(loss.end, bounds.end);
    if (end > start) intervals.push({ start, end });
    lostSteps += loss.lostSteps ?? 0;
    if (loss.open) openFaults += 1;
  }
  return { lostMs: unionLength(intervals), lostSteps, openFaults };
}

export function jobGoodput(
  faults: readonly FaultFacts[],
  opts: { startedAt: number | null; now: number },
): JobGoodput {
  const { lostMs, lostSteps, openFaults } = sumLosses(faults, {
    start: opts.startedAt ?? Number.NEGATIVE_INFINITY,
    end: opts.now,
  });
  const controlPlaneFaults = faults.filter((fault) => !hasProgress(fault)).length;
  const elapsed = opts.startedAt === null ? null : opts.now - opts.startedAt;
  const goodput = elapsed === null ? null : elapsed > 0 ? clamp01(1 - lostMs / elapsed) : 1;
  return {
    goodput,
    lostMs,
    lostSteps,
    basis: basisOf(faults.length, controlPlaneFaults),
    controlPlaneFaults,
    openFaults,
  };
}
