import { type FaultFacts, jobGoodput } from "@/server/domain/goodput";
import type { JobTotals, TimelineEntry } from "@/server/domain/jobs/view-model";

export { unionLength } from "@/server/domain/goodput";

/**
 * The job's recovery totals, from its restart timeline:
 * - faults: the failures, a row standing for several identical ones in a row (`count`) counting each.
 * - mttrMs: mean of recoveredAt − faultAt over recovered faults (null with none), the control plane's cost
 *   of one fault from the moment it happened, detection included, less the time the restart waited out a
 *   crash-loop back-off (waitMs: a deliberate wait, not recovery; totalled apart as waitMs).
 * - downtimeMs, goodput, lostSteps: goodput as training progress (server/domain/goodput): a fault costs
 *   the time from the job's last progress to progress back at the same step (a hang's detection window
 *   and the steps redone after a checkpoint reload included), overlapping faults counted once, a fault
 *   still open up to `now`, everything clipped to [startedAt, now]. Rows without progress facts (older
 *   rows, agents that report no steps) count control-plane time, fault → recovered; `basis` says so.
 * Entries with non-finite times are ignored rather than poisoning the sums.
 */

function meanRecoveryMs(entries: readonly TimelineEntry[]): number | null {
  let sum = 0;
  let count = 0;
  for (const entry of entries) {
    if (entry.outcome !== "recovered" || entry.recoveredAt === null) continue;
    // A crash-loop back-off's wait is waiting, not recovering: kept apart (totals' waitMs).
    const ms = entry.recoveredAt - entry.faultAt - (entry.waitMs ?? 0);
    if (!Number.isFinite(ms) || ms < 0) continue;
    sum += ms;
    count += 1;
  }
  return count === 0 ? null : sum / count;
}

/** A timeline entry as the goodput arithmetic reads it. */
export function faultFacts(entry: TimelineEntry): FaultFacts {
  return {
    faultAt: entry.faultAt,
    detectedAt: entry.detectedAt,
    recoveredAt: entry.recoveredAt,
    outcome: entry.outcome,
    progressStep: entry.progressStep ?? null,
    progressAt: entry.progressAt ?? null,
    resumeStep: entry.resumeStep ?? null,
    resumedAt: entry.resumedAt ?? null,
  };
}

/** MTTR, downtime and goodput for a job; see the file header for the definitions and why. */
export function timelineTotals(
  entries: readonly TimelineEntry[],
  opts: { startedAt: number | null; now: number },
): JobTotals {
  const totals = jobGoodput(entries.map(faultFacts), opts);
  const waitMs = entries.reduce((sum, entry) => sum + (entry.waitMs ?? 0), 0);
  return {
    ...(waitMs > 0 ? { waitMs } : {}),
    // A row standing for several identical failures in a row counts each of them.
    faults: entries.reduce((sum, entry) => sum + (entry.count ?? 1), 0),
    mttrMs: meanRecoveryMs(entries),

    downtimeMs: totals.lostMs,
    goodput: totals.goodput,
    lostSteps: totals.lostSteps,
    basis: totals.basis,
    controlPlaneFaults: totals.controlPlaneFaults,
  };
}
