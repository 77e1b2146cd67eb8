import {
  type Blocked,
  type CycleState,
  newCycle,
  PREEMPTION_SEARCHES_PER_TEAM,
  recordsReasons,
  type Verdict,
} from "./cycle-state";
import type { Fit } from "./ledger";
import { flavorOrder } from "./limits";
import { type Cursor, HeadQueue, type Queued, teamQueues } from "./order";
import { findVictims, preemptionMessage, type Victim } from "./preemption";
import { couldMakeRoom } from "./preemption-bound";
import { checkPriorityClass } from "./priority";
import { tidy } from "./quantity";
import { QueueTails } from "./queue-tails";
import { StrictHeads } from "./strict-fifo";
import type { AdmissionDecision, GovernanceSnapshot, Quantities, Workload } from "./types";

/**
 * One admission cycle, Kueue-like: the pending workloads in admission order (order.ts); each is admitted to
 * the first flavor it fits, else to the first where preemption makes room (its victims are returned and the
 * caller stops them, then admits it on a later cycle), else it stays pending with Kueue's reason. Capacity
 * that victims give back is held for this cycle (they are still stopping), so no one else takes it.
 */

export const clusterQueueOf = (team: string) => `hyperpod-ns-${team}-clusterqueue`;
export const localQueueOf = (team: string) => `hyperpod-ns-${team}-localqueue`;
/** Kueue's words, naming the job's (first) pod set where the workload says it. */
const podSet = (workload: Workload) =>
  `couldn't assign flavors to pod set${workload.podSets?.[0] ? ` ${workload.podSets[0]}` : ""}`;

type FlavorFit = { flavor: string; fit: Fit };

function gate(cycle: CycleState, workload: Workload): Blocked | null {
  const { config } = cycle.snapshot;
  const quota = cycle.ledger.limits.quotas.get(workload.team);
  if (quota === undefined)
    return {
      reason: "NoQuota",
      message: `team ${workload.team} has no compute quota (no ClusterQueue ${clusterQueueOf(workload.team)})`,
    };
  if (!quota.active)
    return { reason: "QuotaInactive", message: `ClusterQueue ${clusterQueueOf(workload.team)} is inactive` };
  if (workload.priorityClass === null) return null;
  let priority = cycle.classChecks.get(workload.priorityClass);
  if (priority === undefined) {
    priority = checkPriorityClass(workload.priorityClass, config.scheduler);
    cycle.classChecks.set(workload.priorityClass, priority);
  }
  return priority.ok ? null : { reason: "UnknownPriorityClass", message: priority.message };
}

function noFlavor(workload: Workload): Blocked {
  const wanted = workload.flavors ?? [];
  const message =
    wanted.length === 0
      ? `${podSet(workload)}: its replica specs select different instance types`
      : `${podSet(workload)}: flavor ${wanted.join(", ")} has no quota and no capacity`;
  return { reason: "NoQuota", message };
}

function aheadNote(team: string, ahead: readonly string[]): string {
  if (ahead.length === 0) return "";
  const shown = `${ahead[0]}${ahead.length > 1 ? `, ${ahead[1]}` : ""}${ahead.length > 2 ? `, ${ahead[2]}` : ""}`;
  return `; ${ahead.length} ahead of it in ${localQueueOf(team)}: ${shown}${ahead.length > 3 ? ", …" : ""}`;
}

function pend(cycle: CycleState, queued: Queued, blocked: Blocked): void {
  if (!recordsReasons(cycle, queued.workload.team)) return;
  const { team } = queued.workload;
  const ahead = cycle.waiting.get(team) ?? [];
  cycle.pending.push({
    workload: queued.workload,
    position: ahead.length + 1,
    reason: blocked.reason,
    message: `${blocked.message}${aheadNote(team, ahead)}`,
  });
  ahead.push(queued.workload.key);
  cycle.waiting.set(team, ahead);
}

function messagesOf(workload: Workload, fits: readonly FlavorFit[]): string {
  let out = "";
  for (const { fit } of fits)
    for (const message of fit.messages) out = out === "" ? message : `${out}, ${message}`;
  return `${podSet(workload)}: ${out}`;
}

