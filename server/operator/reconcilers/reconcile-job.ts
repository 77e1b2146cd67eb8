import { jobKey, parseJobKey } from "@/server/cluster/types";
import type { JobPhase } from "@/server/domain/operator-api/contract";
import { madeProgress, restartsWithoutProgressLimit } from "@/server/domain/recovery/crash-loop";
import { checkDeadlines, type DeadlinePhase } from "@/server/domain/recovery/deadlines";
import { AppError } from "@/server/errors";
import { shadowObservation } from "@/server/operator/shadow/observation";
import type { HandlerResult } from "@/server/operator/workqueue";
import { applyAdmission, releaseAdmission } from "./admission";
import { event, type JobContext, type OperatorDeps, ranksPerNode, saveStatus } from "./deps";
import { allCompleted, type DetectOptions, detectDrift, detectFault } from "./detect";
import { faultyScaleDown, liveElastic, settleElastic, sizedJob, stepElastic } from "./elastic";
import { backOffUntil, displayStatus, readState, setCondition, statusReason, withState } from "./job-state";
import {
  completeJob,
  expireFinished,
  failJob,
  finalizeDeletion,
  progressStart,
  resumeJob,
  resumeStoppedPods,
  suspendJob,
} from "./lifecycle";
import { beginManualRestart } from "./manual-restart";
import { type ObservedPod, observe } from "./observe";
import { trackProgress } from "./progress";
import { reportedRanks } from "./ranks";
import { advanceRecovery, beginRecovery, carryOutDecision, inBackOff } from "./recovery";
import { noteRunEnded, noteRunFinished, noteRunStarted } from "./runs";

/**
 * reconcile(key): read the job as it is now, look at its pods, nodes and agents, take the next step, write
 * status once. Level-triggered and idempotent: everything it needs to continue is in the job's status, so a
 * restarted operator picks up mid-recovery without a second restart.
 */

const DEADLINE_PHASE: Record<JobPhase, DeadlinePhase> = {
  // Waiting for admission, as a suspended job waits: no deadline runs (Kueue suspends such a job).
  Pending: "Suspended",
  Starting: "Starting",
  Running: "Running",
  Recovering: "Fault",
  Suspended: "Suspended",
  Succeeded: "Completed",
  Failed: "Failed",
};

function agentMessage(ctx: JobContext, podName: string): string | undefined {
  const view = ctx.obs.pods.find((candidate) => candidate.expected.name === podName);
  return view?.agent.kind === "status" ? view.agent.status.message : undefined;
}

/** Per view (kept between reconciles, observe.ts): when its ranks last printed a step (NaN: never). */
const lastStepLines = new WeakMap<ObservedPod, number>();

function lastStepLine(view: ObservedPod): number {
  let at = lastStepLines.get(view);
  if (at === undefined) {
    const printed = reportedRanks(view)
      .filter((rank) => rank.step !== null)
      .map((rank) => Date.parse(rank.last_line_at ?? ""))
      .filter(Number.isFinite);
    at = printed.length > 0 ? Math.max(...printed) : Number.NaN;
    lastStepLines.set(view, at);
  }
  return at;
}

/** A rank printed a step since the job (re)started running. */
function stepPrinted(ctx: JobContext): boolean {
  return ctx.obs.pods.some((view) => lastStepLine(view) >= ctx.state.since);
}

/** Progress resets the crash-loop count at the next failure (server/domain/recovery/crash-loop.ts). */
function noteProgress(ctx: JobContext): void {
  const loop = ctx.state.crashLoop;
  if (loop.progressed) return;
  if (madeProgress({ runningSince: ctx.state.since, now: ctx.now, stepPrinted: stepPrinted(ctx) }))
    ctx.state.crashLoop = { ...loop, progressed: true };
}

async function stepRunning(ctx: JobContext, options: DetectOptions): Promise<void> {
  if (allCompleted(ctx.obs)) return completeJob(ctx);
  noteProgress(ctx);
  await trackProgress(ctx);
  // An elastic job's scaling under way takes the step (its ranks stop and start on purpose: not a fault).
  if ((await stepElastic(ctx)).handled) return;
  const request = ctx.deps.requests.take(jobKey(ctx.job.ref));
  if (request) return beginManualRestart(ctx, request);
  const fault = detectFault(ctx.obs, options);
  if (fault) return beginRecovery(ctx, fault, agentMessage(ctx, fault.pods[0] ?? ""));
  // An agent stopped (or its ranks) by someone else: recovered as a crash (drift.ts).
  const drift = detectDrift(ctx.obs, options);
  if (drift) await beginRecovery(ctx, drift.fault, drift.message);
}

