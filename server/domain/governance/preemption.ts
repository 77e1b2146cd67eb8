import type { Ledger } from "./ledger";
import { rankOf } from "./priority";
import type { AdmittedWorkload, PreemptionReason, Workload } from "./types";

/**
 * Preemption for a workload that does not fit a flavor, as Kueue chooses:
 * - InClusterQueue: same team, its quota's PreemptTeamTasks is LowerPriority, victim of strictly lower rank;
 * - InCohortReclamation: the workload fits within its team's guarantee; victims of other teams that are
 *   borrowing, any priority;
 * - InCohortFairSharing: fair share on; a victim's team (borrowing) keeps a larger dominant share after losing
 *   the victim than the preemptor's team has with the workload (strictly: no ping-pong between equals).
 * Candidates in order: teams above their guarantee first, then lowest rank, then newest admitted. A victim is
 * never taken from a team that is not borrowing at that point (no team is pushed below its guarantee by
 * another). Greedy until the workload fits, then victims not needed are given back (Kueue's minimal set).
 */

export type Victim = { victim: AdmittedWorkload; reason: PreemptionReason };

export type PreemptionTarget = { workload: Workload; rank: number; flavor: string };

export type PreemptionScope = {
  ledger: Ledger;
  /** Workloads admitted in the flavor (candidates). */
  admitted: readonly AdmittedWorkload[];
  /** Keys already chosen as victims this cycle. */
  taken: ReadonlySet<string>;
};

const PHRASE: Record<PreemptionReason, string> = {
  InClusterQueue: "prioritization in the ClusterQueue",
  InCohortReclamation: "reclamation within the cohort",
  InCohortFairSharing: "Fair Sharing within the cohort",
  InCohortReclaimWhileBorrowing: "reclamation within the cohort while borrowing",
};

export function preemptionMessage(reason: PreemptionReason, by: string): string {
  return `Preempted to accommodate a workload (${by}) due to ${PHRASE[reason]}`;
}

function requested(workload: Workload): string[] {
  return Object.entries(workload.request)
    .filter(([, amount]) => amount > 0)
    .map(([resource]) => resource);
}

function withinGuarantee(ledger: Ledger, target: PreemptionTarget, resources: readonly string[]): boolean {
  const { workload, flavor } = target;
  return resources.every(
    (r) =>
      !ledger.isGoverned(flavor, r) ||
      ledger.used(workload.team, flavor, r) + (workload.request[r] ?? 0) <=
        ledger.cell(workload.team, flavor, r).nominal + 1e-9,
  );
}

type Search = {
  ledger: Ledger;
  target: PreemptionTarget;
  resources: readonly string[];
  reclaim: boolean;
};

function fairShareAllows(search: Search, victim: AdmittedWorkload): boolean {
  const { ledger, target } = search;
  ledger.apply(target.workload.team, target.flavor, target.workload.request, 1);
  const preemptorShare = ledger.share(target.workload.team);
  ledger.apply(target.workload.team, target.flavor, target.workload.request, -1);
  ledger.apply(victim.team, target.flavor, victim.request, -1);
  const victimShare = ledger.share(victim.team);
  ledger.apply(victim.team, target.flavor, victim.request, 1);
  return preemptorShare < victimShare;
}

/** Why this candidate may be preempted now, or null when it may not. */
function reasonFor(search: Search, victim: AdmittedWorkload): PreemptionReason | null {
  const { ledger, target, resources } = search;
  if (victim.team === target.workload.team) return "InClusterQueue";
  if (!ledger.isBorrowing(victim.team, target.flavor, resources)) return null;
  if (search.reclaim) return "InCohortReclamation";
  if (ledger.limits.settings.fairShare && fairShareAllows(search, victim)) return "InCohortFairSharing";
  return null;
}

function eligible(search: Search, victim: AdmittedWorkload): boolean {
  const { ledger, target, resources } = search;
  if (!resources.some((r) => (victim.request[r] ?? 0) > 0)) return false;
  if (victim.team !== target.workload.team) return search.reclaim || ledger.limits.settings.fairShare;
  const policy = ledger.limits.quotas.get(victim.team)?.preemptTeamTasks;
  return policy === "LowerPriority" && rankOf(victim, ledger.limits.settings) < target.rank;
}

function candidatesOf(search: Search, scope: PreemptionScope): AdmittedWorkload[] {
  const { ledger, target, resources } = search;
  const borrowing = new Map<string, boolean>();
  const isBorrowing = (team: string) => {
    let value = borrowing.get(team);
    if (value === undefined) {
      value = ledger.isBorrowing(team, target.flavor, resources);
      borrowing.set(team, value);
    }
    return value;
  };
  const settings = ledger.limits.settings;
  return scope.admitted
    .filter((v) => !scope.taken.has(v.key) && v.key !== target.workload.key && eligible(search, v))
    .map((v) => ({ v, borrowing: isBorrowing(v.team) ? 0 : 1, rank: rankOf(v, settings) }))
    .sort((a, b) => a.borrowing - b.borrowing || a.rank - b.rank || b.v.admittedAt - a.v.admittedAt)
    .map(({ v }) => v);
}

function greedy(search: Search, candidates: readonly AdmittedWorkload[]): Victim[] | null {
  const { ledger, target } = search;
  const chosen: Victim[] = [];
  let fits = false;
  for (const victim of candidates) {
    const reason = reasonFor(search, victim);
    if (reason === null) continue;
    ledger.apply(victim.team, target.flavor, victim.request, -1);
    chosen.push({ victim, reason });
    fits = ledger.check(target.workload.team, target.flavor, target.workload.request).fits;
    if (fits) break;
  }
  if (fits) return chosen;
  for (const { victim } of chosen) ledger.apply(victim.team, target.flavor, victim.request, 1);
  return null;
}

/** Gives back victims not needed (all but the last, newest choice first); leaves the ledger as it found it. */
function minimize(search: Search, chosen: Victim[]): Victim[] {
  const { ledger, target } = search;
  const kept = [...chosen];
  for (let index = kept.length - 2; index >= 0; index--) {
    const entry = kept[index];
    if (entry === undefined) continue;
    ledger.apply(entry.victim.team, target.flavor, entry.victim.request, 1);
    if (ledger.check(target.workload.team, target.flavor, target.workload.request).fits)
      kept.splice(index, 1);
    else ledger.apply(entry.victim.team, target.flavor, entry.victim.request, -1);
  }
  for (const { victim } of kept) ledger.apply(victim.team, target.flavor, victim.request, 1);
  return kept;
}

/**
 * The victims that let `target` fit its flavor, or null when no allowed set does. The ledger is left
 * unchanged; the caller removes the victims and adds the workload.
 */
export function findVictims(scope: PreemptionScope, target: PreemptionTarget): Victim[] | null {
  const { ledger } = scope;
  const resources = requested(target.workload);
  const search: Search = { ledger, target, resources, reclaim: withinGuarantee(ledger, target, resources) };
  const candidates = candidatesOf(search, scope);
  if (candidates.length === 0) return null;
  const chosen = greedy(search, candidates);
  return chosen === null ? null : minimize(search, chosen);
}
