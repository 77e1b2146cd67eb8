import type { ClusterJob } from "@/server/cluster/types";
import {
  decideScaling,
  initialMemory,
  type ScalingInput,
  type ScalingMemory,
  scalingTimers,
} from "@/server/domain/elastic/scaling";
import { initialSize, jobAtSize, sizesOf, totalReplicas } from "@/server/domain/elastic/sized-job";
import { replicasBySpec } from "@/server/domain/elastic/sizes";
import type { ElasticScalingStatus } from "@/server/domain/job-spec/job-status.schema";
import type { LiveJob } from "@/server/domain/operator-api/contract";
import { event, type JobContext, saveStatus } from "./deps";
import { elasticScalingStep, failedScaling } from "./elastic-scaling";
import { writeJobPods } from "./job-pods";
import type { ElasticState, ReboundState } from "./job-state";
import { DEFAULT_GRACEFUL_TIMEOUT_SECONDS } from "./preemption";

/**
 * Elastic training (docs/hyperpod-compatibility.md, "Elastic training"): an elastic job runs at one of its
 * allowed sizes; the state machine (server/domain/elastic/scaling.ts) decides when to grow into capacity
 * governance admits, and when to shrink (a preemption of one of its steps, or failed replicas not back in
 * time); elastic-scaling.ts carries a scaling out: new pods up READY, graceful stop (SIGUSR1, SIGKILL only
 * after the graceful timeout), re-rank, restart at the new world size.
 */

type ElasticPolicy = NonNullable<ClusterJob["object"]["spec"]["elasticPolicy"]>;
type ScalingFault = NonNullable<NonNullable<ElasticState["scaling"]>["fault"]>;

export function policyOf(job: ClusterJob): ElasticPolicy | null {
  return job.object.spec.elasticPolicy ?? null;
}

/**
 * The world size the job's pods exist for now: during a scaling, the larger of its two sizes until the stop is
 * done. A job not started yet starts at `replicas` (initialSize) when it is not governed, as HyperPod without
 * Kueue does; a governed job (its admission is on record before its first pod is made) starts at
 * minReplicas, which is what its own admission covers, and asks for the steps above it once running.
 */
export function podsSize(job: ClusterJob, state: ReboundState): number | null {
  const policy = policyOf(job);
  if (!policy) return null;
  const elastic = state.elastic;
  if (!elastic) return state.admission ? policy.minReplicas : initialSize(job.object);
  const scaling = elastic.scaling;
  if (!scaling) return elastic.size;
  return scaling.stage === "restarting" ? scaling.to : Math.max(scaling.from, scaling.to);
}

/** The job as its pods exist now (an elastic job at its size; any other job as it is). */
export function sizedJob(job: ClusterJob, state: ReboundState): ClusterJob {
  const size = podsSize(job, state);
  return size === null ? job : { ...job, object: jobAtSize(job.object, size) };
}

export function gracefulSeconds(job: ClusterJob): number {
  return policyOf(job)?.gracefulShutdownTimeoutInSeconds ?? DEFAULT_GRACEFUL_TIMEOUT_SECONDS;
}

function memoryOf(state: ElasticState): ScalingMemory {
  const { size, lastScalingAt, lastRestartAt, failures, lastFailureAt, upSince } = state;
  return { size, lastScalingAt, lastRestartAt, failures, lastFailureAt, upSince };
}

export function ensureElasticState(ctx: JobContext): ElasticState | null {
  const policy = policyOf(ctx.job);
  if (!policy) return null;
  // ctx.job is the job at the size its pods were made for (podsSize): that is where it starts.
  const start = ctx.state.admission ? policy.minReplicas : totalReplicas(ctx.job.object);
  ctx.state.elastic ??= { ...initialMemory(start), why: null, lastReason: null, scaling: null };
  // A fault's restart snoozes scale-ups (scaleUpSnoozeTimeInSeconds counts from the latest one).
  const lastRestart = ctx.state.history.at(-1)?.at ?? null;
  if (lastRestart !== null && lastRestart !== ctx.state.elastic.lastRestartAt)
    ctx.state.elastic = { ...ctx.state.elastic, lastRestartAt: lastRestart };
  return ctx.state.elastic;
}

/**
 * status.elasticWorkloadRef: the governance object holding the job's minimum (ElasticCapacity.workloadRef),
 * as HyperPod fills it for elastic jobs; written only when it changes. (status.jobPods: job-pods.ts.)
 */
