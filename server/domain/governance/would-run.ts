import { priorityPreempts } from "./kueue-settings";
import { Ledger } from "./ledger";
import { buildLimits } from "./limits";
import { findVictims, preemptionIndex } from "./preemption";
import { formatQuantity } from "./quantity";
import type {
  AdmittedWorkload,
  GovernanceConfig,
  GovernanceSnapshot,
  Shortfall,
  TeamQuota,
  Workload,
} from "./types";

/**
 * Concrete ways a pending workload would run ("why pending"), each found with the same fit arithmetic on
 * the usage as it stood at the workload's turn: admitted jobs finishing, a larger guarantee, a priority class
 * that would preempt, borrowing allowed, idle resource sharing on. Each comes with the snapshot it describes
 * (`applied`): why-pending.ts offers it only when the admission, run again over that snapshot, admits the
 * workload (more free GPUs do not help a team at its borrow limit, nor one whose turn comes after others').
 */

export type Turn = {
  snapshot: GovernanceSnapshot;
  workload: Workload;
  flavor: string;
  /** Usage at its turn. */
  ledger: Ledger;
  /** Workloads using capacity at its turn (admitted less victims, plus this cycle's earlier admissions). */
  using: ReadonlyArray<{ team: string; flavor: string; request: Workload["request"] }>;
  shortfall: readonly Shortfall[];
  /** Capacity held for victims still stopping at its turn. */
  holds: ReadonlyArray<{ flavor: string; request: Workload["request"] }>;
  /** Victims chosen before its turn (stopping: not candidates). */
  taken: ReadonlySet<string>;
};

/** A way the workload would run, and the snapshot with it applied. */
export type Way = { text: string; applied: GovernanceSnapshot };

const fmt = (resource: string, amount: number) => `${formatQuantity(resource, amount)} ${resource}`;

function ledgerFor(turn: Turn, config: GovernanceConfig, withHolds = true): Ledger {
  const ledger = new Ledger(buildLimits(config, turn.snapshot.capacity));
  for (const use of turn.using) ledger.apply(use.team, use.flavor, use.request, 1);
  if (withHolds) for (const held of turn.holds) ledger.hold(held.flavor, held.request);
  return ledger;
}

function fitsUnder(turn: Turn, config: GovernanceConfig): boolean {
  return ledgerFor(turn, config).fits(turn.workload.team, turn.flavor, turn.workload.request);
}

function withQuota(
  config: GovernanceConfig,
  team: string,
  change: (quota: TeamQuota) => TeamQuota,
): GovernanceConfig {
  return { ...config, teams: config.teams.map((quota) => (quota.team === team ? change(quota) : quota)) };
}

