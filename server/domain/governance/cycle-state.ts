import { Ledger } from "./ledger";
import { buildLimits } from "./limits";
import type {
  Admission,
  AdmittedWorkload,
  GovernanceSnapshot,
  PendingDecision,
  Preemption,
  Quantities,
} from "./types";

/** The mutable state of one admission cycle (admission.ts). */
export type CycleState = {
  snapshot: GovernanceSnapshot;
  /** Usage now: the admitted workloads plus this cycle's admissions, less its victims. */
  ledger: Ledger;
  /** Usage when the cycle began (to tell "waits behind others" from "does not fit"). */
  initial: Ledger;
  admittedByFlavor: ReadonlyMap<string, readonly AdmittedWorkload[]>;
  taken: Set<string>;
  /** team/flavor/rank → requests whose preemption search failed (a bigger one fails too). */
  failedSearches: Map<string, Quantities[]>;
  searchesLeft: number;
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
    ledger: Ledger | null;
    admitsBefore: number;
    holdsBefore: number;
    taken: ReadonlySet<string>;
  } | null;
};

/** At most this many preemption searches per cycle; workloads beyond wait for the next cycle. */
export const PREEMPTION_SEARCH_BUDGET = 1000;

export function ledgerOf(snapshot: Pick<GovernanceSnapshot, "config" | "capacity" | "admitted">): Ledger {
  const ledger = new Ledger(buildLimits(snapshot.config, snapshot.capacity));
  for (const workload of snapshot.admitted) ledger.apply(workload.team, workload.flavor, workload.request, 1);
  return ledger;
}

export function newCycle(snapshot: GovernanceSnapshot, traceKey: string | null): CycleState {
  const ledger = ledgerOf(snapshot);
  const admittedByFlavor = new Map<string, AdmittedWorkload[]>();
  for (const workload of snapshot.admitted) {
    const list = admittedByFlavor.get(workload.flavor) ?? [];
    list.push(workload);
    admittedByFlavor.set(workload.flavor, list);
  }
  return {
    snapshot,
    ledger,
    initial: ledger.clone(),
    admittedByFlavor,
    taken: new Set(),
    failedSearches: new Map(),
    searchesLeft: PREEMPTION_SEARCH_BUDGET,
    waiting: new Map(),
    admit: [],
    holds: [],
    preempt: [],
    pending: [],
    trace:
      traceKey === null
        ? null
        : { key: traceKey, ledger: null, admitsBefore: 0, holdsBefore: 0, taken: new Set() },
  };
}