/** While agents restart, a new fault means this restart failed: it is decided afresh (and superseded). */
async function stepRecovering(ctx: JobContext, options: DetectOptions): Promise<void> {
  // Failed replicas not back in time: an elastic job scales down instead (faultyScaleDownTimeoutInSeconds).
  if (await faultyScaleDown(ctx)) return;
  const starting = ctx.state.recovery?.stage === "starting" && !inBackOff(ctx);
  const fault = starting ? detectFault(ctx.obs, options) : null;
  if (!fault) return advanceRecovery(ctx);
  await beginRecovery(ctx, fault, agentMessage(ctx, fault.pods[0] ?? ""));
}

async function step(ctx: JobContext): Promise<void> {
  const { config } = ctx.deps;
  const detectOptions = {
    agentTimeoutMs: config.agentTimeoutMs,
    ranksPerNode: ctx.ranksPerNode,
    podStartGraceMs: config.podStartGraceMs,
  };
  switch (ctx.state.phase) {
    case "Pending":
      return;
    case "Starting":
      await progressStart(ctx);
      return;
    case "Running":
      return stepRunning(ctx, detectOptions);
    case "Recovering":
      return stepRecovering(ctx, detectOptions);
    case "Suspended":
      return resumeJob(ctx);
    case "Succeeded":
    case "Failed":
      return;
    default:
      return ctx.state.phase satisfies never;
  }
}

const FINISHED: ReadonlySet<JobPhase> = new Set(["Succeeded", "Failed"]);
/** Phases in which an elastic job holds no scaling steps and starts again at minReplicas. */
const NOT_RUNNING: ReadonlySet<JobPhase> = new Set(["Pending", "Suspended", "Succeeded", "Failed"]);

async function markCreated(ctx: JobContext): Promise<void> {
  if ((ctx.status.conditions ?? []).some((condition) => condition.type === "Created")) return;
  ctx.status = setCondition(ctx.status, { type: "Created", status: "True", reason: "Created" }, ctx.now);
  // Saved first: a reconcile that fails later (a pod that cannot be created) does not repeat the event.
  await saveStatus(ctx);
  ctx.deps.metrics.created.inc({ namespace: ctx.job.ref.namespace });
  await event(ctx, "Normal", "Created", "Created by the Rebound operator");
  await noteRunStarted(ctx);
}

/**
 * A reconcile that threw: a pod the back end refuses (INVALID: the spec cannot run, so the job fails with
 * the reason) or a passing failure (retried by the work queue; the job shows the reason meanwhile).
 * Returns the error to rethrow, or null when it was handled.
 */
async function onReconcileError(ctx: JobContext, error: unknown): Promise<unknown> {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AppError && error.code === "INVALID" && !FINISHED.has(ctx.state.phase)) {
    await failJob(ctx, { reason: "PodCreationRefused", message });
    return null;
  }
  if (ctx.state.phase === "Starting") {
    ctx.status = setCondition(
      ctx.status,
      { type: "PodsRunning", status: "False", reason: "ReconcileError", message },
      ctx.now,
    );
  }
  await event(ctx, "Warning", "ReconcileError", message).catch(() => undefined);
  return error;
}

/** The annotation that bounds restarts without progress is read before anything runs with it. */
async function checkAnnotations(ctx: JobContext): Promise<boolean> {
  const limit = restartsWithoutProgressLimit(ctx.job.object.metadata.annotations);
  if (limit.ok) return true;
  await failJob(ctx, { reason: "InvalidAnnotation", message: limit.reason });
  return false;
}

/** A job waiting for admission is woken by the admission; one stopping for a preemption is polled. */
const whileNotAdmitted = (ctx: JobContext) => (ctx.state.preemption ? ctx.deps.config.pollMs : undefined);

/** Takes this reconcile's step; returns when to look again (undefined: only on the next change). */
async function advance(ctx: JobContext): Promise<number | undefined> {
  const { job, now } = ctx;
  if (job.object.spec.runPolicy?.suspend) {
    await suspendJob(ctx);
    await releaseAdmission(ctx);
    return undefined;
  }
  if (FINISHED.has(ctx.state.phase)) {
    await releaseAdmission(ctx);
    return (await expireFinished(ctx)) ?? undefined;
  }
  if (!(await checkAnnotations(ctx))) return undefined;
  if (!(await applyAdmission(ctx))) return whileNotAdmitted(ctx);
  const exceeded = checkDeadlines({
    runPolicy: job.object.spec.runPolicy,
    phase: DEADLINE_PHASE[ctx.state.phase],
    phaseSince: ctx.state.since,
    startTime: job.status.startTime ? Date.parse(job.status.startTime) : null,
    now,
  });
  if (exceeded) await failJob(ctx, { reason: exceeded.deadline, message: exceeded.reason });
  else await step(ctx);
  // Its capacity goes back to the queue at once, not at the job's next reconcile.
  if (FINISHED.has(ctx.state.phase)) await releaseAdmission(ctx);
  return nextLook(ctx);
}