/** The least integer in [low, high] for which `ok` holds (ok monotone), or null. */
function least(low: number, high: number, ok: (value: number) => boolean): number | null {
  if (high < low || !ok(high)) return null;
  let lo = low;
  let hi = high;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Drops the releases not needed (newest choice first), as preemption minimizes its victims. */
function needed(ledger: Ledger, turn: Turn, chosen: readonly AdmittedWorkload[]): AdmittedWorkload[] {
  const { workload, flavor } = turn;
  const kept = [...chosen];
  for (let index = kept.length - 2; index >= 0; index--) {
    const entry = kept[index];
    if (entry === undefined) continue;
    ledger.apply(entry.team, flavor, entry.request, 1);
    if (ledger.fits(workload.team, flavor, workload.request)) kept.splice(index, 1);
    else ledger.apply(entry.team, flavor, entry.request, -1);
  }
  return kept;
}

/** The workloads being preempted are still stopping; once they have, it fits. */
export function stopping(turn: Turn): Way | null {
  if (turn.taken.size === 0 || !turn.holds.some((held) => held.flavor === turn.flavor)) return null;
  const { workload, flavor, snapshot } = turn;
  if (!ledgerFor(turn, snapshot.config, false).fits(workload.team, flavor, workload.request)) return null;
  return {
    text: `the preempted ${[...turn.taken].join(", ")} finish stopping`,
    applied: { ...snapshot, admitted: snapshot.admitted.filter((a) => !turn.taken.has(a.key)) },
  };
}

export function finishing(turn: Turn): Way | null {
  const { workload, flavor } = turn;
  const ledger = turn.ledger.clone();
  const short = new Set(turn.shortfall.map((s) => s.resource));
  const candidates = turn.snapshot.admitted
    .filter(
      (a) => a.flavor === flavor && !turn.taken.has(a.key) && [...short].some((r) => (a.request[r] ?? 0) > 0),
    )
    .sort(
      (a, b) =>
        Number(b.team === workload.team) - Number(a.team === workload.team) || a.admittedAt - b.admittedAt,
    );
  const chosen: AdmittedWorkload[] = [];
  for (const candidate of candidates) {
    ledger.apply(candidate.team, flavor, candidate.request, -1);
    chosen.push(candidate);
    if (ledger.fits(workload.team, flavor, workload.request)) break;
  }
  if (!ledger.fits(workload.team, flavor, workload.request)) return null;
  const keys = needed(ledger, turn, chosen).map((a) => a.key);
  const gone = new Set(keys);
  return {
    text: `${keys.join(" and ")} ${keys.length === 1 ? "finishes" : "finish"}`,
    applied: { ...turn.snapshot, admitted: turn.snapshot.admitted.filter((a) => !gone.has(a.key)) },
  };
}

/** The capacity with `amount` more of the resource in the flavor (nodes added). */
function moreCapacity(snapshot: GovernanceSnapshot, flavor: string, resource: string, amount: number) {
  const now = snapshot.capacity[flavor] ?? {};
  const capacity = { ...snapshot.capacity, [flavor]: { ...now, [resource]: (now[resource] ?? 0) + amount } };
  return { ...snapshot, capacity };
}

export function raiseGuarantee(turn: Turn): Way[] {
  const { workload, flavor, snapshot } = turn;
  const out: Way[] = [];
  for (const { resource, need, missing } of turn.shortfall) {
    if (!turn.ledger.isGoverned(flavor, resource)) continue;
    const raised = (by: number) =>
      withQuota(snapshot.config, workload.team, (quota) => ({
        ...quota,
        guaranteed: {
          ...quota.guaranteed,
          [flavor]: {
            ...quota.guaranteed[flavor],
            [resource]: (quota.guaranteed[flavor]?.[resource] ?? 0) + by,
          },
        },
      }));
    const step = resource === "memory" ? 2 ** 30 : 1;
    const units = least(1, Math.ceil(need / step), (n) => fitsUnder(turn, raised(n * step)));
    if (units !== null)
      out.push({
        text: `${workload.team}'s guaranteed ${resource} in flavor ${flavor} is raised by ${formatQuantity(resource, units * step)}`,
        applied: { ...snapshot, config: raised(units * step) },
      });
    else
      out.push({
        text: `${fmt(resource, missing)} more come free in flavor ${flavor} (jobs end or nodes are added)`,
        applied: moreCapacity(snapshot, flavor, resource, missing),
      });
  }
  return out;
}

export function borrowing(turn: Turn): Way | null {
  const { workload, snapshot } = turn;
  const quota = snapshot.config.teams.find((q) => q.team === workload.team);
  if (quota === undefined) return null;
  const lending = (percent: number) =>
    withQuota(snapshot.config, workload.team, (q) => ({
      ...q,
      strategy: "LendAndBorrow",
      borrowLimitPercent: percent,
    }));
  const from = quota.strategy === "LendAndBorrow" ? quota.borrowLimitPercent + 1 : 1;
  const percent = least(from, 500, (p) => fitsUnder(turn, lending(p)));
  if (percent !== null) {
    const text =
      quota.strategy === "LendAndBorrow"
        ? `${workload.team}'s borrow limit is raised to ${percent}%`
        : `${workload.team} may borrow (LendAndBorrow, borrow limit ${percent}%)`;
    return { text, applied: { ...snapshot, config: lending(percent) } };
  }
  const idle = { ...snapshot.config, scheduler: { ...snapshot.config.scheduler, idleResourceSharing: true } };
  if (!snapshot.config.scheduler.idleResourceSharing && fitsUnder(turn, idle))
    return { text: "idle resource sharing is enabled", applied: { ...snapshot, config: idle } };
  return null;
}

export function higherPriority(turn: Turn): Way | null {
  const { workload, flavor, snapshot } = turn;
  const { scheduler } = snapshot.config;
  const quota = snapshot.config.teams.find((q) => q.team === workload.team);
  if (!scheduler.taskRanking || !priorityPreempts(quota)) return null;
  const current = scheduler.priorityClasses.find((spec) => spec.name === workload.priorityClass)?.weight ?? 0;
  const higher = [...scheduler.priorityClasses]
    .filter((spec) => spec.weight > current)
    .sort((a, b) => a.weight - b.weight);
  const index = preemptionIndex(
    snapshot.admitted.filter((a) => a.flavor === flavor),
    scheduler,
  );
  for (const spec of higher) {
    const scope = { ledger: turn.ledger.clone(), index, taken: turn.taken };
    const victims = findVictims(scope, { workload, rank: spec.weight, flavor });
    if (victims !== null && victims.length > 0) {
      const pending = snapshot.pending.map((w) =>
        w.key === workload.key ? { ...w, priorityClass: spec.name } : w,
      );
      return {
        text: `it is submitted with priority class ${spec.name} (weight ${spec.weight}), preempting ${victims.map((v) => v.victim.key).join(", ")}`,
        applied: { ...snapshot, pending },
      };
    }
  }
  return null;
}
