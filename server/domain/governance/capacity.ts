import { ledgerOf } from "./cycle-state";
import type { Ledger } from "./ledger";
import type { Cell } from "./limits";
import { tidy } from "./quantity";
import type { GovernanceSnapshot, TeamCapacity } from "./types";

/**
 * Guaranteed, used, borrowed, lent, borrow limit, available and lendable per team, flavor and resource, for
 * every quota-governed resource a team is guaranteed, may borrow or uses, and every resource it uses.
 * "Lent": borrowing takes unallocated capacity first, then the idle lendable guarantees of the teams, shared
 * among the lenders in proportion to what each has idle (Kueue does not attribute borrowing to a lender).
 */

function lentShares(ledger: Ledger, teams: readonly string[], at: { flavor: string; resource: string }) {
  const { flavor, resource } = at;
  const idle = new Map<string, number>();
  let idleTotal = 0;
  let borrowed = 0;
  for (const team of teams) {
    const cell = ledger.cell(team, flavor, resource);
    const used = ledger.used(team, flavor, resource);
    const free = Math.min(cell.lendable, Math.max(0, cell.nominal - used));
    idle.set(team, free);
    idleTotal += free;
    borrowed += Math.max(0, used - cell.nominal);
  }
  const physical = ledger.limits.capacity.get(flavor)?.get(resource);
  const nominalSum = ledger.limits.nominalSum.get(flavor)?.get(resource) ?? 0;
  const unallocated =
    ledger.limits.settings.idleResourceSharing && physical !== undefined
      ? Math.max(0, physical - nominalSum)
      : 0;
  const fromLenders = Math.min(idleTotal, Math.max(0, borrowed - unallocated));
  return (team: string) => (idleTotal > 0 ? ((idle.get(team) ?? 0) * fromLenders) / idleTotal : 0);
}

const hasQuota = (cell: Cell) => cell.nominal > 0 || cell.borrowLimit > 0;

function cellsOf(ledger: Ledger, team: string): Array<{ flavor: string; resource: string }> {
  const guaranteed = [...ledger.limits.governed].flatMap(([flavor, resources]) =>
    [...resources]
      .filter((r) => hasQuota(ledger.cell(team, flavor, r)))
      .map((resource) => ({ flavor, resource })),
  );
  const used = [...ledger.usedCells(team)].flatMap(([flavor, resources]) =>
    [...resources].filter(([, amount]) => amount > 0).map(([resource]) => ({ flavor, resource })),
  );
  const seen = new Set<string>();
  return [...guaranteed, ...used].filter(({ flavor, resource }) => {
    const id = `${flavor}\u0000${resource}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

export function teamCapacities(snapshot: GovernanceSnapshot): TeamCapacity[] {
  const ledger = ledgerOf(snapshot);
  const teams = snapshot.config.teams.map((quota) => quota.team);
  const lent = new Map<string, (team: string) => number>();
  return teams.flatMap((team) =>
    cellsOf(ledger, team).map(({ flavor, resource }) => {
      const id = `${flavor}\u0000${resource}`;
      const lentOf = lent.get(id) ?? lentShares(ledger, teams, { flavor, resource });
      lent.set(id, lentOf);
      const cell = ledger.cell(team, flavor, resource);
      const used = ledger.used(team, flavor, resource);
      return {
        team,
        flavor,
        resource,
        guaranteed: cell.nominal,
        used: tidy(used),
        borrowed: tidy(Math.max(0, used - cell.nominal)),
        lent: tidy(lentOf(team)),
        borrowLimit: cell.borrowLimit,
        available: tidy(ledger.available(team, flavor, resource)),
        lendable: cell.lendable,
      };
    }),
  );
}
