import { dominantShare } from "./fair-share";
import { borrowsWithinCohort, kueueSettingsOf, withinClusterQueueOf } from "./kueue-settings";
import type { Ledger } from "./ledger";
import { Bound, withinGuarantee } from "./preemption-bound";
import { fairVictims } from "./preemption-fair";
import type { PreemptionTarget, Ranked, Search } from "./preemption-search";
import { rankOf } from "./priority";
import type { AdmittedWorkload, PreemptionReason, Quantities, SchedulerSettings } from "./types";

/**
 * Preemption for a workload that does not fit a flavor, as Kueue chooses:
 * - InClusterQueue: same team, its quota's PreemptTeamTasks is LowerPriority, victim of strictly lower rank;
 * - InCohortReclamation: the workload fits within its team's guarantee; victims of other teams that are
 *   borrowing, any priority (the team's `reclaimWithinCohort`: Any; LowerPriority or Never narrow it);
 * - InCohortReclaimWhileBorrowing: the team's `borrowWithinCohort` is LowerPriority and the workload would
 *   borrow; victims of lower rank (at most `maxPriorityThreshold`) of other teams that are borrowing;
 * - InCohortFairSharing: fair share on and the workload would borrow: Kueue's fair-sharing preemption with
 *   the strategies deploy/kueue/ ships (preemption-fair.ts). With fair share on, a team reclaiming its
 *   guarantee (reclaim Any) takes its victims in that order too, as Kueue does: the highest share first.
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

/**
 * Across teams, the preemptor's ClusterQueue knobs (kueue-settings.ts): `reclaimWithinCohort` when it
 * reclaims its guarantee (Any; LowerPriority: victims of lower rank only; Never: none), and
 * `borrowWithinCohort: LowerPriority` when it would borrow (victims of lower rank, at most the threshold;
 * classical preemption only, as in Kueue: not with fair share on).
 */
function cohortReason(search: Search, rank: number): PreemptionReason | null {
  const knobs = kueueSettingsOf(search.ledger.limits.quotas.get(search.target.workload.team));
  if (search.reclaim) {
    if (knobs.reclaimWithinCohort === "Any") return "InCohortReclamation";
    if (knobs.reclaimWithinCohort === "LowerPriority" && rank < search.target.rank)
      return "InCohortReclamation";
    return null;
  }
  const borrow = knobs.borrowWithinCohort;
  if (!borrowsWithinCohort(search.ledger, knobs) || rank >= search.target.rank) return null;
  if (borrow.maxPriorityThreshold !== null && rank > borrow.maxPriorityThreshold) return null;
  return "InCohortReclaimWhileBorrowing";
}

/** Why this candidate may be preempted now, or null when it may not. */
function reasonFor(search: Search, { workload: victim, rank }: Ranked): PreemptionReason | null {
  const { ledger, target } = search;
  if (victim.team === target.workload.team) return "InClusterQueue";
  if (!borrowingNow(search, victim.team)) return null;
  const cohort = cohortReason(search, rank);
  if (cohort !== null || search.reclaim || !ledger.limits.settings.fairShare) return cohort;
  const refused = search.refused.get(victim.team);
  if (refused?.some((request) => covers(victim.request, request))) return null;
  const after = dominantShare(ledger, victim.team, {
    flavor: target.flavor,
    request: victim.request,
    sign: -1,
  });
  if (search.preemptorShare <= after) return "InCohortFairSharing"; // LessThanOrEqualToFinalShare
  search.refused.set(victim.team, [...(refused ?? []), victim.request].slice(-8));
  return null;
}

/**
 * Within the team: a lower rank; with `LowerOrNewerEqualPriority` also an equal rank that arrived after the
 * preemptor (Kueue's rule for that policy).
 */
function lowerInQueue(search: Search, candidate: Ranked): boolean {
  const { target } = search;
  if (candidate.rank < target.rank) return true;
  if (candidate.rank > target.rank) return false;
  const policy = withinClusterQueueOf(search.ledger.limits.quotas.get(target.workload.team));
  return policy === "LowerOrNewerEqualPriority" && candidate.workload.createdAt > target.workload.createdAt;
}

function usable(scope: PreemptionScope, search: Search, candidate: Ranked): boolean {
  const { workload } = candidate;
  if (scope.taken.has(workload.key) || workload.key === search.target.workload.key) return false;
  if (workload.team === search.target.workload.team && !lowerInQueue(search, candidate)) return false;
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
  if (withinClusterQueueOf(ledger.limits.quotas.get(team)) === "Never") return EXCLUDED;
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
  const knobs = kueueSettingsOf(ledger.limits.quotas.get(search.target.workload.team));
  if (search.reclaim) return knobs.reclaimWithinCohort !== "Never";
  if (borrowsWithinCohort(ledger, knobs)) return true;
  // Fair sharing may take from a team whose share is no lower than the preemptor's with the workload.
  return ledger.limits.settings.fairShare && ledger.share(team) >= search.preemptorShare;
}

function greedy(search: Search, candidates: readonly Ranked[]): Victim[] | null {
  const { ledger, target } = search;
  const bound = new Bound(search, candidates);
  const chosen: Victim[] = [];
  let fits = false;
  for (const candidate of candidates) {
    const victim = candidate.workload;
    if (!bound.reachable()) break;
    const reason = reasonFor(search, candidate);
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
  const knobs = kueueSettingsOf(ledger.limits.quotas.get(target.workload.team));
  // With fair share on Kueue preempts across teams only by its fair-sharing strategies, a team reclaiming
  // its guarantee too (its share is 0, so every borrower's workload passes, the highest share's first).
  const kueueFair =
    ledger.limits.settings.fairShare &&
    knobs.borrowWithinCohort.policy !== "LowerPriority" &&
    (!reclaim || knobs.reclaimWithinCohort === "Any");
  if (kueueFair) return fairVictims(search, candidates);
  const chosen = greedy(search, candidates);
  return chosen === null ? null : minimize(search, chosen);
}
