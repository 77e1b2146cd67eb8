import { dominantShare } from "./fair-share";
import type { Ledger } from "./ledger";
import { Bound, withinGuarantee } from "./preemption-bound";
import type { PreemptionTarget, Ranked, Search } from "./preemption-search";
import { rankOf } from "./priority";
import type { AdmittedWorkload, PreemptionReason, Quantities, SchedulerSettings } from "./types";

/**
 * Preemption for a workload that does not fit a flavor, as Kueue chooses:
 * - InClusterQueue: same team, its quota's PreemptTeamTasks is LowerPriority, victim of strictly lower rank;
 * - InCohortReclamation: the workload fits within its team's guarantee; victims of other teams that are
 *   borrowing, any priority;
 * - InCohortFairSharing: fair share on; a victim's team (borrowing) keeps a larger dominant share after losing
 *   the victim than the preemptor's team has with the workload (strictly: no ping-pong between equals). The
 *   preemptor's share is weighed once, before any victim of its own team is removed.
 * Candidates in order: teams above their guarantee first, then lowest rank, then newest admitted. A victim is
 * never taken from a team that is not borrowing at that point (no team is pushed below its guarantee by
 * another). Greedy until the workload fits, then victims not needed are given back (Kueue's minimal set).
 */

export type Victim = { victim: AdmittedWorkload; reason: PreemptionReason };
/** flavor → its admitted workloads in candidate order: lowest rank first, newest first among equals. */
export type PreemptionIndex = { teams: number; byFlavor: ReadonlyMap<string, readonly Ranked[]> };

export type PreemptionScope = {
  ledger: Ledger;
  index: PreemptionIndex;
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

export function preemptionIndex(
  admitted: readonly AdmittedWorkload[],
  settings: SchedulerSettings,
): PreemptionIndex {
  const byFlavor = new Map<string, Ranked[]>();
  const teams = new Map<string, number>();
  for (const workload of admitted) {
    const list = byFlavor.get(workload.flavor) ?? [];
    const team = teams.get(workload.team) ?? teams.size;
    teams.set(workload.team, team);
    list.push({ workload, rank: rankOf(workload, settings), team });
    byFlavor.set(workload.flavor, list);
  }
  for (const list of byFlavor.values())
    list.sort((a, b) => a.rank - b.rank || b.workload.admittedAt - a.workload.admittedAt);
  return { teams: teams.size, byFlavor };
}

const covers = (request: Quantities, smaller: Quantities) => {
  for (const r in smaller) if ((request[r] ?? 0) < (smaller[r] ?? 0)) return false;
  return true;
};

function borrowingNow(search: Search, team: string): boolean {
  let value = search.borrowing.get(team);
  if (value === undefined) {
    value = search.ledger.isBorrowing(team, search.target.flavor, search.resources);
    search.borrowing.set(team, value);
  }
  return value;
}

/** Why this candidate may be preempted now, or null when it may not. */
function reasonFor(search: Search, victim: AdmittedWorkload): PreemptionReason | null {
  const { ledger, target } = search;
  if (victim.team === target.workload.team) return "InClusterQueue";
  if (!borrowingNow(search, victim.team)) return null;
  if (search.reclaim) return "InCohortReclamation";
  const refused = search.refused.get(victim.team);
  if (refused?.some((request) => covers(victim.request, request))) return null;
  const after = dominantShare(ledger, victim.team, {
    flavor: target.flavor,
    request: victim.request,
    sign: -1,
  });
  if (search.preemptorShare < after) return "InCohortFairSharing";
  search.refused.set(victim.team, [...(refused ?? []), victim.request].slice(-8));
  return null;
}

function usable(scope: PreemptionScope, search: Search, candidate: Ranked): boolean {
  const { workload } = candidate;
  if (scope.taken.has(workload.key) || workload.key === search.target.workload.key) return false;
  if (workload.team === search.target.workload.team && candidate.rank >= search.target.rank) return false;
  for (const r of search.resources) if ((workload.request[r] ?? 0) > 0) return true;
  return false;
}

const EXCLUDED = 0;
const BORROWING = 1;
const OWN = 2;
type TeamStatus = typeof EXCLUDED | typeof BORROWING | typeof OWN;

/** Whether a team's workloads may be taken, and whether it is borrowing (its candidates go first). */
function teamStatus(search: Search, team: string): TeamStatus {
  const { ledger, target } = search;
  if (team !== target.workload.team) return crossTeamAllowed(search, team) ? BORROWING : EXCLUDED;
  if (ledger.limits.quotas.get(team)?.preemptTeamTasks !== "LowerPriority") return EXCLUDED;
  return borrowingNow(search, team) ? BORROWING : OWN;
}

/**
 * Candidates from teams above their guarantee first, then the preemptor's own team when it is not; each
 * group in the index's order (lowest rank, then newest). Of its own team only workloads of lower rank.
 */
function candidatesOf(search: Search, scope: PreemptionScope): Ranked[] {
  const ordered = scope.index.byFlavor.get(search.target.flavor) ?? [];
  const statuses = new Int8Array(scope.index.teams).fill(-1);
  const first: Ranked[] = [];
  const rest: Ranked[] = [];
  const statusOf = (candidate: Ranked): number => {
    const known = statuses[candidate.team] ?? -1;
    if (known !== -1) return known;
    const status = teamStatus(search, candidate.workload.team);
    statuses[candidate.team] = status;
    return status;
  };
  for (const candidate of ordered) {
    const status = statusOf(candidate);
    if (status === EXCLUDED || !usable(scope, search, candidate)) continue;
    (status === BORROWING ? first : rest).push(candidate);
  }
  return rest.length === 0 ? first : [...first, ...rest];
}

function crossTeamAllowed(search: Search, team: string): boolean {
  const { ledger } = search;
  if (!borrowingNow(search, team)) return false;
  if (search.reclaim) return true;
  return ledger.limits.settings.fairShare && ledger.share(team) > search.preemptorShare;
}

function greedy(search: Search, candidates: readonly Ranked[]): Victim[] | null {
  const { ledger, target } = search;
  const bound = new Bound(search, candidates);
  const chosen: Victim[] = [];
  let fits = false;
  for (const { workload: victim } of candidates) {
    if (!bound.reachable()) break;
    const reason = reasonFor(search, victim);
    if (reason === null) {
      bound.skip(victim);
      continue;
    }
    ledger.apply(victim.team, target.flavor, victim.request, -1);
    search.borrowing.delete(victim.team);
    search.refused.delete(victim.team);
    chosen.push({ victim, reason });
    fits = ledger.fits(target.workload.team, target.flavor, target.workload.request);
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
    if (ledger.fits(target.workload.team, target.flavor, target.workload.request)) kept.splice(index, 1);
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
  const resources = Object.keys(target.workload.request).filter((r) => (target.workload.request[r] ?? 0) > 0);
  const reclaim = withinGuarantee(ledger, target, resources);
  const fairSharing = !reclaim && ledger.limits.settings.fairShare;
  const preemptorShare = fairSharing
    ? dominantShare(ledger, target.workload.team, {
        flavor: target.flavor,
        request: target.workload.request,
        sign: 1,
      })
    : 0;
  const search: Search = {
    ledger,
    target,
    resources,
    reclaim,
    preemptorShare,
    borrowing: new Map(),
    refused: new Map(),
  };
  const candidates = candidatesOf(search, scope);
  if (candidates.length === 0) return null;
  const chosen = greedy(search, candidates);
  return chosen === null ? null : minimize(search, chosen);
}
