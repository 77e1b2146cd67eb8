import { onFailure, restartsWithoutProgressLimit } from "@/server/domain/recovery/crash-loop";
import { event, type JobContext } from "./deps";
import { setCondition } from "./job-state";
import { dropRecovery } from "./record";
import { deleteAllPods, ensurePods, shutdownAgents, startAgents, stopAgents } from "./steps";

/** Phases around recovery: first start, completion, failure, suspension, finished-job cleanup, deletion. */

const deadKey = (name: string, createdAt: number) => `${name}@${createdAt}`;

/**
 * A pod that died before the job ran (its agent exited at start): a start failure, backed off as
 * CrashLoopBackOff, and failing the job past the limit of restarts without progress. Returns true while
 * the job waits (a back-off, or the job failed).
 */
async function backOffStartFailures(ctx: JobContext): Promise<boolean> {
  const loop = ctx.state.crashLoop;
  const dead = ctx.obs.pods.flatMap((view) =>
    view.pod && (view.pod.phase === "Failed" || view.pod.phase === "Succeeded")
      ? [{ name: view.expected.name, key: deadKey(view.expected.name, view.pod.createdAt) }]
      : [],
  );
  const fresh = dead.filter((pod) => !loop.counted?.includes(pod.key));
  if (fresh.length > 0) {
    const names = fresh.map((pod) => pod.name).join(", ");
    const limit = restartsWithoutProgressLimit(ctx.job.object.metadata.annotations);
    const decision = onFailure({
      state: loop,
      progressed: false,
      limit: limit.ok ? limit.limit : 0,
      cause: `pod ${names} exited before the job ran`,
    });
    ctx.state.crashLoop = {
      ...loop,
      restartsWithoutProgress: decision.state.restartsWithoutProgress,
      counted: dead.map((pod) => pod.key),
      notBefore: decision.action === "restart" ? ctx.now + decision.delayMs : null,
    };
    if (decision.action === "fail") {
      await failJob(ctx, { reason: "CrashLoop", message: decision.reason });
      return true;
    }
    const seconds = Math.round(decision.delayMs / 1000);
    await event(
      ctx,
      "Warning",
      "BackOff",
      `Pod ${names} exited before the job ran; starting it again ${seconds > 0 ? `in ${seconds} s` : "now"} (${decision.state.restartsWithoutProgress} in a row without progress)`,
    );
  }
  const notBefore = ctx.state.crashLoop.notBefore;
  return notBefore !== null && ctx.now < notBefore && dead.length > 0;
}

/**
 * Pods the operator stopped on purpose when it was stopped (the local back end keeps them as such): they
 * are started again as the job's first start is, with no fault recorded and the retry budget untouched.
 */
export async function resumeStoppedPods(ctx: JobContext): Promise<void> {
  const stopped = ctx.deps.backend.stoppedPods?.(ctx.job.ref) ?? [];
  const wanted = new Set(ctx.obs.pods.filter((view) => !view.pod).map((view) => view.expected.name));
  const resumed = stopped.filter((name) => wanted.has(name));
  if (resumed.length === 0) return;
  const { phase } = ctx.state;
  if (phase === "Starting") return;
  if (phase !== "Running" && phase !== "Recovering") {
    // Nothing to resume (finished or suspended): the records go.
    await forgetStoppedPods(ctx);
    return;
  }
  await dropRecovery(ctx, "the operator was stopped while restarting");
  ctx.state = { ...ctx.state, phase: "Starting", since: ctx.now, recovery: null, rendezvous: null };
  ctx.status = setCondition(
    ctx.status,
    { type: "Running", status: "False", reason: "Resumed", message: "Resumed after the operator restarted" },
    ctx.now,
  );
  await event(
    ctx,
    "Normal",
    "Resumed",
    `Resumed after the operator restarted: pod(s) ${resumed.join(", ")} were stopped with it`,
  );
}

async function forgetStoppedPods(ctx: JobContext): Promise<void> {
  for (const name of ctx.deps.backend.stoppedPods?.(ctx.job.ref) ?? [])
    await ctx.deps.backend.deletePod(ctx.job.ref, name);
}

