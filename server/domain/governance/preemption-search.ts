import type { Ledger } from "./ledger";
import type { AdmittedWorkload, PreemptionReason, Quantities, Workload } from "./types";

// The state of one preemption search (preemption.ts runs it, preemption-bound.ts bounds it), apart from both
// so that the bound does not import the search that calls it.

/** A workload chosen to be preempted, and why. */
export type Victim = { victim: AdmittedWorkload; reason: PreemptionReason };

export type PreemptionTarget = { workload: Workload; rank: number; flavor: string };

/** An admitted workload with its rank and its team's number in the index. */
export type Ranked = { workload: AdmittedWorkload; rank: number; team: number };

export type Search = {
  ledger: Ledger;
  target: PreemptionTarget;
  resources: readonly string[];
  reclaim: boolean;
  /** The preemptor's team's share with the workload admitted (fair sharing only). */
  preemptorShare: number;
  /** team → whether it borrows now (dropped when one of its workloads is taken). */
  borrowing: Map<string, boolean>;
  /**
   * team → requests of its workloads fair sharing refused: while nothing of the team is taken, one at least
   * as big is refused too (its share after losing it would be no higher).
   */
  refused: Map<string, Quantities[]>;
};