function pendingFor(cycle: CycleState, workload: Workload, fits: readonly FlavorFit[]): Blocked {
  const possible = fits.filter(({ fit }) => fit.never === null);
  if (possible.length === 0) {
    const exceeds = fits.some(({ fit }) => fit.never === "ExceedsCapacity");
    return { reason: exceeds ? "ExceedsCapacity" : "NoQuota", message: messagesOf(workload, fits) };
  }
  const message = messagesOf(workload, possible);
  const fitAtStart = possible.some(({ flavor }) =>
    cycle.initial.fits(workload.team, flavor, workload.request),
  );
  if (!fitAtStart) return { reason: "InsufficientQuota", message };
  return {
    reason: "WaitingBehind",
    message: `${message} (it fit the quota free when this cycle began; workloads ahead of it in admission order took it)`,
  };
}

function borrowingOf(cycle: CycleState, workload: Workload, flavor: string): Quantities {
  const { ledger } = cycle;
  const out: Record<string, number> = {};
  for (const [resource, amount] of Object.entries(workload.request)) {
    if (!ledger.isGoverned(flavor, resource)) continue;
    const used = ledger.used(workload.team, flavor, resource);
    const nominal = ledger.cell(workload.team, flavor, resource).nominal;
    const borrowed = Math.max(0, used + amount - nominal) - Math.max(0, used - nominal);
    if (borrowed > 0) out[resource] = tidy(borrowed);
  }
  return out;
}

/** What the victims give back beyond what the workload takes: held until they have stopped. */
function heldBack(workload: Workload, victims: readonly Victim[]): Quantities {
  const held: Record<string, number> = {};
  for (const { victim } of victims)
    for (const [r, amount] of Object.entries(victim.request)) held[r] = (held[r] ?? 0) + amount;
  for (const [r, amount] of Object.entries(workload.request)) held[r] = (held[r] ?? 0) - amount;
  return held;
}

function admitNow(cycle: CycleState, workload: Workload, flavor: string, victims: readonly Victim[]): void {
  const { ledger } = cycle;
  for (const { victim, reason } of victims) {
    ledger.apply(victim.team, flavor, victim.request, -1);
    cycle.taken.add(victim.key);
    cycle.preempt.push({
      victim,
      by: workload.key,
      reason,
      message: preemptionMessage(reason, workload.key),
    });
  }
  const borrowing = borrowingOf(cycle, workload, flavor);
  ledger.apply(workload.team, flavor, workload.request, 1);
  if (victims.length > 0) {
    const held = heldBack(workload, victims);
    ledger.hold(flavor, held);
    cycle.holds.push({ flavor, request: held });
  }
  cycle.admit.push({
    workload,
    flavor,
    borrowing,
    preempts: victims.map(({ victim }) => victim.key),
    message:
      victims.length > 0
        ? `Pending the preemption of ${victims.length} workload(s)`
        : `Quota reserved in ClusterQueue ${clusterQueueOf(workload.team)}`,
  });
}

function dominates(request: Quantities, smaller: Quantities): boolean {
  for (const r in smaller) if ((request[r] ?? 0) < (smaller[r] ?? 0)) return false;
  return true;
}

/**
 * Victims for a workload that does not fit, if the rules allow a set: a failed search is remembered (an
 * alike workload of no higher rank fails too); a search that passes the cheap bound uses the team's budget.
 */
function tryPreempt(cycle: CycleState, queued: Queued, flavor: string): Victim[] | null {
  const { workload, rank } = queued;
  const left = cycle.searchesLeft.get(workload.team) ?? PREEMPTION_SEARCHES_PER_TEAM;
  if (left <= 0) return null;
  const memoKey = `${workload.team}\u0000${flavor}`;
  const failed = cycle.failedSearches.get(memoKey) ?? [];
  for (const f of failed) if (f.rank >= rank && dominates(workload.request, f.request)) return null;
  const target = { workload, rank, flavor };
  let victims: Victim[] | null = null;
  if (couldMakeRoom(cycle.ledger, target)) {
    cycle.searchesLeft.set(workload.team, left - 1);
    victims = findVictims({ ledger: cycle.ledger, index: cycle.index, taken: cycle.taken }, target);
  }
  if (victims === null)
    cycle.failedSearches.set(memoKey, [{ rank, request: workload.request }, ...failed.slice(0, 15)]);
  return victims;
}

