import { kueueSettingsOf } from "./kueue-settings";
import {
  type FlavorQuantities,
  type GovernanceConfig,
  GPU,
  type SchedulerSettings,
  type TeamQuota,
} from "./types";

/**
 * Quota limits per team, flavor and resource, mapped as
 * docs/hyperpod-compatibility.md, "Task governance objects" maps a ComputeQuota to a Kueue ClusterQueue in
 * one cohort (Kueue v1beta1):
 * - nominal N = the guarantee;
 * - borrowing limit B: LendAndBorrow → the absolute limit when given, else floor(borrowLimitPercent% × N);
 *   Lend and DontLend → 0;
 * - lending limit L: DontLend → 0, else N, or for GPUs the team's advanced `lendingLimit` when below N
 *   (Kueue's lendingLimit; N − L stays reserved for the team).
 * The cohort pool of a flavor/resource is Σ L plus, with idle resource sharing on, the capacity no team is
 * guaranteed (capacity − Σ N, at least 0); with it off that unallocated capacity is unusable.
 * An inactive quota admits nothing new (its ClusterQueue is held) but stays in the cohort: what it would lend
 * by its strategy is still lendable.
 * A resource no quota of a flavor names ("quota-governed" by none) is limited by the flavor's capacity only;
 * one neither named by a quota nor listed in the capacity cannot be assigned there (NoQuota).
 */

export type Cell = { nominal: number; borrowLimit: number; lendable: number };

export type Limits = {
  settings: SchedulerSettings;
  quotas: ReadonlyMap<string, TeamQuota>;
  /** All flavors, capacity's first, then those only quotas name. */
  flavors: readonly string[];
  /** flavor → resources some quota names there. */
  governed: ReadonlyMap<string, ReadonlySet<string>>;
  /** flavor → resource → allocatable capacity (absent: not limited by capacity). */
  capacity: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** flavor → resource → the cohort pool (Σ lendable + usable unallocated). */
  pool: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** flavor → resource → Σ guarantees. */
  nominalSum: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** team → flavor → resource → its cell, for every governed resource of every team in the config. */
  cells: ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, Cell>>>;
};

const ZERO_CELL: Cell = { nominal: 0, borrowLimit: 0, lendable: 0 };

/** A percent of a guarantee, floored to whole units (cpu: to millicores). */
function percentOf(resource: string, nominal: number, percent: number): number {
  const raw = (nominal * percent) / 100;
  return resource === "cpu" ? Math.floor(raw * 1000 + 1e-9) / 1000 : Math.floor(raw + 1e-9);
}

function lendableOf(quota: TeamQuota, resource: string, nominal: number): number {
  if (quota.strategy === "DontLend") return 0;
  const limit = resource === GPU ? kueueSettingsOf(quota).lendingLimit : null;
  return limit === null ? nominal : Math.min(nominal, limit);
}

export function cellOf(quota: TeamQuota | undefined, flavor: string, resource: string): Cell {
  if (quota === undefined) return ZERO_CELL;
  const nominal = quota.guaranteed[flavor]?.[resource] ?? 0;
  const absolute = quota.absoluteBorrowLimit[flavor]?.[resource];
  const borrowLimit =
    quota.strategy === "LendAndBorrow"
      ? (absolute ?? percentOf(resource, nominal, quota.borrowLimitPercent))
      : 0;
  return { nominal, borrowLimit, lendable: lendableOf(quota, resource, nominal) };
}

function toMap(quantities: FlavorQuantities): Map<string, Map<string, number>> {
  return new Map(Object.entries(quantities).map(([flavor, q]) => [flavor, new Map(Object.entries(q))]));
}

function addTo(target: Map<string, Map<string, number>>, flavor: string, resource: string, amount: number) {
  const inner = target.get(flavor) ?? new Map<string, number>();
  inner.set(resource, (inner.get(resource) ?? 0) + amount);
  target.set(flavor, inner);
}

function governedResources(teams: readonly TeamQuota[]): Map<string, Set<string>> {
  const governed = new Map<string, Set<string>>();
  const note = (table: FlavorQuantities) => {
    for (const [flavor, q] of Object.entries(table)) {
      const set = governed.get(flavor) ?? new Set<string>();
      for (const resource of Object.keys(q)) set.add(resource);
      governed.set(flavor, set);
    }
  };
  for (const team of teams) {
    note(team.guaranteed);
    note(team.absoluteBorrowLimit);
  }
  return governed;
}

type PoolInput = {
  teams: readonly TeamQuota[];
  governed: ReadonlyMap<string, ReadonlySet<string>>;
  capacity: ReadonlyMap<string, ReadonlyMap<string, number>>;
  idleSharing: boolean;
};

function poolsOf({ teams, governed, capacity, idleSharing }: PoolInput) {
  const pool = new Map<string, Map<string, number>>();
  const nominalSum = new Map<string, Map<string, number>>();
  for (const [flavor, resources] of governed) {
    for (const resource of resources) {
      let lendable = 0;
      let nominal = 0;
      for (const team of teams) {
        const cell = cellOf(team, flavor, resource);
        lendable += cell.lendable;
        nominal += cell.nominal;
      }
      const physical = capacity.get(flavor)?.get(resource);
      const unallocated = idleSharing && physical !== undefined ? Math.max(0, physical - nominal) : 0;
      addTo(pool, flavor, resource, lendable + unallocated);
      addTo(nominalSum, flavor, resource, nominal);
    }
  }
  return { pool, nominalSum };
}

function cellsOf(teams: readonly TeamQuota[], governed: ReadonlyMap<string, ReadonlySet<string>>) {
  const cells = new Map<string, Map<string, Map<string, Cell>>>();
  for (const team of teams) {
    const byFlavor = new Map<string, Map<string, Cell>>();
    for (const [flavor, resources] of governed)
      byFlavor.set(
        flavor,
        new Map([...resources].map((resource) => [resource, cellOf(team, flavor, resource)])),
      );
    cells.set(team.team, byFlavor);
  }
  return cells;
}

export function buildLimits(config: GovernanceConfig, capacity: FlavorQuantities): Limits {
  const capacityMap = toMap(capacity);
  const governed = governedResources(config.teams);
  const flavors = [...new Set([...capacityMap.keys(), ...governed.keys()])];
  const { pool, nominalSum } = poolsOf({
    teams: config.teams,
    governed,
    capacity: capacityMap,
    idleSharing: config.scheduler.idleResourceSharing,
  });
  return {
    settings: config.scheduler,
    quotas: new Map(config.teams.map((team) => [team.team, team])),
    flavors,
    governed,
    capacity: capacityMap,
    pool,
    nominalSum,
    cells: cellsOf(config.teams, governed),
  };
}

/** The flavors to try for a team, in order: those it is guaranteed first (Kueue tries a ClusterQueue's in order). */
export function flavorOrder(limits: Limits, team: string, allowed: readonly string[] | null): string[] {
  const quota = limits.quotas.get(team);
  const own = Object.entries(quota?.guaranteed ?? {})
    .filter(([, q]) => Object.values(q).some((amount) => amount > 0))
    .map(([flavor]) => flavor);
  const all = [...new Set([...own, ...limits.flavors])].filter((flavor) => limits.flavors.includes(flavor));
  return allowed === null ? all : all.filter((flavor) => allowed.includes(flavor));
}