export async function progressStart(ctx: JobContext): Promise<void> {
  if (await backOffStartFailures(ctx)) return;
  const unplaced = await ensurePods(ctx, { avoidNodes: [], preferNode: null });
  if (unplaced > 0) {
    ctx.status = setCondition(
      ctx.status,
      {
        type: "PodsRunning",
        status: "False",
        reason: "Unschedulable",
        message: `${unplaced} pod(s) wait for a node with room`,
      },
      ctx.now,
    );
    return;
  }
  const states = ctx.obs.pods.map((view) => (view.agent.kind === "status" ? view.agent.status.status : null));
  if (states.some((state) => state === "init" || state === null)) return;
  // A restarted operator may find agents still running a previous attempt: bring them back to READY first.
  if (!ctx.state.rendezvous && states.some((state) => state !== "ready") && !(await stopAgents(ctx))) return;
  ctx.status = setCondition(
    ctx.status,
    { type: "PodsRunning", status: "True", reason: "PodsRunning" },
    ctx.now,
  );
  if (!(await startAgents(ctx))) return;
  ctx.state.phase = "Running";
  ctx.state.since = ctx.now;
  ctx.status = setCondition(ctx.status, { type: "Running", status: "True", reason: "Running" }, ctx.now);
  ctx.status.startTime ??= new Date(ctx.now).toISOString();
  await event(ctx, "Normal", "Running", `All ${ctx.obs.pods.length} pods are running`);
}

async function applyCleanPodPolicy(ctx: JobContext, outcome: "Succeeded" | "Failed"): Promise<void> {
  const policy = ctx.job.object.spec.runPolicy?.cleanPodPolicy ?? "All";
  if (policy === "All" || (policy === "OnlyComplete" && outcome === "Succeeded")) await deleteAllPods(ctx);
}

export async function completeJob(ctx: JobContext): Promise<void> {
  await shutdownAgents(ctx);
  ctx.state.phase = "Succeeded";
  ctx.state.since = ctx.now;
  ctx.status = setCondition(ctx.status, { type: "Running", status: "False", reason: "Completed" }, ctx.now);
  ctx.status = setCondition(ctx.status, { type: "Completed", status: "True", reason: "Completed" }, ctx.now);
  ctx.status.completionTime = new Date(ctx.now).toISOString();
  ctx.deps.metrics.successful.inc({ namespace: ctx.job.ref.namespace });
  await event(ctx, "Normal", "Completed", "All ranks finished");
  await applyCleanPodPolicy(ctx, "Succeeded");
}

export async function failJob(ctx: JobContext, failure: { reason: string; message: string }): Promise<void> {
  await shutdownAgents(ctx);
  await dropRecovery(ctx, `the job failed while restarting: ${failure.message}`);
  ctx.state.phase = "Failed";
  ctx.state.since = ctx.now;
  ctx.status = setCondition(
    ctx.status,
    { type: "Running", status: "False", reason: failure.reason, message: failure.message },
    ctx.now,
  );
  ctx.status = setCondition(ctx.status, { type: "Failed", status: "True", ...failure }, ctx.now);
  ctx.status.completionTime = new Date(ctx.now).toISOString();
  ctx.deps.metrics.failed.inc({ namespace: ctx.job.ref.namespace });
  await event(ctx, "Warning", "Failed", failure.message);
  await applyCleanPodPolicy(ctx, "Failed");
}

export async function suspendJob(ctx: JobContext): Promise<void> {
  await deleteAllPods(ctx);
  if (ctx.state.phase === "Suspended") return;
  await dropRecovery(ctx, "the job was suspended while restarting");
  ctx.state = { ...ctx.state, phase: "Suspended", since: ctx.now, recovery: null, rendezvous: null };
  ctx.status = setCondition(ctx.status, { type: "Running", status: "False", reason: "Suspended" }, ctx.now);
  ctx.status = setCondition(ctx.status, { type: "Suspended", status: "True", reason: "Suspended" }, ctx.now);
  await event(ctx, "Normal", "Suspended", "runPolicy.suspend is true: the job's pods were deleted");
}

export async function resumeJob(ctx: JobContext): Promise<void> {
  ctx.state = { ...ctx.state, phase: "Starting", since: ctx.now, rendezvous: null };
  ctx.status = setCondition(ctx.status, { type: "Suspended", status: "False", reason: "Resumed" }, ctx.now);
  await event(ctx, "Normal", "Resumed", "runPolicy.suspend is false: starting the job again");
}

/** Deletes the job once ttlSecondsAfterFinished has passed; returns ms until then (or null: never). */
export async function expireFinished(ctx: JobContext): Promise<number | null> {
  const ttl = ctx.job.object.spec.runPolicy?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl < 0) return null;
  const left = ctx.state.since + ttl * 1000 - ctx.now;
  if (left > 0) return left;
  await ctx.deps.backend.requestDeletion(ctx.job.ref);
  return null;
}

export async function finalizeDeletion(ctx: JobContext): Promise<void> {
  await shutdownAgents(ctx);
  await deleteAllPods(ctx);
  await forgetStoppedPods(ctx);
  await dropRecovery(ctx, "the job was deleted while restarting");
  await ctx.deps.backend.finalizeDeletion(ctx.job.ref);
  ctx.deps.metrics.deleted.inc({ namespace: ctx.job.ref.namespace });
}
