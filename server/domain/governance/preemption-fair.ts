import { dominantShare } from "./fair-share";
import type { Ranked, Search, Victim } from "./preemption-search";
import type { PreemptionReason, Quantities } from "./types";

/**
 * Fair-sharing preemption as Kueue's scheduler runs it with the preemption strategies of the Configuration
 * shipped in deploy/kueue/ (`[LessThanOrEqualToFinalShare, LessThanInitialShare]`), for a workload that would
 * borrow (one within its guarantee reclaims instead, preemption.ts). Shares are Kueue's dominant resource
 * shares (fair-share.ts), the preemptor's counted with the workload.
 * 1. Over and over, the team with the highest share among those with candidates left is the target (a team
 *    that no longer borrows drops out; the preemptor's own team, its share with the workload, stays while it
 *    has lower-ranked workloads). Of the preemptor's own team, its next candidate is taken (InClusterQueue).
 *    Of another team, its candidates in order (lowest rank, newest first) until one passes
 *    LessThanOrEqualToFinalShare: the preemptor's share ≤ the target's share after losing it; that one is taken
 *    (InCohortFairSharing) and the target is chosen afresh. Those that fail wait for step 2.
 * 2. If the workload still does not fit: over the candidates step 1 left, by the same order of teams, once per
 *    team, LessThanInitialShare: the preemptor's share < the target's share before losing any; then the
 *    team's first such candidate is taken.
 * Each step stops as soon as the workload fits. Then, newest choice excepted, victims are given back in
 * reverse order while it still fits (Kueue's fillBackWorkloads).
 */

/** A team's candidates, in order, and how many of them are used up. */
type Queue = { items: Ranked[]; next: number };
type Queues = Map<string, Queue>;

function queuesOf(candidates: readonly Ranked[]): Queues {
  const queues: Queues = new Map();
  for (const candidate of candidates) {
    const team = candidate.workload.team;
    const queue = queues.get(team) ?? { items: [], next: 0 };
    queue.items.push(candidate);
    queues.set(team, queue);
  }
  return queues;
}

function preemptorShare(search: Search): number {
  const { ledger, target } = search;
  return dominantShare(ledger, target.workload.team, {
    flavor: target.flavor,
    request: target.workload.request,
    sign: 1,
  });
}

/** A team's share for choosing the target (the preemptor's with the workload); null: it drops out. */
function targetShare(search: Search, team: string, queue: Queue): number | null {
  if (queue.next >= queue.items.length) return null;
  if (team === search.target.workload.team) return preemptorShare(search);
  const share = search.ledger.share(team);
  return share > 0 ? share : null;
}

/**
 * The next target team: the highest share among those with candidates left. Another team that no longer
 * borrows (share 0) drops out. Among equal shares another team goes before the preemptor's own.
 */
function nextTeam(search: Search, queues: Queues): string | null {
  const own = search.target.workload.team;
  let best: string | null = null;
  let bestShare = Number.NEGATIVE_INFINITY;
  for (const [team, queue] of queues) {
    const share = targetShare(search, team, queue);
    if (share === null) queues.delete(team);
    else if (share > bestShare || (share === bestShare && best === own)) {
      best = team;
      bestShare = share;
    }
  }
  return best;
}

/** A team within its guarantee reclaims (InCohortReclamation); one that would borrow shares fairly. */
const cohortReason = (search: Search): PreemptionReason =>
  search.reclaim ? "InCohortReclamation" : "InCohortFairSharing";

/** Takes the victim out of the ledger; whether the workload fits now. */
function take(search: Search, chosen: Victim[], victim: Ranked, reason: PreemptionReason): boolean {
  const { ledger, target } = search;
  ledger.apply(victim.workload.team, target.flavor, victim.workload.request, -1);
  chosen.push({ victim: victim.workload, reason });
  return ledger.fits(target.workload.team, target.flavor, target.workload.request);
}

type Picks = { chosen: Victim[]; retry: Ranked[] };
/** How a look at one target team ended. */
type Look = "fits" | "taken" | "none";

/**
 * The target team's share after losing a request, or −Infinity when it surely cannot pass: the team is
 * already below the preemptor (`hopeless`: losing a workload never raises a share), or the request is at least
 * as big as one refused while nothing was taken (its share after would be no higher).
 */
