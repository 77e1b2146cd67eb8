import type { Cell, Limits } from "./limits";
import type { Quantities } from "./types";

/**
 * Kueue's dominant resource share (DRS) for fair sharing, computed as Kueue v0.14 computes it, in its integer
 * arithmetic, so that equal shares compare equal on both back ends: per resource, what the team borrows (use
 * above its guarantee) summed over the flavors, in per mille of what the cohort can lend of it (the pools
 * summed over the flavors), rounded down; the largest of these; times 1000, divided by the fair-share weight
 * in thousandths, rounded down. A team that borrows nothing has share 0; one that borrows with weight 0 an
 * infinite share, as in Kueue (it yields to every weighted team).
 */

/**
 * What the share reads of the usage ledger (ledger.ts's Ledger has this shape): stated here so that the
 * ledger, which caches each team's share, imports this module and not the other way round.
 */
export type ShareLedger = {
  readonly limits: Limits;
  isGoverned(flavor: string, resource: string): boolean;
  cell(team: string, flavor: string, resource: string): Cell;
  usedCells(team: string): ReadonlyMap<string, ReadonlyMap<string, number>>;
};

/** A change to weigh without applying it: `request` added (sign 1) or removed (−1) in `flavor`. */
export type UsageChange = { flavor: string; request: Quantities; sign: 1 | -1 };

const lendableCache = new WeakMap<Limits, Map<string, number>>();

/** Per resource, what the cohort can lend of it over all flavors (Kueue sums by resource name). */
function lendable(limits: Limits, resource: string): number {
  let byResource = lendableCache.get(limits);
  if (byResource === undefined) {
    byResource = new Map();
    for (const resources of limits.pool.values())
      for (const [name, amount] of resources) byResource.set(name, (byResource.get(name) ?? 0) + amount);
    lendableCache.set(limits, byResource);
  }
  return byResource.get(resource) ?? 0;
}

function changed(change: UsageChange | null, flavor: string, resource: string): number {
  if (change === null || change.flavor !== flavor) return 0;
  return change.sign * (change.request[resource] ?? 0);
}

/** Resources the change adds that the team uses none of yet in that flavor. */
function newCells(ledger: ShareLedger, team: string, change: UsageChange | null): Array<[string, number]> {
  if (change === null || change.sign < 0) return [];
  const used = ledger.usedCells(team).get(change.flavor);
  return Object.entries(change.request).filter(([resource, amount]) => amount > 0 && !used?.has(resource));
}

/** Per resource, what the team borrows (with the change) summed over the flavors; only what is above 0. */
function borrowedOf(ledger: ShareLedger, team: string, change: UsageChange | null): Map<string, number> {
  const borrowed = new Map<string, number>();
  const add = (flavor: string, resource: string, used: number) => {
    if (!ledger.isGoverned(flavor, resource)) return;
    const amount = used - ledger.cell(team, flavor, resource).nominal;
    if (amount > 1e-9) borrowed.set(resource, (borrowed.get(resource) ?? 0) + amount);
  };
  for (const [flavor, resources] of ledger.usedCells(team))
    for (const [resource, used] of resources) add(flavor, resource, used + changed(change, flavor, resource));
  for (const [resource, amount] of newCells(ledger, team, change))
    add(change?.flavor ?? "", resource, amount);
  return borrowed;
}

export function dominantShare(ledger: ShareLedger, team: string, change: UsageChange | null = null): number {
  const borrowed = borrowedOf(ledger, team, change);
  if (borrowed.size === 0) return 0;
  const weight = ledger.limits.quotas.get(team)?.fairShareWeight ?? 0;
  if (!(weight > 0)) return Number.POSITIVE_INFINITY;
  let perMille = 0;
  for (const [resource, amount] of borrowed) {
    const pool = lendable(ledger.limits, resource);
    if (pool > 0) perMille = Math.max(perMille, Math.floor((amount * 1000) / pool + 1e-9));
  }
  return Math.floor((perMille * 1000) / Math.round(weight * 1000) + 1e-9);
}
