import { dominantShare } from "./fair-share";
import type { Cell, Limits } from "./limits";

const ZERO_CELL: Cell = { nominal: 0, borrowLimit: 0, lendable: 0 };

import { formatQuantity } from "./quantity";
import type { Quantities, Shortfall } from "./types";

/**
 * Usage against the limits (limits.ts), kept incrementally so a fit check costs a few map reads per
 * resource. A team may use at most N + B; beyond its reserved part (N − L) it draws on the cohort pool net of
 * what the other teams already draw from it; and all teams together stay within the flavor's capacity.
 */

export type Never = "NoQuota" | "ExceedsCapacity";
export type Fit = {
  fits: boolean;
  /** The request can never fit this flavor under this configuration. */
  never: Never | null;
  shortfall: Shortfall[];
  /** Kueue-worded reasons, one per resource that does not fit. */
  messages: string[];
};

type Table = Map<string, Map<string, number>>;
const EPS = 1e-9;

function read(
  table: ReadonlyMap<string, ReadonlyMap<string, number>>,
  flavor: string,
  resource: string,
): number {
  return table.get(flavor)?.get(resource) ?? 0;
}

function bump(table: Table, flavor: string, resource: string, delta: number): void {
  let inner = table.get(flavor);
  if (!inner) {
    inner = new Map();
    table.set(flavor, inner);
  }
  inner.set(resource, (inner.get(resource) ?? 0) + delta);
}

function cloneTable(table: Table): Table {
  return new Map([...table].map(([flavor, inner]) => [flavor, new Map(inner)]));
}

export type Slack = {
  governed: boolean;
  cell: Cell;
  used: number;
  /** Room under N + B. */
  limit: number;
  /** Room in the team's reserved part plus the pool's undrawn part. */
  pool: number;
  /** Room in the flavor's capacity (Infinity: not listed). */
  capacity: number;
};

export class Ledger {
  private readonly usage = new Map<string, Table>();
  private readonly total: Table = new Map();
  private readonly drawn: Table = new Map();
  private readonly shares = new Map<string, number>();

  /** Bumped on every change of usage: a fit computed at one version holds while it lasts. */
  version = 0;
  /** Per team, bumped on every change of its usage: a share computed at one of them holds while it lasts. */
  private readonly teamVersions = new Map<string, number>();

  constructor(readonly limits: Limits) {}

  clone(): Ledger {
    const copy = new Ledger(this.limits);
    for (const [team, table] of this.usage) copy.usage.set(team, cloneTable(table));
    for (const [flavor, inner] of this.total) copy.total.set(flavor, new Map(inner));
    for (const [flavor, inner] of this.drawn) copy.drawn.set(flavor, new Map(inner));
    return copy;
  }

  isGoverned(flavor: string, resource: string): boolean {
    return this.limits.governed.get(flavor)?.has(resource) ?? false;
  }

  cell(team: string, flavor: string, resource: string): Cell {
    return this.limits.cells.get(team)?.get(flavor)?.get(resource) ?? ZERO_CELL;
  }

  used(team: string, flavor: string, resource: string): number {
    const table = this.usage.get(team);
    return table ? read(table, flavor, resource) : 0;
  }

  /** Team → flavor → resource → in use. */
  usedCells(team: string): ReadonlyMap<string, ReadonlyMap<string, number>> {
    return this.usage.get(team) ?? new Map();
  }

  totalUsed(flavor: string, resource: string): number {
    return read(this.total, flavor, resource);
  }

  drawnFromPool(flavor: string, resource: string): number {
    return read(this.drawn, flavor, resource);
  }

  /** The version of the team's usage (shares with or without a change depend on nothing else). */
  teamVersion(team: string): number {
    return this.teamVersions.get(team) ?? 0;
  }

  /** The team's dominant resource share (fair-share.ts), cached until its usage changes. */
  share(team: string): number {
    const cached = this.shares.get(team);
    if (cached !== undefined) return cached;
    const value = dominantShare(this, team);
    this.shares.set(team, value);
    return value;
  }