function shareAfter(
  search: Search,
  at: { team: string; request: Quantities; hopeless: boolean },
  refused: Quantities[],
) {
  if (at.hopeless || refused.some((smaller) => covers(at.request, smaller))) return Number.NEGATIVE_INFINITY;
  return dominantShare(search.ledger, at.team, {
    flavor: search.target.flavor,
    request: at.request,
    sign: -1,
  });
}

/**
 * Another team's candidates in order, until one passes LessThanOrEqualToFinalShare (taken) or none does
 * (all left for step 2).
 */
function lookAt(search: Search, team: string, queue: Queue, picks: Picks): Look {
  const preemptor = preemptorShare(search);
  const hopeless = preemptor > search.ledger.share(team);
  const refused: Quantities[] = [];
  for (let candidate = queue.items[queue.next]; candidate; candidate = queue.items[queue.next]) {
    queue.next++;
    const { request } = candidate.workload;
    if (preemptor <= shareAfter(search, { team, request, hopeless }, refused))
      return take(search, picks.chosen, candidate, cohortReason(search)) ? "fits" : "taken";
    picks.retry.push(candidate);
    if (refused.length < 8) refused.push(request);
  }
  return "none";
}

function covers(request: Quantities, smaller: Quantities): boolean {
  for (const r in smaller) if ((request[r] ?? 0) < (smaller[r] ?? 0)) return false;
  return true;
}

/** The preemptor's own team's next candidate, lower ranked: taken without a share test (InClusterQueue). */
function takeOwn(search: Search, queue: Queue, picks: Picks): Look {
  const candidate = queue.items[queue.next++];
  if (candidate === undefined) return "none";
  return take(search, picks.chosen, candidate, "InClusterQueue") ? "fits" : "taken";
}

/** Step 1 (LessThanOrEqualToFinalShare); returns whether the workload fits. `retry` gets what it left. */
function lessThanOrEqualToFinalShare(search: Search, queues: Queues, picks: Picks): boolean {
  // After each victim the shares have changed: the target is chosen afresh.
  for (let team = nextTeam(search, queues); team !== null; team = nextTeam(search, queues)) {
    const queue = queues.get(team);
    if (queue === undefined) break;
    const own = team === search.target.workload.team;
    const look = own ? takeOwn(search, queue, picks) : lookAt(search, team, queue, picks);
    if (look === "fits") return true;
  }
  return false;
}

/** Step 2 (LessThanInitialShare), over what step 1 left: at most one victim per team. */
function lessThanInitialShare(search: Search, retry: readonly Ranked[], chosen: Victim[]): boolean {
  const queues = queuesOf(retry);
  for (let team = nextTeam(search, queues); team !== null; team = nextTeam(search, queues)) {
    const queue = queues.get(team);
    const candidate = queue?.items[queue.next];
    if (candidate && preemptorShare(search) < search.ledger.share(team)) {
      if (take(search, chosen, candidate, "InCohortFairSharing")) return true;
    }
    queues.delete(team);
  }
  return false;
}

/** Gives back victims not needed, as Kueue's fillBackWorkloads; leaves the ledger as it found it. */
function fillBack(search: Search, chosen: Victim[]): Victim[] {
  const { ledger, target } = search;
  const kept = [...chosen];
  for (let index = kept.length - 2; index >= 0; index--) {
    const entry = kept[index];
    if (entry === undefined) continue;
    ledger.apply(entry.victim.team, target.flavor, entry.victim.request, 1);
    if (ledger.fits(target.workload.team, target.flavor, target.workload.request)) {
      kept[index] = kept[kept.length - 1] as Victim;
      kept.pop();
    } else ledger.apply(entry.victim.team, target.flavor, entry.victim.request, -1);
  }
  for (const { victim } of kept) ledger.apply(victim.team, target.flavor, victim.request, 1);
  return kept;
}

/**
 * The victims fair sharing allows for the search's workload among `candidates` (the preemptor's own
 * lower-ranked workloads and the workloads of teams borrowing, each team's in order), or null when no set
 * lets it fit. The ledger is left unchanged.
 */
export function fairVictims(search: Search, candidates: readonly Ranked[]): Victim[] | null {
  const chosen: Victim[] = [];
  const retry: Ranked[] = [];
  const fits =
    lessThanOrEqualToFinalShare(search, queuesOf(candidates), { chosen, retry }) ||
    lessThanInitialShare(search, retry, chosen);
  if (fits) return fillBack(search, chosen);
  for (const { victim } of chosen) search.ledger.apply(victim.team, search.target.flavor, victim.request, 1);
  return null;
}