function writeElasticRef(ctx: JobContext): void {
  const ref = ctx.deps.admission?.elastic?.workloadRef?.(ctx.job) ?? null;
  if (JSON.stringify(ref ?? undefined) === JSON.stringify(ctx.status.elasticWorkloadRef)) return;
  const { elasticWorkloadRef: _ref, ...rest } = ctx.status;
  ctx.status = { ...rest, ...(ref ? { elasticWorkloadRef: ref } : {}) };
}

/** status.elasticScalingStatus as HyperPod writes it; lastUpdated moves only when something else does. */
export function writeScalingStatus(ctx: JobContext): void {
  const policy = policyOf(ctx.job);
  const elastic = ctx.state.elastic;
  if (!policy || !elastic) return;
  writeJobPods(ctx);
  writeElasticRef(ctx);
  const target = elastic.scaling?.to ?? elastic.size;
  const iso = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString());
  const next: ElasticScalingStatus = {
    targetReplicas: replicasBySpec(ctx.job.object.spec.replicaSpecs, target, policy.maxReplicas),
    lastScalingTime: iso(elastic.lastScalingAt),
    lastRestartTime: iso(elastic.lastRestartAt),
    podsScaled: elastic.scaling === null,
    isFaultyPodScaleDown: (elastic.scaling?.reason ?? elastic.lastReason) === "FaultyScaleDown",
    consecutiveScalingFailures: elastic.failures,
  };
  const plain = JSON.parse(JSON.stringify(next)) as ElasticScalingStatus;
  const { lastUpdated, ...current } = ctx.status.elasticScalingStatus ?? {};
  if (JSON.stringify(current) === JSON.stringify(plain) && lastUpdated) return;
  ctx.status = {
    ...ctx.status,
    elasticScalingStatus: { ...plain, lastUpdated: new Date(ctx.now).toISOString() },
  };
}

/**
 * While the job is not running (waiting for admission, suspended, finished): it holds no steps, and starts
 * again at minReplicas. A scaling under way ends as failed.
 */
export async function settleElastic(ctx: JobContext): Promise<void> {
  const policy = policyOf(ctx.job);
  const elastic = ctx.state.elastic;
  if (!policy || !elastic) return;
  await ctx.deps.admission?.elastic?.release(ctx.job, policy.minReplicas);
  if (elastic.scaling) await failedScaling(ctx, "the job stopped running");
  if (elastic.size === policy.minReplicas && !elastic.scaling) return;
  ctx.state.elastic = { ...elastic, size: policy.minReplicas, scaling: null, upSince: null, why: null };
  writeScalingStatus(ctx);
}

function decide(
  ctx: JobContext,
  opts: { elastic: ElasticState; policy: ElasticPolicy; faulty?: ScalingInput["faulty"] },
) {
  const { elastic, policy } = opts;
  const capacity = ctx.deps.admission?.elastic;
  const sizes = sizesOf(ctx.job.object);
  const max = sizes.at(-1) ?? elastic.size;
  const snooze = ctx.job.object.spec.runPolicy?.restartPolicy?.scaleUpSnoozeTimeInSeconds;
  return decideScaling(
    memoryOf(elastic),
    {
      now: ctx.now,
      sizes,
      admitted: capacity ? capacity.admitted(ctx.job) : max,
      preemptedTo: capacity ? capacity.preempted(ctx.job) : null,
      faulty: opts.faulty ?? null,
    },
    scalingTimers({ ...policy, scaleUpSnoozeTimeInSeconds: snooze }),
  );
}

/** Pods of the job that belong to no size it runs at (an operator stopped mid-scaling) go. */
async function dropStrays(ctx: JobContext): Promise<void> {
  for (const pod of ctx.obs.strays) await ctx.deps.backend.deletePod(ctx.job.ref, pod.name);
  ctx.obs = { ...ctx.obs, strays: [] };
}

const SCALING_POLL_MS = 50;

/**
 * One reconcile of a running elastic job: carries a scaling under way one step on, or decides whether to
 * begin one. `handled`: it took the step (the usual running step is skipped); `lookInMs`: when to look again.
 */
