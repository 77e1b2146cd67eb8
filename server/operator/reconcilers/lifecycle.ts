import { randomUUID } from "node:crypto";
import { backoffDelayMs, onFailure, restartsWithoutProgressLimit } from "@/server/domain/recovery/crash-loop";
import { event, type JobContext, saveStatus } from "./deps";
import { type PendingRecord, setCondition } from "./job-state";
import { completeRecord, dropRecovery, ownDecision, writeRecord } from "./record";
import { deleteAllPods, ensurePods, shutdownAgents, startAgents, stopAgents } from "./steps";

/** Phases around recovery: first start, completion, failure, suspension, finished-job cleanup, deletion. */

const deadKey = (name: string, createdAt: number) => `${name}@${createdAt}`;

/** A start failure's fault reason on the restart timeline (its Warning event's reason too). */
export const START_FAILURE = "StartFailure";
/** How long after a pod's exit its agent's own words (the AgentExited event) are still looked for. */
const EXIT_WORDS_MS = 5_000;

/** finishedAt is the back end's, or the time it was first seen stopped (exitKnown false). */
type DeadPod = { name: string; key: string; createdAt: number; finishedAt: number; exitKnown: boolean };

/**
 * What the back end said of these pods' exit (the local back end's AgentExited event: exit code and the
 * last lines of that attempt's output), the newest; null when it said nothing (yet).
 */
async function exitWords(ctx: JobContext, pods: readonly DeadPod[]): Promise<string | null> {
  const since = Math.min(...pods.map((pod) => pod.createdAt));
  const events = await ctx.deps.backend.listEvents(ctx.job.ref).catch(() => []);
  let found: { at: number; message: string } | null = null;
  for (const candidate of events) {
    if (candidate.reason !== "AgentExited" || candidate.at < since) continue;
    if (!pods.some((pod) => candidate.message.includes(`pod ${pod.name} `))) continue;
    if (!found || candidate.at >= found.at) found = candidate;
  }
  return found?.message ?? null;
}

const backOffHead = (names: string, seconds: number, inARow: number) =>
  `Pod ${names} exited before the job ran; starting it again ${seconds > 0 ? `in ${seconds} s` : "now"} (${inARow} in a row without progress)`;

/** PodsRunning False with reason BackOff: the job's status says why nothing runs, at once. */
function setBackOff(ctx: JobContext, message: string): void {
  ctx.status = setCondition(
    ctx.status,
    { type: "PodsRunning", status: "False", reason: "BackOff", message },
    ctx.now,
  );
}

/**
 * The start failure's row, event and (past the limit) the job's failure, written exactly once as a fault's
 * are (recovery.ts decide): saved in status first, then carried out. Failures in a row fold into one row
 * with a count (`repeat`); the failure that fails the job completes that row as failed.
 */
async function recordStartFailure(
  ctx: JobContext,
  input: { fresh: readonly DeadPod[]; message: string; fail: { reason: string; message: string } | null },
): Promise<void> {
  const { fresh, message, fail } = input;
  const open = ctx.state.crashLoop.startRow ?? null;
  const now = ctx.deps.clock();
  const record: PendingRecord = {
    id: randomUUID(),
    ranks: [],
    pods: fresh.map((pod) => pod.name),
    node: null,
    reason: START_FAILURE,
    faultAt: Math.min(...fresh.map((pod) => pod.finishedAt)),
    detectedAt: now,
    action: fail ? "FAIL" : "POD_REPLACEMENT",
    message: fail ? fail.message : message,
    event: { type: "Warning", message: fail ? fail.message : message },
    detection: true,
    fail,
    repeat: !fail && open !== null,
    supersedes: fail && open ? { id: open, message: "the crash loop failed the job" } : null,
  };
  ctx.state.crashLoop = { ...ctx.state.crashLoop, startRow: fail ? null : record.id };
  ownDecision(ctx, record.id);
  ctx.state.record = record;
  await saveStatus(ctx);
  await writeRecord(ctx, record);
  if (fail) await failJob(ctx, fail);
  ctx.state.record = null;
}

/** The job runs after start failures: their row is over, recovered. */
async function endStartFailures(ctx: JobContext): Promise<void> {
  const id = ctx.state.crashLoop.startRow;
  if (!id) return;
  // The last failure's back-off ended at notBefore: its delay, before then, was waiting, not recovering.
  const loop = ctx.state.crashLoop;
  const waitMs = loop.notBefore === null ? 0 : backoffDelayMs(loop.restartsWithoutProgress);
  const message = `The job's pods started and run after failing to start.${waitMs > 0 ? ` ${Math.round(waitMs / 1000)} s of it was the crash-loop back-off's wait.` : ""}`;
  await completeRecord(ctx, id, { outcome: "recovered", recoveredAt: new Date(ctx.now), message, waitMs });
  ctx.state.crashLoop = { ...ctx.state.crashLoop, startRow: null };
}

