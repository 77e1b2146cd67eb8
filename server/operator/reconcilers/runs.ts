import type { JobContext } from "./deps";

/** The job's run (its uid) in the runs table, so past runs of a name stay reachable (JobRunStore). */

const runOf = (ctx: JobContext) => ({
  uid: ctx.job.uid,
  namespace: ctx.job.ref.namespace,
  jobName: ctx.job.ref.name,
  createdAt: ctx.job.createdAt,
});

export async function noteRunStarted(ctx: JobContext): Promise<void> {
  await ctx.deps.jobRuns?.started(runOf(ctx));
}

/** On deletion: the phase the run ended in and the reason of its last true condition. */
export async function noteRunEnded(ctx: JobContext): Promise<void> {
  const last = (ctx.status.conditions ?? []).filter((condition) => condition.status === "True").at(-1);
  await ctx.deps.jobRuns?.ended({
    ...runOf(ctx),
    endedAt: new Date(ctx.now),
    phase: ctx.state.phase,
    reason: (last?.message || last?.reason) ?? null,
  });
}