/**
 * While a restart is under way the agents change state within tens of milliseconds (workers exit, the
 * agent turns READY, /start is taken), so the job is looked at again soon instead of after a full poll:
 * each poll interval spent waiting there is added to the restart as a whole.
 */
const RECOVERY_POLL_MS = 20;

/**
 * A running job whose agents all push is woken by its agents (a state change, a silence, progress once a
 * second: server/operator/presence); this slow resync remains as a safety net.
 */
export const PUSHED_RESYNC_MS = 5000;

/** Polled agents cost ~0.25 CPU-ms a poll: past pollMs / this many, the interval grows with their count. */
const POLL_INTERVAL_PER_AGENT_MS = 1;

/** When a running job looks again: its polled agents' interval, or the pushed resync (or its deadline). */
function runningLook(ctx: JobContext): number {
  const { pollMs } = ctx.deps.config;
  const polled = ctx.obs.polled ?? ctx.obs.pods.length;
  if (polled > 0) return Math.max(pollMs, polled * POLL_INTERVAL_PER_AGENT_MS);
  const deadline = ctx.job.object.spec.runPolicy?.activeDeadlineSeconds;
  const startTime = ctx.job.status.startTime ? Date.parse(ctx.job.status.startTime) : null;
  if (deadline == null || startTime === null) return PUSHED_RESYNC_MS;
  const left = startTime + deadline * 1000 - ctx.now;
  return Math.max(pollMs, Math.min(PUSHED_RESYNC_MS, left));
}

function nextLook(ctx: JobContext): number {
  const { pollMs } = ctx.deps.config;
  const busy = ctx.state.phase === "Recovering" || (ctx.state.elastic?.scaling ?? null) !== null;
  if (busy) return Math.min(pollMs, RECOVERY_POLL_MS);
  return ctx.state.phase === "Running" ? runningLook(ctx) : pollMs;
}

export async function reconcileJob(deps: OperatorDeps, key: string): Promise<HandlerResult> {
  const ref = parseJobKey(key);
  const job = await deps.backend.getJob(ref);
  if (!job) {
    deps.presence?.forgetJob(key);
    deps.live.forget(key);
    deps.shadow?.forget(ref);
    deps.admission?.forget?.(key);
    return undefined;
  }
  const now = deps.clock();
  const state = readState(job.status, now);
  // An elastic job is seen at the size its pods exist for (server/operator/reconcilers/elastic.ts).
  const sized = sizedJob(job, state);
  const obs = await observe({
    backend: deps.backend,
    agents: deps.agents,
    failures: deps.failures,
    job: sized,
    now,
    clock: deps.clock,
    presence: deps.presence,
    metrics: deps.metrics,
  });
  const ctx: JobContext = {
    deps,
    job: sized,
    obs,
    status: job.status,
    state,
    saved: job.status,
    now,
    ranksPerNode: ranksPerNode(job, obs),
  };
  // A decision saved by a reconcile that failed (or an operator that died) before carrying it out.
  await carryOutDecision(ctx);
  if (job.deleting) {
    await noteRunEnded(ctx);
    await finalizeDeletion(ctx);
    await deps.admission?.release(job);
    deps.presence?.forgetJob(key);
    deps.live.forget(key);
    deps.shadow?.forget(ref);
    return undefined;
  }
  let requeueAfterMs: number | undefined;
  let failure: unknown = null;
  try {
    await markCreated(ctx);
    await resumeStoppedPods(ctx);
    requeueAfterMs = await advance(ctx);
    if (NOT_RUNNING.has(ctx.state.phase)) await settleElastic(ctx);
  } catch (error) {
    failure = await onReconcileError(ctx, error);
  }
  // Only a change is written: a write per reconcile would cost an etcd write and a watch event.
  const next = await saveStatus(ctx).catch((error: unknown) => {
    failure ??= error;
    return withState(ctx.status, ctx.state);
  });
  // A finished job's run ends once its status says so, not when the job is deleted (runs.ts).
  if (failure === null) await noteRunFinished(ctx).catch((error: unknown) => (failure = error));
  // Listed from its first reconcile, also when that reconcile failed (its status says why).
  const backOff = backOffUntil(ctx.state, deps.clock());
  deps.live.update(key, {
    obs: ctx.obs,
    phase: ctx.state.phase,
    status: displayStatus(next, backOff),
    reason: statusReason(next),
    backOffUntil: backOff,
    recovery: ctx.state.recovery,
    restartCount: next.restartCount ?? 0,
    ranksPerNode: ctx.ranksPerNode,
    admission: ctx.state.admission,
  });
  const live = deps.live.get(key);
  if (live) live.elastic = liveElastic(ctx);
  deps.shadow?.observe(shadowObservation(ctx));
  if (failure !== null) throw failure;
  return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
}