export async function stepElastic(ctx: JobContext): Promise<{ handled: boolean; lookInMs: number | null }> {
  const elastic = ensureElasticState(ctx);
  const policy = policyOf(ctx.job);
  if (!elastic || !policy) return { handled: false, lookInMs: null };
  if (elastic.scaling) {
    await elasticScalingStep(ctx);
    writeScalingStatus(ctx);
    return { handled: true, lookInMs: SCALING_POLL_MS };
  }
  await dropStrays(ctx);
  const decision = decide(ctx, { elastic, policy });
  ctx.state.elastic = { ...elastic, ...decision.memory, why: decision.kind === "hold" ? decision.why : null };
  if (decision.kind === "scale") {
    await beginScaling(ctx, { to: decision.to, reason: decision.reason });
    writeScalingStatus(ctx);
    return { handled: true, lookInMs: SCALING_POLL_MS };
  }
  const capacity = ctx.deps.admission?.elastic;
  if (capacity && decision.ask > elastic.size) await capacity.request(ctx.job, decision.ask);
  if (capacity) await capacity.release(ctx.job, decision.ask);
  writeScalingStatus(ctx);
  return { handled: false, lookInMs: decision.until === null ? null : Math.max(0, decision.until - ctx.now) };
}

async function beginScaling(
  ctx: JobContext,
  scaling: { to: number; reason: "ScaleUp" | "Preempted" | "FaultyScaleDown"; fault?: ScalingFault },
): Promise<void> {
  const elastic = ctx.state.elastic;
  if (!elastic) return;
  const up = scaling.to > elastic.size;
  ctx.state.elastic = {
    ...elastic,
    why: null,
    lastReason: scaling.reason,
    scaling: {
      from: elastic.size,
      to: scaling.to,
      reason: scaling.reason,
      stage: up ? "pods" : "stopping",
      since: ctx.now,
      stageSince: ctx.now,
      timeoutSeconds: gracefulSeconds(ctx.job),
      fault: scaling.fault ?? null,
    },
  };
  // On record before its first pod or /stop: a restarted operator continues this scaling.
  await saveStatus(ctx);
  const why =
    scaling.reason === "ScaleUp"
      ? "capacity is free"
      : scaling.reason === "Preempted"
        ? "higher-priority work needs its capacity"
        : "failed replicas did not come back in time";
  await event(ctx, "Normal", "Scaling", `Scaling from ${elastic.size} to ${scaling.to} replicas: ${why}`);
}

/** The console's view (LiveJob.elastic): null for a job without an elasticPolicy. */
export function liveElastic(ctx: JobContext): LiveJob["elastic"] {
  const policy = policyOf(ctx.job);
  if (!policy) return null;
  const elastic = ctx.state.elastic;
  const actual = elastic?.size ?? policy.minReplicas;
  return {
    targetReplicas: elastic?.scaling?.to ?? actual,
    actualReplicas:
      elastic?.scaling && elastic.scaling.stage !== "restarting" ? elastic.scaling.from : actual,
    min: policy.minReplicas,
    max: policy.maxReplicas,
    why: elastic?.why ?? null,
  };
}

/**
 * A restart of an elastic job whose failed replicas are not back (their pods wait for room) within
 * faultyScaleDownTimeoutInSeconds of the fault: the restart is given up and the job scales down, gracefully,
 * to the largest allowed size its running pods make (never below minReplicas). Returns true when it did.
 */
export async function faultyScaleDown(ctx: JobContext): Promise<boolean> {
  const elastic = ensureElasticState(ctx);
  const policy = policyOf(ctx.job);
  const recovery = ctx.state.recovery;
  if (!elastic || !policy || !recovery || elastic.scaling || ctx.state.record) return false;
  const healthy = ctx.obs.pods.filter((view) => view.pod?.phase === "Running").length;
  if (healthy >= ctx.obs.pods.length) return false;
  const faulty = { since: recovery.detectedAt, healthy };
  const decision = decide(ctx, { elastic, policy, faulty });
  if (decision.kind !== "scale" || decision.reason !== "FaultyScaleDown") return false;
  // The restart's row stays pending: the scale-down is how it recovers (elastic-scaling.ts ends it).
  const { eventId, reason, action, faultAt, detectedAt } = recovery;
  ctx.state = { ...ctx.state, phase: "Running", since: ctx.now, recovery: null };
  ctx.state.elastic = { ...elastic, ...decision.memory };
  await beginScaling(ctx, {
    to: decision.to,
    reason: decision.reason,
    fault: { eventId, reason, action, faultAt, detectedAt },
  });
  writeScalingStatus(ctx);
  return true;
}
