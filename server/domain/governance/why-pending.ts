import { localQueueOf, runCycle } from "./admission";
import type { CycleState } from "./cycle-state";
import { flavorOrder } from "./limits";
import { formatQuantity } from "./quantity";
import type { GovernanceSnapshot, PendingDecision, Shortfall, WhyPending, Workload } from "./types";
import {
  borrowing,
  finishing,
  higherPriority,
  raiseGuarantee,
  stopping,
  type Turn,
  type Way,
} from "./would-run";

/**
 * "Why is my job pending", in numbers: one admission cycle as decideAdmissions runs it, traced at the job's
 * turn (and no further: `traceOnly`). Null when the job is not pending, or when this cycle would admit it.
 * It names the teams that hold borrowed capacity of what is missing, and, for a job preempted before, who
 * took its place and why (`history`); a way it would run is offered only when the admission, run again with
 * that way applied, admits it.
 */

/** The job's last preemption, where the caller knows it (the operator's entry, the live job's admission). */
export type PendingHistory = { reason: string; by: string | null };

type Traced = NonNullable<CycleState["trace"]>;

function using(cycle: CycleState, trace: Traced): Turn["using"] {
  const admitted = cycle.snapshot.admitted.filter((a) => !trace.taken.has(a.key));
  const earlier = cycle.admit.slice(0, trace.admitsBefore).map((a) => ({ ...a.workload, flavor: a.flavor }));
  return [...admitted, ...earlier];
}

/** The flavor to explain: the one with the least missing among those it could ever fit, else the first. */
function primaryFlavor(cycle: CycleState, workload: Workload, trace: Traced) {
  const ledger = trace.ledger ?? cycle.initial;
  const flavors = flavorOrder(ledger.limits, workload.team, workload.flavors);
  const fits = flavors.map((flavor) => ({
    flavor,
    fit: ledger.check(workload.team, flavor, workload.request),
  }));
  const missing = (shortfall: readonly Shortfall[]) =>
    shortfall.reduce((sum, s) => sum + s.missing / s.need, 0);
  const possible = fits
    .filter(({ fit }) => fit.never === null)
    .sort((a, b) => missing(a.fit.shortfall) - missing(b.fit.shortfall));
  return possible[0] ?? fits[0] ?? null;
}

const ordinal = (n: number) => {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
};

function shortfallText(turn: Turn | null, shortfall: readonly Shortfall[]): string {
  if (turn === null || shortfall.length === 0) return "";
  const cellText = (s: Shortfall) => {
    const cell = turn.ledger.cell(turn.workload.team, s.flavor, s.resource);
    const used = turn.ledger.used(turn.workload.team, s.flavor, s.resource);
    const f = (amount: number) => formatQuantity(s.resource, amount);
    const quota = turn.ledger.isGoverned(s.flavor, s.resource)
      ? ` (guaranteed ${f(cell.nominal)}, in use ${f(used)}, borrow limit ${f(cell.borrowLimit)})`
      : "";
    return `It needs ${f(s.need)} ${s.resource} in flavor ${s.flavor}; ${f(s.available)} available to ${turn.workload.team} now${quota}, ${f(s.missing)} missing`;
  };
  return ` ${shortfall.map(cellText).join("; ")}.`;
}

/** Other teams using more than their guarantee of a resource in a flavor: "b (2 nvidia.com/gpu)". */
function borrowersOf(turn: Turn, flavor: string, resource: string): string[] {
  if (!turn.ledger.isGoverned(flavor, resource)) return [];
  return [...turn.ledger.limits.quotas.keys()].flatMap((team) => {
    const borrowed =
      turn.ledger.used(team, flavor, resource) - turn.ledger.cell(team, flavor, resource).nominal;
    return team === turn.workload.team || borrowed <= 0
      ? []
      : [`${team} (${formatQuantity(resource, borrowed)} ${resource})`];
  });
}

/** The teams holding borrowed capacity of what is missing. */
function borrowersText(turn: Turn | null): string {
  const held = turn?.shortfall.flatMap(({ flavor, resource }) => borrowersOf(turn, flavor, resource)) ?? [];
  return held.length === 0 ? "" : ` Borrowed capacity is held by ${held.join(", ")}.`;
}