/** How long a stopped pod's failure waits for the back end's words about its exit before it counts without. */
const EXIT_WORDS_GRACE_MS = 2000;

/**
 * A pod that died before the job ran (its agent exited at start): a start failure, backed off as
 * CrashLoopBackOff, and failing the job past the limit of restarts without progress. Each is on the
 * restart timeline and in PodsRunning's reason at once, with the agent's own words where the back end
 * has them. Returns true while the job waits (a back-off, or the job failed).
 */
async function backOffStartFailures(ctx: JobContext): Promise<boolean> {
  const dead = deadPods(ctx);
  const fresh = dead.filter((pod) => !ctx.state.crashLoop.counted?.includes(pod.key));
  if (fresh.length > 0) {
    const words = await exitWords(ctx, fresh);
    // The back end writes the agent's words (its AgentExited event) just after the pod is seen stopped: a
    // failure counted in between would say only "exited", and the one that fails the job is never
    // completed later (addExitWords completes back-offs only). Waited for a moment; the job is looked at
    // again every poll while it starts.
    const justExited = fresh.some((pod) => pod.exitKnown && ctx.now - pod.finishedAt < EXIT_WORDS_GRACE_MS);
    if (words === null && justExited) return true;
    if (await countStartFailure(ctx, { fresh, dead, words })) return true;
  } else if (dead.length > 0) await addExitWords(ctx, dead);
  const notBefore = ctx.state.crashLoop.notBefore;
  return notBefore !== null && ctx.now < notBefore && dead.length > 0;
}

/** The job's pods that stopped (their agent exited). */
function deadPods(ctx: JobContext): DeadPod[] {
  return ctx.obs.pods.flatMap((view) =>
    view.pod && (view.pod.phase === "Failed" || view.pod.phase === "Succeeded")
      ? [
          {
            name: view.expected.name,
            key: deadKey(view.expected.name, view.pod.createdAt),
            createdAt: view.pod.createdAt,
            finishedAt: view.pod.finishedAt ?? ctx.now,
            exitKnown: view.pod.finishedAt !== undefined && view.pod.finishedAt !== null,
          },
        ]
      : [],
  );
}

/** Counts new start failures: a back-off (its reason and row), or the job failed; true when it failed. */
async function countStartFailure(
  ctx: JobContext,
  pods: { fresh: readonly DeadPod[]; dead: readonly DeadPod[]; words: string | null },
): Promise<boolean> {
  const { fresh, dead, words } = pods;
  const loop = ctx.state.crashLoop;
  const names = fresh.map((pod) => pod.name).join(", ");
  const limit = restartsWithoutProgressLimit(ctx.job.object.metadata.annotations);
  const decision = onFailure({
    state: loop,
    progressed: false,
    limit: limit.ok ? limit.limit : 0,
    cause: words ?? `pod ${names} exited before the job ran`,
  });
  ctx.state.crashLoop = {
    ...loop,
    restartsWithoutProgress: decision.state.restartsWithoutProgress,
    counted: dead.map((pod) => pod.key),
    notBefore: decision.action === "restart" ? ctx.now + decision.delayMs : null,
  };
  if (decision.action === "fail") {
    const fail = { reason: "CrashLoop", message: decision.reason };
    await recordStartFailure(ctx, { fresh, message: decision.reason, fail });
    return true;
  }
  // The pod created again is a restart the operator makes (HyperPod counts a failed pod's as one).
  ctx.status = { ...ctx.status, restartCount: (ctx.status.restartCount ?? 0) + 1 };
  const head = backOffHead(
    names,
    Math.round(decision.delayMs / 1000),
    decision.state.restartsWithoutProgress,
  );
  const message = words ? `${head}: ${words}` : head;
  setBackOff(ctx, message);
  await recordStartFailure(ctx, { fresh, message, fail: null });
  return false;
}

/** The back end's words about the exit came after the reason was set (an event written meanwhile): added. */
async function addExitWords(ctx: JobContext, dead: readonly DeadPod[]): Promise<void> {
  const condition = ctx.status.conditions?.find((c) => c.type === "PodsRunning");
  if (
    condition?.reason !== "BackOff" ||
    condition.status !== "False" ||
    (condition.message ?? "").includes(": ")
  )
    return;
  if (dead.every((pod) => ctx.now - pod.finishedAt > EXIT_WORDS_MS)) return;
  const words = await exitWords(ctx, dead);
  if (words) setBackOff(ctx, `${condition.message}: ${words}`);
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
  await endStartFailures(ctx);
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