/** The flavors to try, in order; cached per team for workloads that allow any. */
function flavorsOf(cycle: CycleState, workload: Workload): readonly string[] {
  if (workload.flavors !== null) return flavorOrder(cycle.ledger.limits, workload.team, workload.flavors);
  let flavors = cycle.flavors.get(workload.team);
  if (flavors === undefined) {
    flavors = flavorOrder(cycle.ledger.limits, workload.team, null);
    cycle.flavors.set(workload.team, flavors);
  }
  return flavors;
}

/**
 * How a workload's turn ended: admitted (possibly pending its victims' stop), or pending; a pending one says
 * what its verdict holds for: its whole team (no quota, inactive), workloads behind it that ask no less and
 * rank no higher ("shape"), or itself alone (its priority class is unknown).
 */
type Turn = "admitted" | "team" | "shape" | "alone";

/** The usage as it stands at the traced workload's turn ("why pending"). */
function traceTurn(cycle: CycleState, workload: Workload): void {
  if (cycle.trace?.key === workload.key)
    cycle.trace = {
      ...cycle.trace,
      ledger: cycle.ledger.clone(),
      admitsBefore: cycle.admit.length,
      holdsBefore: cycle.holds.length,
      taken: new Set(cycle.taken),
    };
}

function decide(cycle: CycleState, queued: Queued): Turn {
  const { workload } = queued;
  traceTurn(cycle, workload);
  const blocked = gate(cycle, workload);
  if (blocked !== null) {
    pend(cycle, queued, blocked);
    return blocked.reason === "UnknownPriorityClass" ? "alone" : "team";
  }
  const flavors = flavorsOf(cycle, workload);
  if (flavors.length === 0) {
    pend(cycle, queued, noFlavor(workload));
    return "shape";
  }
  const verdict = verdictFor(cycle, workload, flavors);
  if (verdict === null) return "admitted";
  for (const flavor of verdict.possible) {
    const victims = tryPreempt(cycle, queued, flavor);
    if (victims !== null) {
      admitNow(cycle, workload, flavor, victims);
      return "admitted";
    }
  }
  pend(cycle, queued, verdict.blocked);
  return "shape";
}

function sameShape(a: Workload, b: Workload): boolean {
  if (a.podSets?.[0] !== b.podSets?.[0]) return false; // its message names the pod set
  if (
    a.flavors !== b.flavors &&
    (a.flavors === null || b.flavors === null || a.flavors.join() !== b.flavors.join())
  )
    return false;
  let keys = 0;
  for (const resource in a.request) {
    if (a.request[resource] !== b.request[resource]) return false;
    keys++;
  }
  for (const _ in b.request) keys--;
  return keys === 0;
}

/** A verdict for a workload of the same team and shape, still valid (no usage changed since). */
function cachedVerdict(cycle: CycleState, workload: Workload): Verdict | null {
  const list = cycle.verdicts.get(workload.team);
  if (list === undefined) return null;
  for (const entry of list)
    if (entry.version === cycle.ledger.version && sameShape(entry.workload, workload)) return entry;
  return null;
}

function remember(cycle: CycleState, verdict: Verdict): void {
  const list = (cycle.verdicts.get(verdict.workload.team) ?? []).filter((v) => v.version === verdict.version);
  list.push(verdict);
  cycle.verdicts.set(verdict.workload.team, list.slice(-16));
}

/** Admits the workload if it fits a flavor now (null), else says why not (shared by alike workloads). */
function verdictFor(cycle: CycleState, workload: Workload, flavors: readonly string[]): Verdict | null {
  const cached = cachedVerdict(cycle, workload);
  if (cached !== null) return cached;
  const direct = flavors.find((flavor) => cycle.ledger.fits(workload.team, flavor, workload.request));
  if (direct !== undefined) {
    admitNow(cycle, workload, direct, []);
    return null;
  }
  const fits = flavors.map((flavor) => ({
    flavor,
    fit: cycle.ledger.check(workload.team, flavor, workload.request),
  }));
  const verdict: Verdict = {
    workload,
    version: cycle.ledger.version,
    possible: fits.filter(({ fit }) => fit.never === null).map(({ flavor }) => flavor),
    blocked: pendingFor(cycle, workload, fits),
  };
  remember(cycle, verdict);
  return verdict;
}

