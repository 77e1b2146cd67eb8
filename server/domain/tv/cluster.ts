import { GPU, type TeamCapacity } from "@/server/domain/governance/types";
import { scopeAllowsTeam, type TvScope } from "./scope";

export type TvTeam = { id: string; name: string; displayName: string };

/** One team's GPUs now: in use by its admitted jobs, its guaranteed quota, and the part of `used` borrowed. */
export type TeamGpuRow = { team: string; displayName: string; used: number; quota: number; borrowed: number };

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

/** GPUs held by running jobs (starting and recovering ones keep theirs). */
export function gpusInUse(jobs: ReadonlyArray<{ phase: string; gpus: number }>): number {
  return jobs.reduce((sum, job) => (RUNNING.has(job.phase) ? sum + job.gpus : sum), 0);
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
