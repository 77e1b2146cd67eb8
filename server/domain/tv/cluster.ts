import { GPU, type TeamCapacity } from "@/server/domain/governance/types";
import { scopeAllowsTeam, type TvScope } from "./scope";

export type TvTeam = { id: string; name: string; displayName: string };

/**
 * One team's GPUs now: in use by its admitted jobs, its guaranteed quota (null: none applies, the bar of jobs
 * outside any team), and the part of `used` borrowed.
 */
export type TeamGpuRow = {
  team: string;
  displayName: string;
  used: number;
  quota: number | null;
  borrowed: number;
};

/** Teams on screen at most (the busiest first); the frame says how many more there are. */
export const MAX_TV_TEAMS = 10;

export type JobCounts = { running: number; pending: number; failed: number };

const RUNNING = new Set(["Running", "Starting", "Recovering"]);

/** Running (starting and recovering included), pending (waiting for admission or pods) and failed jobs. */
export function jobCounts(jobs: ReadonlyArray<{ phase: string }>): JobCounts {
  const counts: JobCounts = { running: 0, pending: 0, failed: 0 };
  for (const job of jobs) {
    if (RUNNING.has(job.phase)) counts.running += 1;
    else if (job.phase === "Pending") counts.pending += 1;
    else if (job.phase === "Failed") counts.failed += 1;
  }
  return counts;
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * GPUs in use against quota for the teams in scope (every flavor summed): the MAX_TV_TEAMS using the most
 * GPUs, shown by display name. A team with no quota row shows quota 0, so a team borrowing everything it
 * uses is visible as such.
 */
export function teamGpuRows(input: {
  teams: readonly TvTeam[];
  capacities: readonly TeamCapacity[];
  scope: TvScope;
  max?: number;
}): { teams: TeamGpuRow[]; more: number } {
  const rows = input.teams
    .filter((team) => scopeAllowsTeam(input.scope, team.id))
    .map((team) => {
      const cells = input.capacities.filter((cell) => cell.team === team.name && cell.resource === GPU);
      const sum = (pick: (cell: TeamCapacity) => number) =>
        round(cells.reduce((total, cell) => total + pick(cell), 0));
      return {
        team: team.name,
        displayName: team.displayName || team.name,
        used: sum((cell) => cell.used),
        quota: sum((cell) => cell.guaranteed),
        borrowed: sum((cell) => cell.borrowed),
      };
    })
    .sort((a, b) => b.used - a.used || a.displayName.localeCompare(b.displayName));
  const max = input.max ?? MAX_TV_TEAMS;
  return { teams: rows.slice(0, max), more: Math.max(0, rows.length - max) };
}

/** The display name of the bar for GPUs held by jobs outside any team's namespace. */
export const OUTSIDE_TEAMS = "Outside any team";

const ACTIVE_OUTSIDE = (phase: string) =>
  phase !== "Suspended" && phase !== "Succeeded" && phase !== "Failed";

/**
 * The cluster view's GPU figures from one source, so the tile and the bars add up: the bars are the teams'
 * GPUs in use (teamGpuRows: the governance page's "used", what admitted jobs hold), plus, for a whole-cluster
 * viewer, one bar for the jobs in no team's namespace (counted as the governance snapshot takes them off the
 * capacity: every job neither finished nor suspended); the tile's "in use" is the sum of every bar, the ones
 * past MAX_TV_TEAMS included (their GPUs are `moreGpus`).
 */
export function clusterGpus(input: {
  teams: readonly TvTeam[];
  capacities: readonly TeamCapacity[];
  scope: TvScope;
  jobs: ReadonlyArray<{ team: string | null; phase: string; gpus: number }>;
  max?: number;
}): { teams: TeamGpuRow[]; more: number; moreGpus: number; inUse: number } {
  const max = input.max ?? MAX_TV_TEAMS;
  const all = teamGpuRows({ ...input, max: Number.POSITIVE_INFINITY }).teams;
  const outside = input.scope.all
    ? round(
        input.jobs.reduce(
          (sum, job) => (job.team === null && ACTIVE_OUTSIDE(job.phase) ? sum + job.gpus : sum),
          0,
        ),
      )
    : 0;
  const rows =
    outside > 0
      ? [...all, { team: "", displayName: OUTSIDE_TEAMS, used: outside, quota: null, borrowed: 0 }].sort(
          (a, b) => b.used - a.used,
        )
      : all;
  const shown = rows.slice(0, max);
  const rest = rows.slice(max);
  const total = (list: readonly TeamGpuRow[]) => round(list.reduce((sum, row) => sum + row.used, 0));
  return { teams: shown, more: rest.length, moreGpus: total(rest), inUse: total(rows) };
}
