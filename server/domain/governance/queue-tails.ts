import type { Queued } from "./order";
import type { Quantities } from "./types";

/**
 * What is left of a team's queue from each position on: the least request per resource, the highest rank and
 * the flavors every one of them allows (MIXED when they differ). A cycle that decides admissions only
 * (admission.ts, `reasons: false`) uses it to set a team aside once a workload of it has failed and
 * everything behind it asks at least as much, ranks no higher and allows the same flavors: while usage is
 * unchanged those fail too (a fit needs no more than the smaller request got; a preemption search of no
 * higher rank asking at least as much fails, as cycle-state.ts's failedSearches already relies on).
 */

const MIXED = "\u0000mixed";

const flavorKey = (flavors: readonly string[] | null) => (flavors === null ? "" : flavors.join("\u0000"));

export class QueueTails {
  private readonly resources: readonly string[];
  /** resource → least request of positions i..end (0 where one of them does not ask for it). */
  private readonly least: Map<string, Float64Array>;
  private readonly highest: Float64Array;
  private readonly flavors: string[];

  constructor(queue: readonly Queued[]) {
    const n = queue.length;
    const resources = new Set<string>();
    for (const { workload } of queue) for (const resource in workload.request) resources.add(resource);
    this.resources = [...resources];
    this.least = new Map(
      this.resources.map((resource) => [resource, new Float64Array(n + 1).fill(Infinity)]),
    );
    this.highest = new Float64Array(n + 1).fill(-Infinity);
    this.flavors = new Array<string>(n + 1).fill("");
    for (let i = n - 1; i >= 0; i--) {
      const { workload, rank } = queue[i] as Queued;
      for (const resource of this.resources) {
        const column = this.least.get(resource) as Float64Array;
        column[i] = Math.min(workload.request[resource] ?? 0, column[i + 1] as number);
      }
      this.highest[i] = Math.max(rank, this.highest[i + 1] as number);
      const key = flavorKey(workload.flavors);
      this.flavors[i] = i === n - 1 || this.flavors[i + 1] === key ? key : MIXED;
    }
  }

  /** Whether every workload from `from` on asks at least `request`, ranks at most `rank` and allows `flavors`. */
  noBetterThan(
    from: number,
    failed: { request: Quantities; rank: number; flavors: readonly string[] | null },
  ): boolean {
    if (from >= this.highest.length - 1) return true;
    if ((this.highest[from] as number) > failed.rank) return false;
    if (this.flavors[from] !== flavorKey(failed.flavors)) return false;
    for (const resource in failed.request) {
      const amount = failed.request[resource] ?? 0;
      if (amount <= 0) continue;
      const column = this.least.get(resource);
      if (column === undefined || (column[from] as number) < amount) return false;
    }
    return true;
  }
}