export type CycleOptions = {
  /** Also the usage as it stood when this workload's turn came ("why pending"). */
  traceKey?: string | null;
  /**
   * false: admissions and preemptions only, no pending reasons (`pending` comes back empty). A team whose
   * workload failed is set aside while nothing changes if what waits behind it cannot do better
   * (queue-tails.ts), so a cycle over thousands of queued workloads costs about one turn per team and
   * admission. The admissions and preemptions are those of the full cycle.
   */
  reasons?: boolean;
  /**
   * With `traceKey`: only what "why pending" reads, the same as the full cycle's up to the traced workload's
   * turn: reasons for its team alone (the other teams' queues set aside as with `reasons: false`), and the
   * cycle ends after its turn (`pending` holds its team's workloads up to it).
   */
  traceOnly?: boolean;
};

/** Whether the rest of the cursor's queue waits as the workload that just failed does. */
function parks(turn: Turn, cursor: Cursor, queued: Queued, tails: Map<string, QueueTails>): boolean {
  if (turn === "team") return true;
  if (turn !== "shape") return false;
  let tail = tails.get(cursor.team);
  if (tail === undefined) {
    tail = new QueueTails(cursor.queue);
    tails.set(cursor.team, tail);
  }
  return tail.noBetterThan(cursor.index, { ...queued.workload, rank: queued.rank });
}

/** The turn loop's heads, and the teams set aside (reasons off) until usage changes. */
type Turns = {
  cycle: CycleState;
  heads: HeadQueue;
  parked: Cursor[];
  tails: Map<string, QueueTails>;
  version: number;
};

/** Hands the cursor back after its workload's turn, and the parked ones once usage has changed. */
function afterTurn(turns: Turns, cursor: Cursor, turn: { queued: Queued; ended: Turn; preempted: boolean }) {
  const { cycle } = turns;
  if (turn.preempted) {
    turns.heads.rekey(); // every cursor, the parked ones included
    turns.parked.length = 0;
  } else if (!recordsReasons(cycle, cursor.team) && parks(turn.ended, cursor, turn.queued, turns.tails))
    turns.parked.push(cursor);
  else turns.heads.advanced(cursor);
  if (cycle.ledger.version === turns.version) return;
  turns.version = cycle.ledger.version;
  for (const waiting of turns.parked.splice(0)) turns.heads.advanced(waiting);
}

/** The next turn's cursor; none once the traced workload has had its turn in a `traceOnly` cycle. */
function nextHead(turns: Turns) {
  const { trace, traceOnly } = turns.cycle;
  return traceOnly && trace?.ledger ? null : turns.heads.next();
}

/** Runs one cycle (options: CycleOptions). */
export function runCycle(snapshot: GovernanceSnapshot, options: CycleOptions = {}) {
  const cycle = newCycle(snapshot, options.traceKey ?? null, options.reasons ?? true, options.traceOnly);
  const cursors = [...teamQueues(snapshot.pending, snapshot.config.scheduler)].map(([team, queue]) => ({
    team,
    queue,
    index: 0,
    share: 0,
    nominal: false,
  }));
  const turns: Turns = {
    cycle,
    heads: new HeadQueue(cursors, cycle.ledger),
    parked: [],
    tails: new Map(),
    version: cycle.ledger.version,
  };
  const strict = new StrictHeads(cycle.ledger.limits);
  for (let cursor = nextHead(turns); cursor; cursor = nextHead(turns)) {
    const queued = cursor.queue[cursor.index];
    cursor.index++;
    if (queued === undefined) continue;
    const preemptedBefore = cycle.preempt.length;
    const behind = strict.blocking(queued.workload);
    if (behind !== null) {
      traceTurn(cycle, queued.workload);
      pend(cycle, queued, behind);
    }
    const ended = behind !== null ? "team" : decide(cycle, queued);
    strict.ended(queued.workload, ended === "shape" || ended === "team");
    afterTurn(turns, cursor, { queued, ended, preempted: cycle.preempt.length > preemptedBefore });
  }
  const decision: AdmissionDecision = { admit: cycle.admit, preempt: cycle.preempt, pending: cycle.pending };
  return { decision, cycle };
}

/** One admission cycle; `{ reasons: false }` decides admissions and preemptions only (CycleOptions). */
export function decideAdmissions(
  snapshot: GovernanceSnapshot,
  options: Omit<CycleOptions, "traceKey" | "traceOnly"> = {},
): AdmissionDecision {
  return runCycle(snapshot, options).decision;
}
