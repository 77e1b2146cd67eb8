import type { Cell, Limits } from "./limits";
import type { Quantities } from "./types";

/**
 * Kueue's dominant resource share (DRS) for fair sharing: the largest share, over the flavors and resources
 * a team borrows, of what it borrows (use above its guarantee) in the cohort's lendable pool, divided by its
 * fair-share weight. A team that borrows nothing has share 0; one that borrows with weight 0 has an infinite
 * share, as in Kueue (it yields to every weighted team).
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

function cellShare(
  ledger: ShareLedger,
  at: { team: string; flavor: string; resource: string; used: number },
): number {
  const { team, flavor, resource, used } = at;
  if (!ledger.isGoverned(flavor, resource)) return 0;
  const borrowed = used - ledger.cell(team, flavor, resource).nominal;
  const pool = ledger.limits.pool.get(flavor)?.get(resource) ?? 0;
  return borrowed > 1e-9 && pool > 0 ? borrowed / pool : 0;
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

export function dominantShare(ledger: ShareLedger, team: string, change: UsageChange | null = null): number {
  let dominant = 0;
  for (const [flavor, resources] of ledger.usedCells(team)) {
    for (const [resource, used] of resources) {
      const after = used + changed(change, flavor, resource);
      dominant = Math.max(dominant, cellShare(ledger, { team, flavor, resource, used: after }));
    }
  }
  for (const [resource, amount] of newCells(ledger, team, change)) {
    const flavor = change?.flavor ?? "";
    dominant = Math.max(dominant, cellShare(ledger, { team, flavor, resource, used: amount }));
  }
  if (dominant === 0) return 0;
  const weight = ledger.limits.quotas.get(team)?.fairShareWeight ?? 0;
  return weight > 0 ? dominant / weight : Number.POSITIVE_INFINITY;
}
