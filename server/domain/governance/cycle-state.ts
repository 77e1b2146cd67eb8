import { Ledger } from "./ledger";
import { buildLimits } from "./limits";
import { type PreemptionIndex, preemptionIndex } from "./preemption";
import type {
  Admission,
  GovernanceSnapshot,
  PendingDecision,
  PendingReason,
  Preemption,
  Quantities,
  Workload,
} from "./types";

export type Blocked = { reason: PendingReason; message: string };
export type Verdict = { workload: Workload; version: number; possible: readonly string[]; blocked: Blocked };

/** The mutable state of one admission cycle (admission.ts). */
export type CycleState = {
  snapshot: GovernanceSnapshot;
  /** Whether pending workloads get their reasons (admission.ts CycleOptions). */
  reasons: boolean;
  /**
   * "Why pending" alone (admission.ts CycleOptions `traceOnly`): reasons for the traced workload's team only
   * (the others' queues are set aside as a cycle without reasons sets them), and the cycle ends after its turn.
   */
  traceOnly: boolean;
  /** Usage now: the admitted workloads plus this cycle's admissions, less its victims. */
  ledger: Ledger;
  /** Usage when the cycle began (to tell "waits behind others" from "does not fit"). */
  initial: Ledger;
  /** Admitted workloads by flavor and team, for preemption (preemption.ts). */
  index: PreemptionIndex;
  taken: Set<string>;
  /**
   * team/flavor → preemption searches that failed (rank, request): within a cycle room only shrinks, so one
   * of no higher rank asking at least as much fails too.
   */
  failedSearches: Map<string, Array<{ rank: number; request: Quantities }>>;
  /** team → preemption searches it has left this cycle. */
  searchesLeft: Map<string, number>;
  /** priority class → checkPriorityClass's answer. */
  classChecks: Map<string, { ok: true } | { ok: false; message: string }>;
  /** team → the flavors its workloads that allow any try, in order. */
  flavors: Map<string, readonly string[]>;
  /**
   * team, flavors and request → why such a workload does not fit, at a ledger version: workloads of the same
   * shape decided while nothing changes share one verdict (long queues of alike jobs cost one check).
   */
  verdicts: Map<string, Verdict[]>;
  /** team → keys decided pending so far, in queue order. */
  waiting: Map<string, string[]>;
  admit: Admission[];
  /** Capacity held back for victims still stopping (Ledger.hold), in order. */
  holds: Array<{ flavor: string; request: Quantities }>;
  preempt: Preemption[];
  pending: PendingDecision[];
  /** The traced workload ("why pending"): the usage at its turn, how many admissions came before it, the victims by then. */
  trace: {
    key: string;
    /** The traced workload's team (null: it is not pending). */
    team: string | null;
    ledger: Ledger | null;
    admitsBefore: number;
    holdsBefore: number;
    taken: ReadonlySet<string>;
  } | null;
};

/**
 * Preemption searches per team and cycle. Kueue considers one head per ClusterQueue per cycle; here every
 * pending workload is tried for a direct fit, and the first of each team's queue (its highest ranked) that
 * does not fit and passes the cheap bound (couldMakeRoom) searches for victims. The rest wait for the next
 * cycle, which runs as soon as anything changes, so the work per cycle stays bounded however long the
 * queues are.
 */
export const PREEMPTION_SEARCHES_PER_TEAM = 1;

export function ledgerOf(snapshot: Pick<GovernanceSnapshot, "config" | "capacity" | "admitted">): Ledger {
  const ledger = new Ledger(buildLimits(snapshot.config, snapshot.capacity));
  for (const workload of snapshot.admitted) ledger.apply(workload.team, workload.flavor, workload.request, 1);
  return ledger;
}

/** Whether the cycle records why the team's pending workloads wait. */
export function recordsReasons(cycle: CycleState, team: string): boolean {
  return cycle.reasons && (!cycle.traceOnly || cycle.trace?.team === team);
}

export function newCycle(
  snapshot: GovernanceSnapshot,
  traceKey: string | null,
  reasons = true,
  traceOnly = false,
): CycleState {
  const ledger = ledgerOf(snapshot);
  return {
    snapshot,
    reasons,
    traceOnly: traceOnly && traceKey !== null,
    ledger,
    initial: ledger.clone(),
    index: preemptionIndex(snapshot.admitted, snapshot.config.scheduler),
    taken: new Set(),
    failedSearches: new Map(),
    searchesLeft: new Map(),
    classChecks: new Map(),
    flavors: new Map(),
    verdicts: new Map(),
    waiting: new Map(),
    admit: [],
    holds: [],
    preempt: [],
    pending: [],
    trace:
      traceKey === null
        ? null
        : {
            key: traceKey,
            team: snapshot.pending.find((workload) => workload.key === traceKey)?.team ?? null,
            ledger: null,
            admitsBefore: 0,
            holdsBefore: 0,
            taken: new Set(),
          },
  };
}
