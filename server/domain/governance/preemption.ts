import { dominantShare } from "./fair-share";
import type { Ledger } from "./ledger";
import { rankOf } from "./priority";
import type { AdmittedWorkload, PreemptionReason, Quantities, SchedulerSettings, Workload } from "./types";

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

/** An admitted workload with its rank and its team's number in the index. */
type Ranked = { workload: AdmittedWorkload; rank: number; team: number };
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

type Search = {
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

/**
 * How much room taking every remaining candidate could still make, per resource: the team's own limit
 * (N + B) is eased only by its own workloads, the pool and the capacity by anyone's. Candidates the rules
 * skip are deducted as the search goes, so a hopeless search stops early.
 */
class Bound {
  private readonly own: Record<string, number> = {};
  private readonly all: Record<string, number> = {};

  constructor(
    private readonly search: Search,
    candidates: readonly Ranked[],
  ) {
    const { ledger, target } = search;
    for (const r of search.resources) {
      const slack = ledger.slack(target.workload.team, target.flavor, r);
      this.own[r] = slack === null ? Number.NEGATIVE_INFINITY : slack.limit;
      this.all[r] = slack === null ? Number.NEGATIVE_INFINITY : Math.min(slack.pool, slack.capacity);
    }
    for (const { workload } of candidates) this.count(workload, 1);
  }

  private count(workload: AdmittedWorkload, sign: 1 | -1): void {
    const same = workload.team === this.search.target.workload.team;
    for (const r of this.search.resources) {
      const amount = sign * (workload.request[r] ?? 0);
      this.all[r] = (this.all[r] ?? 0) + amount;
      if (same) this.own[r] = (this.own[r] ?? 0) + amount;
    }
  }

  skip(workload: AdmittedWorkload): void {
    this.count(workload, -1);
  }

  reachable(): boolean {
    const { request } = this.search.target.workload;
    for (const r of this.search.resources) {
      const need = (request[r] ?? 0) - 1e-9;
      if ((this.own[r] ?? 0) < need || (this.all[r] ?? 0) < need) return false;
    }
    return true;
  }
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
 * A cheap bound before any search, from per-team usage alone: could taking everything the rules allow
 * (the team's own workloads when it preempts by priority; other borrowing teams' when it reclaims or fair
 * sharing is on) make room at all?
 */
export function couldMakeRoom(ledger: Ledger, target: PreemptionTarget): boolean {
  const { workload, flavor } = target;
  const resources = Object.keys(workload.request).filter((r) => (workload.request[r] ?? 0) > 0);
  const own = ledger.limits.quotas.get(workload.team)?.preemptTeamTasks === "LowerPriority";
  const reclaim = withinGuarantee(ledger, target, resources);
  const others = reclaim || ledger.limits.settings.fairShare;
  // Fair sharing takes only from teams whose share is above the preemptor's with the workload.
  const above = reclaim
    ? Number.NEGATIVE_INFINITY
    : dominantShare(ledger, workload.team, { flavor, request: workload.request, sign: 1 });
  const from = others ? borrowersUse(ledger, { team: workload.team, flavor, resources, above }) : null;
  return resources.every((r) => {
    const slack = ledger.slack(workload.team, flavor, r);
    if (slack === null) return false;
    const need = (workload.request[r] ?? 0) - 1e-9;
    const ownUse = own ? ledger.used(workload.team, flavor, r) : 0;
    const othersUse = from?.[r] ?? 0;
    return slack.limit + ownUse >= need && Math.min(slack.pool, slack.capacity) + ownUse + othersUse >= need;
  });
}

/** Per resource, what the other teams that may lose workloads use (borrowing, share above `above`). */
function borrowersUse(
  ledger: Ledger,
  at: { team: string; flavor: string; resources: readonly string[]; above: number },
): Record<string, number> {
  const total: Record<string, number> = {};
  for (const other of ledger.limits.quotas.keys()) {
    if (other === at.team || !ledger.isBorrowing(other, at.flavor, at.resources)) continue;
    if (!(ledger.share(other) > at.above)) continue;
    for (const r of at.resources) total[r] = (total[r] ?? 0) + ledger.used(other, at.flavor, r);
  }
  return total;
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
