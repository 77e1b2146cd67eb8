import type { Ledger } from "./ledger";

function cellShare(
  ledger: Ledger,
  at: { team: string; flavor: string; resource: string; used: number },
): number {
  const { team, flavor, resource, used } = at;
  if (!ledger.isGoverned(flavor, resource)) return 0;
  const borrowed = used - ledger.cell(team, flavor, resource).nominal;
  const pool = ledger.limits.pool.get(flavor)?.get(resource) ?? 0;
  return borrowed > 1e-9 && pool > 0 ? borrowed / pool : 0;
}

/**
 * Kueue's dominant resource share (DRS) for fair sharing: the largest share, over the flavors and resources
 * a team borrows, of what it borrows (use above its guarantee) in the cohort's lendable pool, divided by its
 * fair-share weight. A team that borrows nothing has share 0; one that borrows with weight 0 has an infinite
 * share, as in Kueue (it yields to every weighted team).
 */
export function dominantShare(ledger: Ledger, team: string): number {
  let dominant = 0;
  for (const [flavor, resources] of ledger.usedCells(team)) {
    for (const [resource, used] of resources)
      dominant = Math.max(dominant, cellShare(ledger, { team, flavor, resource, used }));
  }
  if (dominant === 0) return 0;
  const weight = ledger.limits.quotas.get(team)?.fairShareWeight ?? 0;
  return weight > 0 ? dominant / weight : Number.POSITIVE_INFINITY;
}
