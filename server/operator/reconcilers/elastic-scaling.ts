import { scaled, scalingFailed } from "@/server/domain/elastic/scaling";
import { jobAtSize } from "@/server/domain/elastic/sized-job";
import { expectedPods } from "@/server/operator/reconcilers/observe";
import { createScalingEventStore, type ScalingEventStore } from "@/server/store/scaling-events/store";
import { event, type JobContext, saveStatus } from "./deps";
import type { ElasticState } from "./job-state";
import { type ObservedPod, replacePod } from "./observe";
import { endScalingFault } from "./record";
import { ensurePods, startAgents, stopAgents } from "./steps";

/**
 * Carrying out one scaling of an elastic job (docs/hyperpod-compatibility.md, "Elastic training"), a stage
 * per reconcile, every stage on record in status.rebound.elastic.scaling so a restarted operator goes on:
 * - "pods" (scale-up only): the new pods are created and their agents come up READY while the old ranks
 *   keep training; not READY within the pod start grace ⇒ the scaling failed (new pods deleted, steps given
 *   back, back-off);
 * - "stopping": every running agent gets `/stop {is_graceful: true, timeout: gracefulShutdownTimeoutInSeconds}`
 *   ⇒ its workers get SIGUSR1, save a checkpoint and exit; the agent SIGKILLs only what is left after the
 *   timeout, and the operator stops (non-gracefully) an agent still not READY a margin after it;
 * - "restarting": the pods beyond the new size are deleted (a scale-down) and their steps given back, and
 *   every agent is started at the new world size with its new rank (a new rendezvous).
 */

/** After the graceful timeout the agent has SIGKILLed what was left; the operator waits this much more. */
const STOP_MARGIN_MS = 5000;
const BUSY = new Set(["running", "faulted", "stopping", "completed"]);

const stores = new WeakMap<object, ScalingEventStore>();
function storeOf(ctx: JobContext): ScalingEventStore {
  let store = stores.get(ctx.deps);
  if (!store) {
    store = createScalingEventStore(ctx.deps.db);
    stores.set(ctx.deps, store);
  }
  return store;
}

type Scaling = NonNullable<ElasticState["scaling"]>;
const stateOf = (view: ObservedPod) => (view.agent.kind === "status" ? view.agent.status.status : null);

function namesAt(ctx: JobContext, size: number): Set<string> {
  const job = { ...ctx.job, object: jobAtSize(ctx.job.object, size) };
  return new Set(expectedPods(job).map((pod) => pod.name));
}

/** Writes the scaling's row in the history (its id: the job's uid and the scaling's start). */
export async function recordScaling(
  ctx: JobContext,
  outcome: "Scaled" | "Failed",
  message: string,
): Promise<void> {
  const scaling = ctx.state.elastic?.scaling;
  if (!scaling) return;
  await storeOf(ctx)
    .record({
      id: `${ctx.job.uid}-${scaling.since}`,
      jobUid: ctx.job.uid,
      namespace: ctx.job.ref.namespace,
      jobName: ctx.job.ref.name,
      fromReplicas: scaling.from,
      toReplicas: outcome === "Scaled" ? scaling.to : scaling.from,
      reason: scaling.reason,
      outcome,
      message,
      startedAt: new Date(scaling.since),
      finishedAt: new Date(ctx.now),
    })
    .catch((error: unknown) => ctx.deps.log.error("recording a scaling failed", { error: String(error) }));
}

/** A scaling that ends without its new size: its history row says why, and so does a FaultyScaleDown's restart row. */
export async function failedScaling(ctx: JobContext, message: string): Promise<void> {
  const scaling = ctx.state.elastic?.scaling;
  if (!scaling) return;
  await recordScaling(ctx, "Failed", message);
  if (scaling.fault)
    await endScalingFault(ctx, { fault: scaling.fault, running: false, to: scaling.to, message });
}

function setScaling(ctx: JobContext, scaling: Scaling | null, elastic?: Partial<ElasticState>): void {
  const current = ctx.state.elastic;
  if (current) ctx.state.elastic = { ...current, ...elastic, scaling };
}

async function deletePodsBeyond(ctx: JobContext, size: number): Promise<void> {
  const keep = namesAt(ctx, size);
  for (const view of ctx.obs.pods) {
    if (keep.has(view.expected.name) || !view.pod) continue;
    await ctx.deps.backend.deletePod(ctx.job.ref, view.pod.name);
    replacePod(ctx.obs, view, null);
  }
  for (const pod of ctx.obs.strays) await ctx.deps.backend.deletePod(ctx.job.ref, pod.name);
  ctx.obs = { ...ctx.obs, pods: ctx.obs.pods.filter((view) => keep.has(view.expected.name)), strays: [] };
}

