/**
 * Goodput as training progress (issue 14). A fault costs the job the time from its last progress to the
 * moment its progress is back where it was, and the steps it had to redo:
 * - progressAt: the job's last progress before the fault (the stalled rank's last step line for a hang,
 *   so the hang's detection window counts; the crash itself for a crash). progressStep: the job's step then.
 * - resumeStep: the step training restarted from (the checkpoint step, or the same step after a peer
 *   recovery). resumedAt: progress back at progressStep or later.
 * Lost seconds = resumedAt − progressAt; lost steps = progressStep − resumeStep (never below 0).
 *
 * A fault whose row has no progress facts (rows from before they were recorded, agents that report no
 * steps) is counted as it was before: control-plane time, faultAt → recoveredAt. Its `basis` says so, and
 * the console shows it.
 *
 * Pure arithmetic on epoch milliseconds; no clock, no I/O.
 */

export type FaultOutcome = "pending" | "recovered" | "failed";

/** What a restart-timeline row says about one fault (epoch ms; null: not known, or not yet). */
export type FaultFacts = {
  faultAt: number;
  detectedAt: number;
  /** The control plane's recovery: every agent took its /start. */
  recoveredAt: number | null;
  outcome: FaultOutcome;
  progressStep: number | null;
  progressAt: number | null;
  resumeStep: number | null;
  resumedAt: number | null;
};

export type LossBasis = "progress" | "control-plane";

export type FaultLoss = {
  basis: LossBasis;
  /** The lost interval [start, end]: end is `now` while the fault is open. */
  start: number;
  end: number;
  /** Not over yet: progress not back (or, on the control-plane basis, not recovered) as of `now`. */
  open: boolean;
  /** end − start, never negative (not clipped to the job's life: jobGoodput does that). */
  lostMs: number;
  /** progressStep − resumeStep, never negative; null while unknown or on the control-plane basis. */
  lostSteps: number | null;
};

const finite = (value: number | null): value is number => value !== null && Number.isFinite(value);

/** Whether the row carries the progress facts this definition needs (its start, at least). */
export function hasProgress(fault: FaultFacts): boolean {
  return finite(fault.progressAt);
}

/**
 * Where a fault's loss ends when its own row does not say: at the next fault of the job (the job was still
 * down when it happened, and that fault's row carries the outage on), else at `now` (still open).
 */
function openEnd(next: FaultFacts | null, now: number): { end: number; open: boolean } {
  if (next && Number.isFinite(next.faultAt)) return { end: next.faultAt, open: false };
  return { end: now, open: true };
}

function progressLoss(fault: FaultFacts, next: FaultFacts | null, now: number): FaultLoss {
  const start = fault.progressAt as number;
  const { end, open } = finite(fault.resumedAt) ? { end: fault.resumedAt, open: false } : openEnd(next, now);
  const lostSteps =
    finite(fault.progressStep) && finite(fault.resumeStep)
      ? Math.max(0, fault.progressStep - fault.resumeStep)
      : null;
  return { basis: "progress", start, end, open, lostMs: Math.max(0, end - start), lostSteps };
}

function controlPlaneLoss(fault: FaultFacts, next: FaultFacts | null, now: number): FaultLoss {
  const start = fault.faultAt;
  const recovered = fault.outcome === "recovered" && finite(fault.recoveredAt);
  const { end, open } = recovered ? { end: fault.recoveredAt as number, open: false } : openEnd(next, now);
  return { basis: "control-plane", start, end, open, lostMs: Math.max(0, end - start), lostSteps: null };
}

/**
 * One fault's loss. `next` is the job's next fault (by detection), if any: a fault whose progress never came
 * back before it (a fault during the recovery of another, a restart that failed) ends there, and the next
 * one's row, which starts from the same last progress, carries the outage on. A fault still open counts up
 * to `now`. Non-finite times give a zero-length loss rather than poisoning the sums.
 */
export function faultLoss(fault: FaultFacts, opts: { now: number; next?: FaultFacts | null }): FaultLoss {
  const next = opts.next ?? null;
  const loss = hasProgress(fault)
    ? progressLoss(fault, next, opts.now)
    : controlPlaneLoss(fault, next, opts.now);
  if (!Number.isFinite(loss.start) || !Number.isFinite(loss.end)) {
    return { ...loss, start: opts.now, end: opts.now, lostMs: 0 };
  }
  return loss;
}