  /** Whether the team uses more than its guarantee of any of these resources in the flavor. */
  isBorrowing(team: string, flavor: string, resources: Iterable<string>): boolean {
    for (const resource of resources) {
      if (
        this.isGoverned(flavor, resource) &&
        this.used(team, flavor, resource) > this.cell(team, flavor, resource).nominal + EPS
      )
        return true;
    }
    return false;
  }

  /**
   * Whether the request fits within the team's own guarantee in one of these flavors (no borrowing). Kueue
   * orders such workloads ahead of those that would borrow, so a team reclaiming its guarantee is admitted
   * before a requeued borrower takes the room again.
   */
  withinNominal(team: string, flavors: readonly string[], request: Quantities): boolean {
    for (const flavor of flavors) if (this.nominalFits(team, flavor, request)) return true;
    return false;
  }

  private nominalFits(team: string, flavor: string, request: Quantities): boolean {
    for (const resource in request) {
      const amount = request[resource] ?? 0;
      if (amount <= 0 || !this.isGoverned(flavor, resource)) continue;
      if (this.used(team, flavor, resource) + amount > this.cell(team, flavor, resource).nominal + EPS)
        return false;
    }
    return true;
  }

  /** Adds (sign 1) or removes (sign −1) a workload's request for its team. */
  apply(team: string, flavor: string, request: Quantities, sign: 1 | -1): void {
    this.version++;
    let table = this.usage.get(team);
    if (!table) {
      table = new Map();
      this.usage.set(team, table);
    }
    for (const resource in request) {
      const amount = request[resource] ?? 0;
      const before = read(table, flavor, resource);
      const after = before + sign * amount;
      bump(table, flavor, resource, sign * amount);
      bump(this.total, flavor, resource, sign * amount);
      if (!this.isGoverned(flavor, resource)) continue;
      const cell = this.cell(team, flavor, resource);
      const reserved = cell.nominal - cell.lendable;
      const delta = Math.max(0, after - reserved) - Math.max(0, before - reserved);
      bump(this.drawn, flavor, resource, delta);
    }
    this.shares.delete(team);
    this.teamVersions.set(team, this.teamVersion(team) + 1);
  }

  /**
   * Capacity that is being given back but is not free yet (preempted workloads still stopping): it counts
   * against the flavor's capacity and the cohort pool, for no team.
   */
  hold(flavor: string, request: Quantities): void {
    this.version++;
    for (const [resource, amount] of Object.entries(request)) {
      if (amount <= 0) continue;
      bump(this.total, flavor, resource, amount);
      if (this.isGoverned(flavor, resource)) bump(this.drawn, flavor, resource, amount);
    }
  }

  /** What the team could take of the resource now; −Infinity when it cannot be assigned there. No allocation. */
  room(team: string, flavor: string, resource: string): number {
    const physical = this.limits.capacity.get(flavor)?.get(resource);
    const capacity =
      physical === undefined ? Number.POSITIVE_INFINITY : physical - this.totalUsed(flavor, resource);
    if (!this.isGoverned(flavor, resource))
      return physical === undefined ? Number.NEGATIVE_INFINITY : capacity;
    const cell = this.cell(team, flavor, resource);
    const used = this.used(team, flavor, resource);
    const reserved = cell.nominal - cell.lendable;
    const drawnByOthers = this.drawnFromPool(flavor, resource) - Math.max(0, used - reserved);
    const pool = reserved - used + Math.max(0, read(this.limits.pool, flavor, resource) - drawnByOthers);
    return Math.min(cell.nominal + cell.borrowLimit - used, pool, capacity);
  }

  /** Whether the request fits the team in the flavor now (the fast path of `check`). */
  fits(team: string, flavor: string, request: Quantities): boolean {
    for (const resource in request) {
      const need = request[resource] ?? 0;
      if (need > 0 && need > this.room(team, flavor, resource) + EPS) return false;
    }
    return true;
  }