async function failScaling(ctx: JobContext, scaling: Scaling, message: string): Promise<void> {
  await deletePodsBeyond(ctx, scaling.from);
  await ctx.deps.admission?.elastic?.release(ctx.job, scaling.from);
  await failedScaling(ctx, message);
  const elastic = ctx.state.elastic;
  if (!elastic) return;
  const memory = scalingFailed(elastic, ctx.now);
  setScaling(ctx, null, { ...memory });
  await event(
    ctx,
    "Warning",
    "ScalingFailed",
    `Scaling from ${scaling.from} to ${scaling.to} replicas failed: ${message}`,
  );
}

async function stepNewPods(ctx: JobContext, scaling: Scaling): Promise<void> {
  const capacity = ctx.deps.admission?.elastic;
  if (capacity && (capacity.preempted(ctx.job) !== null || capacity.admitted(ctx.job) < scaling.to))
    return failScaling(ctx, scaling, "its capacity was taken back before the new pods were up");
  await ensurePods(ctx, { avoidNodes: [], preferNode: null });
  const old = namesAt(ctx, scaling.from);
  const fresh = ctx.obs.pods.filter((view) => !old.has(view.expected.name));
  if (fresh.every((view) => stateOf(view) === "ready")) {
    setScaling(ctx, { ...scaling, stage: "stopping", stageSince: ctx.now });
    await saveStatus(ctx);
    return;
  }
  if (ctx.now > scaling.stageSince + ctx.deps.config.podStartGraceMs) {
    const waiting = fresh.filter((view) => stateOf(view) !== "ready").map((view) => view.expected.name);
    await failScaling(
      ctx,
      scaling,
      `pod(s) ${waiting.join(", ")} were not READY within ${ctx.deps.config.podStartGraceMs / 1000} s`,
    );
  }
}

/** Sends the graceful /stop to every agent still running workers; true once none is. */
async function stopGracefully(ctx: JobContext, scaling: Scaling): Promise<boolean> {
  let busy = false;
  await Promise.all(
    ctx.obs.pods.map(async (view) => {
      const state = stateOf(view);
      if (!view.pod?.agentUrl || state === null || !BUSY.has(state)) return;
      busy = true;
      if (state === "stopping") return; // a repeated /stop is answered without effect anyway
      await ctx.deps.agents.stop(view.pod.agentUrl, {
        restart_mode: "process_level_restart",
        is_graceful: true,
        timeout: scaling.timeoutSeconds,
      });
    }),
  );
  return !busy;
}

async function stepStopping(ctx: JobContext, scaling: Scaling): Promise<void> {
  const stopped = await stopGracefully(ctx, scaling);
  if (!stopped) {
    // Past the graceful timeout (the agent SIGKILLed the rest) and a margin: stopped the usual way.
    if (ctx.now < scaling.stageSince + scaling.timeoutSeconds * 1000 + STOP_MARGIN_MS) return;
    if (!(await stopAgents(ctx))) return;
  }
  await deletePodsBeyond(ctx, scaling.to);
  if (scaling.to < scaling.from) await ctx.deps.admission?.elastic?.release(ctx.job, scaling.to);
  setScaling(ctx, { ...scaling, stage: "restarting", stageSince: ctx.now });
  ctx.state.rendezvous = null;
  await saveStatus(ctx);
}

async function stepRestarting(ctx: JobContext, scaling: Scaling): Promise<void> {
  const unplaced = await ensurePods(ctx, { avoidNodes: [], preferNode: null });
  const late = ctx.now > scaling.stageSince + ctx.deps.config.podStartGraceMs;
  const running = unplaced === 0 && (await startAgents(ctx));
  if (!running && !late) return;
  const elastic = ctx.state.elastic;
  if (!elastic) return;
  const seconds = ((ctx.now - scaling.since) / 1000).toFixed(1);
  const message = running
    ? `${scaling.from} → ${scaling.to} replicas in ${seconds} s`
    : `${scaling.from} → ${scaling.to} replicas; not every agent was running after ${seconds} s`;
  await recordScaling(ctx, "Scaled", message);
  if (scaling.fault) {
    const why = running
      ? "failed replicas did not come back in time"
      : `scaled down to ${scaling.to} replicas for it, but not every agent was running after ${seconds} s`;
    await endScalingFault(ctx, { fault: scaling.fault, running, to: scaling.to, message: why });
  }
  setScaling(ctx, null, { ...scaled(elastic, scaling.to, ctx.now) });
  ctx.state.since = ctx.now;
  await event(ctx, "Normal", "Scaled", `Scaled from ${scaling.from} to ${scaling.to} replicas (${message})`);
}

export async function elasticScalingStep(ctx: JobContext): Promise<void> {
  const scaling = ctx.state.elastic?.scaling;
  if (!scaling) return;
  switch (scaling.stage) {
    case "pods":
      return stepNewPods(ctx, scaling);
    case "stopping":
      return stepStopping(ctx, scaling);
    case "restarting":
      return stepRestarting(ctx, scaling);
    default:
      return scaling.stage satisfies never;
  }
}
