import { dominantShare } from "./fair-share";
import type { Ledger } from "./ledger";
import { rankOf } from "./priority";
import type { AdmittedWorkload, PreemptionReason, SchedulerSettings, Workload } from "./types";

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
export type PreemptionTarget = { workload: Workload; rank: number; flavor: string };

type Ranked = { workload: AdmittedWorkload; rank: number };
/** flavor → its admitted workloads in candidate order: lowest rank first, newest first among equals. */
export type PreemptionIndex = ReadonlyMap<string, readonly Ranked[]>;

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
  const index = new Map<string, Ranked[]>();
  for (const workload of admitted) {
    const list = index.get(workload.flavor) ?? [];
    list.push({ workload, rank: rankOf(workload, settings) });
    index.set(workload.flavor, list);
  }
  for (const list of index.values())
    list.sort((a, b) => a.rank - b.rank || b.workload.admittedAt - a.workload.admittedAt);
  return index;
}

type Search = {
  ledger: Ledger;
  target: PreemptionTarget;
  resources: readonly string[];
  reclaim: boolean;
  /** The preemptor's team's share with the workload admitted (fair sharing only). */
  preemptorShare: number;
};

function withinGuarantee(ledger: Ledger, target: PreemptionTarget, resources: readonly string[]): boolean {
  const { workload, flavor } = target;
  return resources.every(
    (r) =>
      !ledger.isGoverned(flavor, r) ||
      ledger.used(workload.team, flavor, r) + (workload.request[r] ?? 0) <=
        ledger.cell(workload.team, flavor, r).nominal + 1e-9,
  );
}

/** Why this candidate may be preempted now, or null when it may not. */
function reasonFor(search: Search, victim: AdmittedWorkload): PreemptionReason | null {
  const { ledger, target, resources } = search;
  if (victim.team === target.workload.team) return "InClusterQueue";
  if (!ledger.isBorrowing(victim.team, target.flavor, resources)) return null;
  if (search.reclaim) return "InCohortReclamation";
  const after = dominantShare(ledger, victim.team, {
    flavor: target.flavor,
    request: victim.request,
    sign: -1,
  });
  return search.preemptorShare < after ? "InCohortFairSharing" : null;
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
  const { ledger, target, resources } = search;
  if (team !== target.workload.team) return crossTeamAllowed(search, team) ? BORROWING : EXCLUDED;
  if (ledger.limits.quotas.get(team)?.preemptTeamTasks !== "LowerPriority") return EXCLUDED;
  return ledger.isBorrowing(team, target.flavor, resources) ? BORROWING : OWN;
}

/**
 * Candidates from teams above their guarantee first, then the preemptor's own team when it is not; each
 * group in the index's order (lowest rank, then newest). Of its own team only workloads of lower rank.
 */
function candidatesOf(search: Search, scope: PreemptionScope): Ranked[] {
  const ordered = scope.index.get(search.target.flavor) ?? [];
  const statuses = new Map<string, TeamStatus>();
  const first: Ranked[] = [];
  const rest: Ranked[] = [];
  for (const candidate of ordered) {
    const team = candidate.workload.team;
    let status = statuses.get(team);
    if (status === undefined) {
      status = teamStatus(search, team);
      statuses.set(team, status);
    }
    if (status === EXCLUDED || !usable(scope, search, candidate)) continue;
    (status === BORROWING ? first : rest).push(candidate);
  }
  return rest.length === 0 ? first : [...first, ...rest];
}

function crossTeamAllowed(search: Search, team: string): boolean {
  const { ledger, target, resources } = search;
  if (!ledger.isBorrowing(team, target.flavor, resources)) return false;
  if (search.reclaim) return true;
  return ledger.limits.settings.fairShare && ledger.share(team) > search.preemptorShare;
}

/**
 * Whether taking every candidate could free enough at all (a cheap bound before the greedy search): the
 * team's own limit (N + B) is eased only by its own workloads; the pool and the capacity by anyone's.
 */
function enoughAtMost(search: Search, candidates: readonly Ranked[]): boolean {
  const { ledger, target } = search;
  const team = target.workload.team;
  return search.resources.every((r) => {
    const need = (target.workload.request[r] ?? 0) - 1e-9;
    const slack = ledger.slack(team, target.flavor, r);
    if (slack === null) return false;
    let own = 0;
    let all = 0;
    for (const { workload } of candidates) {
      const amount = workload.request[r] ?? 0;
      all += amount;
      if (workload.team === team) own += amount;
    }
    return slack.limit + own >= need && Math.min(slack.pool, slack.capacity) + all >= need;
  });
}

function greedy(search: Search, candidates: readonly Ranked[]): Victim[] | null {
  const { ledger, target } = search;
  const chosen: Victim[] = [];
  let fits = false;
  for (const { workload: victim } of candidates) {
    const reason = reasonFor(search, victim);
    if (reason === null) continue;
    ledger.apply(victim.team, target.flavor, victim.request, -1);
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
  const search: Search = { ledger, target, resources, reclaim, preemptorShare };
  const candidates = candidatesOf(search, scope);
  if (candidates.length === 0 || !enoughAtMost(search, candidates)) return null;
  const chosen = greedy(search, candidates);
  return chosen === null ? null : minimize(search, chosen);
}