  slack(team: string, flavor: string, resource: string): Slack | null {
    const physical = this.limits.capacity.get(flavor)?.get(resource);
    const capacity =
      physical === undefined ? Number.POSITIVE_INFINITY : physical - this.totalUsed(flavor, resource);
    const used = this.used(team, flavor, resource);
    const governed = this.isGoverned(flavor, resource);
    if (!governed && physical === undefined) return null;
    const cell = this.cell(team, flavor, resource);
    if (!governed) return { governed, cell, used, limit: Number.POSITIVE_INFINITY, pool: capacity, capacity };
    const reserved = cell.nominal - cell.lendable;
    const pool = read(this.limits.pool, flavor, resource);
    const drawnByOthers = this.drawnFromPool(flavor, resource) - Math.max(0, used - reserved);
    return {
      governed,
      cell,
      used,
      limit: cell.nominal + cell.borrowLimit - used,
      pool: reserved - used + Math.max(0, pool - drawnByOthers),
      capacity,
    };
  }

  /** What the team could still take of a resource in a flavor now (0 when the resource is not assignable). */
  available(team: string, flavor: string, resource: string): number {
    return Math.max(0, this.room(team, flavor, resource));
  }

  /** The most the team could ever hold of the resource in the flavor under this configuration. */
  ceiling(team: string, flavor: string, resource: string): number {
    const physical = this.limits.capacity.get(flavor)?.get(resource) ?? Number.POSITIVE_INFINITY;
    if (!this.isGoverned(flavor, resource)) return physical;
    const cell = this.cell(team, flavor, resource);
    const pool = read(this.limits.pool, flavor, resource);
    return Math.min(cell.nominal + cell.borrowLimit, cell.nominal - cell.lendable + pool, physical);
  }

  check(team: string, flavor: string, request: Quantities): Fit {
    const fit: Fit = { fits: true, never: null, shortfall: [], messages: [] };
    for (const resource in request) {
      const need = request[resource] ?? 0;
      if (need > 0) this.checkResource(fit, { team, flavor, resource, need });
    }
    return fit;
  }

  private checkResource(
    fit: Fit,
    at: { team: string; flavor: string; resource: string; need: number },
  ): void {
    const { team, flavor, resource, need } = at;
    const room = this.room(team, flavor, resource);
    if (room === Number.NEGATIVE_INFINITY) {
      markNever(fit, "NoQuota", `resource ${resource} unavailable in ClusterQueue`);
      return;
    }
    const ceiling = this.ceiling(team, flavor, resource);
    if (need > ceiling + EPS) {
      const cell = this.cell(team, flavor, resource);
      const noQuota = this.isGoverned(flavor, resource) && cell.nominal + cell.borrowLimit <= 0;
      markNever(
        fit,
        noQuota ? "NoQuota" : "ExceedsCapacity",
        neverMessage({ flavor, resource, need, ceiling, noQuota }),
      );
    }
    const available = Math.max(0, room);
    if (need <= available + EPS) return;
    fit.fits = false;
    fit.shortfall.push({ flavor, resource, need, available, missing: need - available });
    if (need <= ceiling + EPS) fit.messages.push(shortMessage(flavor, resource, need - available));
  }
}

function markNever(fit: Fit, never: Never, message: string): void {
  fit.fits = false;
  if (fit.never !== "ExceedsCapacity") fit.never = never;
  fit.messages.push(message);
}

function neverMessage(at: {
  flavor: string;
  resource: string;
  need: number;
  ceiling: number;
  noQuota: boolean;
}) {
  const { flavor, resource, need, ceiling } = at;
  if (at.noQuota) return `no quota for ${resource} in flavor ${flavor} (guaranteed 0, may borrow 0)`;
  return `insufficient quota for ${resource} in flavor ${flavor}, request > maximum capacity (${formatQuantity(resource, need)} > ${formatQuantity(resource, ceiling)})`;
}

function shortMessage(flavor: string, resource: string, missing: number) {
  return `insufficient unused quota for ${resource} in flavor ${flavor}, ${formatQuantity(resource, missing)} more needed`;
}
