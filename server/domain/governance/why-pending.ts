import { localQueueOf, runCycle } from "./admission";
import type { CycleState } from "./cycle-state";
import { flavorOrder } from "./limits";
import { formatQuantity } from "./quantity";
import type { GovernanceSnapshot, PendingDecision, Shortfall, WhyPending, Workload } from "./types";
import { borrowing, finishing, higherPriority, raiseGuarantee, stopping, type Turn } from "./would-run";

/**
 * "Why is my job pending", in numbers: one admission cycle as decideAdmissions runs it, traced at the job's
 * turn. Null when the job is not pending, or when this cycle would admit it.
 */

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

function paragraph(
  decision: PendingDecision,
  ahead: readonly string[],
  turn: Turn | null,
  wouldRun: readonly string[],
) {
  const { workload, position, reason, message } = decision;
  const queue = `${ordinal(position)} in ${localQueueOf(workload.team)}`;
  const behind =
    ahead.length === 0
      ? ""
      : ` behind ${ahead.length} (${ahead.slice(0, 3).join(", ")}${ahead.length > 3 ? ", …" : ""})`;
  const ways = wouldRun.length === 0 ? "" : ` It would run if ${wouldRun.join("; or if ")}.`;
  return `${workload.key} is ${queue}${behind}. ${reason}: ${message}.${shortfallText(turn, turn?.shortfall ?? [])}${ways}`;
}

function suggestions(turn: Turn | null, decision: PendingDecision): string[] {
  switch (decision.reason) {
    case "QuotaInactive":
      return [`${decision.workload.team}'s compute quota is activated`];
    case "UnknownPriorityClass":
      return ["it names a priority class the cluster policy defines, or none"];
    default:
      if (turn === null) return [];
      return [
        stopping(turn),
        finishing(turn),
        ...raiseGuarantee(turn),
        higherPriority(turn),
        borrowing(turn),
      ].filter((way): way is string => way !== null);
  }
}

export function whyPending(snapshot: GovernanceSnapshot, key: string): WhyPending | null {
  if (!snapshot.pending.some((w) => w.key === key)) return null;
  const { decision, cycle } = runCycle(snapshot, { traceKey: key });
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
    text: paragraph(pending, ahead, turn, wouldRun),
  };
}
