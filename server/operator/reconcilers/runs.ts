import type { JobContext } from "./deps";
import { statusReason } from "./job-state";

/**
 * The job's run (its uid) in the runs table, so past runs of a name stay reachable (JobRunStore). A run
 * ends when its job does: Succeeded or Failed (noteRunFinished, once the status saying so is saved), or
 * deleted before that (noteRunEnded at the deletion, "Deleted while Running after 3 restarts").
 */

const runOf = (ctx: JobContext) => ({
  uid: ctx.job.uid,
  namespace: ctx.job.ref.namespace,
  jobName: ctx.job.ref.name,
  createdAt: ctx.job.createdAt,
});

export async function noteRunStarted(ctx: JobContext): Promise<void> {
  await ctx.deps.jobRuns?.started(runOf(ctx));
}

const restarts = (count: number) => `${count} ${count === 1 ? "restart" : "restarts"}`;

/** How the run ended, in words a user reads in Past runs: the phase and its reason. */
export function runEnding(ctx: JobContext): { endedAt: Date; phase: string; reason: string } {
  const { phase } = ctx.state;
  const count = ctx.status.restartCount ?? 0;
  const completion = ctx.status.completionTime ? Date.parse(ctx.status.completionTime) : Number.NaN;
  const finishedAt = new Date(Number.isFinite(completion) ? completion : ctx.now);
  if (phase === "Succeeded")
    return { endedAt: finishedAt, phase, reason: `All ranks finished after ${restarts(count)}` };
  if (phase === "Failed") return { endedAt: finishedAt, phase, reason: statusReason(ctx.status) ?? "Failed" };
  return {
    endedAt: new Date(ctx.now),
    phase: "Deleted",
    reason: `Deleted while ${phase} after ${restarts(count)}`,
  };
}

/** A finished job's run ends now, not when the job is deleted; written once per operator process. */
export async function noteRunFinished(ctx: JobContext): Promise<void> {
  if (ctx.state.phase !== "Succeeded" && ctx.state.phase !== "Failed") return;
  const key = `${ctx.job.uid}:run-ended`;
  if (!ctx.deps.jobRuns || ctx.deps.ledger.has(key)) return;
  await ctx.deps.jobRuns.ended({ ...runOf(ctx), ...runEnding(ctx) });
  ctx.deps.ledger.add(key);
}

/** On deletion: how the run ended, unless it ended already (its job finished). */
export async function noteRunEnded(ctx: JobContext): Promise<void> {
  await ctx.deps.jobRuns?.ended({ ...runOf(ctx), ...runEnding(ctx) });
}