/** The team a workload key belongs to, as the snapshot knows it. */
function teamOfKey(snapshot: GovernanceSnapshot, key: string): string | null {
  return (
    snapshot.admitted.find((w) => w.key === key)?.team ??
    snapshot.pending.find((w) => w.key === key)?.team ??
    null
  );
}

/** Who preempted it before, and why (Kueue's reasons): a lender reclaiming is named as such. */
function historyText(snapshot: GovernanceSnapshot, history: PendingHistory | null): string {
  if (history === null || history.by === null) return "";
  const team = teamOfKey(snapshot, history.by);
  switch (history.reason) {
    case "InCohortReclamation":
      return ` It was preempted for ${history.by}: ${team ?? "its team"} reclaimed the guaranteed capacity it had lent.`;
    case "InCohortFairSharing":
      return ` It was preempted for ${history.by}${team ? ` of ${team}` : ""} to restore fair sharing.`;
    case "InClusterQueue":
      return ` It was preempted for ${history.by}, of higher priority in its own team.`;
    default:
      return ` It was preempted for ${history.by} (${history.reason}).`;
  }
}

function paragraph(
  decision: PendingDecision,
  turn: Turn | null,
  said: { ahead: readonly string[]; wouldRun: readonly string[]; history: string },
) {
  const { ahead, wouldRun, history } = said;
  const { workload, position, reason, message } = decision;
  const queue = `${ordinal(position)} in ${localQueueOf(workload.team)}`;
  const behind =
    ahead.length === 0
      ? ""
      : ` behind ${ahead.length} (${ahead.slice(0, 3).join(", ")}${ahead.length > 3 ? ", …" : ""})`;
  const ways = wouldRun.length === 0 ? "" : ` It would run if ${wouldRun.join("; or if ")}.`;
  const numbers = shortfallText(turn, turn?.shortfall ?? []);
  return `${workload.key} is ${queue}${behind}.${history} ${reason}: ${message}.${numbers}${borrowersText(turn)}${ways}`;
}

/** Whether the admission, run over `snapshot`, admits the workload (once its victims stop, if it preempts). */
function admits(snapshot: GovernanceSnapshot, key: string): boolean {
  const { cycle } = runCycle(snapshot, { traceKey: key, traceOnly: true, reasons: false });
  return cycle.admit.some((admission) => admission.workload.key === key);
}

function suggestions(turn: Turn | null, decision: PendingDecision): string[] {
  switch (decision.reason) {
    case "QuotaInactive":
      return [`${decision.workload.team}'s compute quota is activated`];
    case "UnknownPriorityClass":
      return ["it names a priority class the cluster policy defines, or none"];
    default: {
      if (turn === null) return [];
      const ways = [
        stopping(turn),
        finishing(turn),
        ...raiseGuarantee(turn),
        higherPriority(turn),
        borrowing(turn),
      ];
      return ways
        .filter((way): way is Way => way !== null && admits(way.applied, decision.workload.key))
        .map((way) => way.text);
    }
  }
}

export function whyPending(
  snapshot: GovernanceSnapshot,
  key: string,
  history: PendingHistory | null = null,
): WhyPending | null {
  if (!snapshot.pending.some((w) => w.key === key)) return null;
  const { decision, cycle } = runCycle(snapshot, { traceKey: key, traceOnly: true });
  const pending = decision.pending.find((p) => p.workload.key === key);
  const trace = cycle.trace;
  if (pending === undefined || trace === null) return null;
  const primary = primaryFlavor(cycle, pending.workload, trace);
  const turn: Turn | null =
    primary === null || trace.ledger === null
      ? null
      : {
          snapshot,
          workload: pending.workload,
          flavor: primary.flavor,
          ledger: trace.ledger,
          using: using(cycle, trace),
          shortfall: primary.fit.shortfall,
          taken: trace.taken,
          holds: cycle.holds.slice(0, trace.holdsBefore),
        };
  const ahead = (cycle.waiting.get(pending.workload.team) ?? []).slice(0, pending.position - 1);
  const wouldRun =
    pending.reason === "ExceedsCapacity" || pending.reason === "NoQuota" ? [] : suggestions(turn, pending);
  return {
    key,
    position: pending.position,
    reason: pending.reason,
    shortfall: turn?.shortfall ?? [],
    ahead,
    wouldRun,
    text: paragraph(pending, turn, { ahead, wouldRun, history: historyText(snapshot, history) }),
  };
}
