import { clusterGoodput } from "@/server/domain/goodput";

/** A job as the TV lists it: no per-rank data, so a frame stays a few kilobytes at any job size. */
export type TvJobRow = {
  namespace: string;
  name: string;
  team: string | null;
  phase: string;
  status: string;
  gpus: number;
  ranksHealthy: number;
  ranksTotal: number;
  /** Restarts of every kind (in-place, pod replacement, full job) of this run. */
  restarts: number;
  /**
   * Goodput as training progress (timelineTotals, server/domain/goodput): 1 − time lost to faults (last
   * progress → training back at that step) / lifetime; null before the job started.
   */
  goodput: number | null;
};

/** What a wall screen shows in one view at 16:9 without scrolling; the frame says how many more there are. */
export const MAX_TV_JOBS = 10;

/** Jobs that need eyes first: recovering, failed, then running, pending; by name within each. */
const ORDER: Record<string, number> = { Recovering: 0, Failed: 1, Running: 2, Starting: 3, Pending: 4 };

/**
 * Running, pending and failed jobs (finished and suspended ones left out), at most `max`, and the cluster's
 * goodput over all of them (not only those shown): their goodput weighted by the GPUs each holds
 * (server/domain/goodput/cluster-goodput.ts); null when none has one.
 */
export function tvJobList(
  rows: readonly TvJobRow[],
  max = MAX_TV_JOBS,
): { jobs: TvJobRow[]; more: number; goodput: number | null } {
  const shown = rows
    .filter((row) => ORDER[row.phase] !== undefined)
    .sort(
      (a, b) =>
        (ORDER[a.phase] ?? 9) - (ORDER[b.phase] ?? 9) ||
        a.namespace.localeCompare(b.namespace) ||
        a.name.localeCompare(b.name),
    );
  const goodput = clusterGoodput(shown);
  return {
    jobs: shown.slice(0, max),
    more: Math.max(0, shown.length - max),
    goodput: goodput === null ? null : Math.round(goodput * 10_000) / 10_000,
  };
}
