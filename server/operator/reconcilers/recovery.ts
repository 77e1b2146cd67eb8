import { isNodeHealthy } from "@/server/cluster/types";
import { decideRecovery } from "@/server/domain/recovery/decide";
import { remediatedMessage } from "@/server/domain/recovery/remediation";
import type { ClusterView, Fault, RecoveryDecision } from "@/server/domain/recovery/types";
import { completeFault, recordFault } from "@/server/services/restart-events/mutations";
import type { ManualRestart } from "../requests";
import { event, type JobContext, labels } from "./deps";
import { type Recovery, setCondition } from "./job-state";
import { failJob } from "./lifecycle";
import { ensurePods, startAgents, stopAgents } from "./steps";

export const MANUAL_REASON = "ManualRestart";

/**
 * A fault's life: detected → decided (PLR, pod replacement, full job restart, or fail) → carried out in
 * stages (replacing → stopping → starting) across reconciles → recovered, with the restart timeline row
 * and the Running condition's "remediated in N milliseconds" message.
 */

function clusterView(ctx: JobContext): ClusterView {
  const healthy = ctx.obs.nodes.filter(isNodeHealthy).map((node) => node.name);
  const used = new Set(ctx.obs.pods.map((view) => view.pod?.node).filter((node): node is string => !!node));
  return { healthyNodes: healthy, spareNodes: [], freeNodes: healthy.filter((node) => !used.has(node)) };
}

function describeFault(fault: Fault, agentMessage: string | undefined): string {
  switch (fault.kind) {
    case "NodeFault":
      return `Found unhealthy node ${fault.node ?? "(unknown)"}`;
    case "PodGone":
      return `Pod ${fault.pods.join(", ")} is gone (${fault.reason})`;
    case "AgentUnreachable":
      return `The agent of pod ${fault.pods.join(", ")} did not answer (${fault.cause})`;
    default:
      return agentMessage ?? `${fault.reason} on pod ${fault.pods.join(", ")}`;
  }
}

type RestartDecision = Exclude<RecoveryDecision, { action: "FAIL" }>;

/** Which pods the restart recreates, where they may go, and the first stage. */
function plan(
  ctx: JobContext,
  decision: RestartDecision,
): Pick<Recovery, "action" | "stage" | "pods" | "avoidNodes" | "useSpare"> {
  switch (decision.action) {
    case "PLR":
      return { action: "PLR", stage: "stopping", pods: [], avoidNodes: [], useSpare: null };
    case "REPLACE_PODS":
      return {
        action: "REPLACE_PODS",
        stage: "replacing",
        pods: decision.pods,
        avoidNodes: decision.avoidNodes,
        useSpare: decision.useSpare,
      };
    case "JLR":
      return {
        action: "JLR",
        stage: "replacing",
        pods: ctx.obs.pods.map((view) => view.expected.name),
        avoidNodes: decision.avoidNodes,
        useSpare: null,
      };
    default:
      return decision satisfies never;
  }
}

/** Enters the Recovering phase with this restart (Running turns False with its reason) and takes its first step. */
async function startRestart(ctx: JobContext, input: { recovery: Recovery; message: string }): Promise<void> {
  const { recovery, message } = input;
  ctx.deps.backend.beforeRestart?.(ctx.job.ref);
  ctx.state.phase = "Recovering";
  ctx.state.since = recovery.detectedAt;
  ctx.state.rendezvous = null;
  ctx.state.recovery = recovery;
  ctx.status = setCondition(
    ctx.status,
    { type: "Running", status: "False", reason: recovery.reason, message },
    recovery.detectedAt,
  );
  await advanceRecovery(ctx);
}

export async function beginRecovery(ctx: JobContext, fault: Fault, agentMessage?: string): Promise<void> {
  const { deps } = ctx;
  // Detected now, once this reconcile has observed the fault (ctx.now is when it began observing).
  const now = deps.clock();
  const decision = decideRecovery({
    runPolicy: ctx.job.job.spec.runPolicy,
    status: { restartCount: ctx.status.restartCount, restartStatus: ctx.status.restartStatus },
    history: ctx.state.history,
    fault,
    now,
    cluster: clusterView(ctx),
  });
  const message = describeFault(fault, agentMessage);
  deps.metrics.detectionLatency.observe(
    { ...labels(ctx), fault_reason: fault.reason },
    Math.max(0, now - fault.at) / 1000,
  );
  await event(ctx, "Warning", fault.reason, message);
  const eventId = await recordFault(deps.db, {
    namespace: ctx.job.ref.namespace,
    jobName: ctx.job.ref.name,
    ranks: fault.ranks,
    pods: fault.pods,
    node: fault.node ?? null,
    reason: fault.reason,
    faultAt: new Date(fault.at),
    detectedAt: new Date(now),
    action: decision.action === "REPLACE_PODS" ? "POD_REPLACEMENT" : decision.action,
    message: decision.action === "FAIL" ? decision.reason : message,
  });
  ctx.status = {
    ...ctx.status,
    restartCount: decision.restartCount,
    restartStatus: decision.restartStatus,
    ...(decision.latestFaultyPodInstanceList
      ? { latestFaultyPodInstanceList: decision.latestFaultyPodInstanceList }
      : {}),
  };
  if (decision.record) ctx.state.history.push(decision.record);
  if (decision.action === "FAIL") {
    await failJob(ctx, { reason: decision.limit, message: decision.reason });
    return;
  }
  await startRestart(ctx, {
    recovery: { eventId, reason: fault.reason, faultAt: fault.at, detectedAt: now, ...plan(ctx, decision) },
    message,
  });
}

/** What a person's restart does: PLR of every process, one pod replaced (then PLR), or every pod recreated. */
function manualPlan(
  ctx: JobContext,
  request: ManualRestart,
): Pick<Recovery, "action" | "stage" | "pods"> & {
  ranks: number[];
  node: string | null;
} {
  switch (request.kind) {
    case "restart-rank":
      return { action: "PLR", stage: "stopping", pods: [], ranks: [request.rank], node: null };
    case "restart-pod": {
      const node = ctx.obs.pods.find((view) => view.expected.name === request.pod)?.pod?.node ?? null;
      return { action: "REPLACE_PODS", stage: "replacing", pods: [request.pod], ranks: [], node };
    }
    case "restart-job":
      return {
        action: "JLR",
        stage: "replacing",
        pods: ctx.obs.pods.map((view) => view.expected.name),
        ranks: [],
        node: null,
      };
    default:
      return request satisfies never;
  }
}

/**
 * A restart someone asked for (the console's actions): recorded on the restart timeline with reason
 * ManualRestart, carried out like a fault's, but not counted against the restart policy: it is not a fault.
 */
export async function beginManualRestart(ctx: JobContext, request: ManualRestart): Promise<void> {
  const { deps } = ctx;
  const now = deps.clock();
  const plan = manualPlan(ctx, request);
  const message = `${request.kind} requested by ${request.by}`;
  await event(ctx, "Normal", MANUAL_REASON, message);
  const eventId = await recordFault(deps.db, {
    namespace: ctx.job.ref.namespace,
    jobName: ctx.job.ref.name,
    ranks: plan.ranks,
    pods: plan.pods,
    node: plan.node,
    reason: MANUAL_REASON,
    faultAt: new Date(now),
    detectedAt: new Date(now),
    action: plan.action === "REPLACE_PODS" ? "POD_REPLACEMENT" : plan.action,
    message,
  });
  await startRestart(ctx, {
    recovery: {
      eventId,
      reason: MANUAL_REASON,
      faultAt: now,
      detectedAt: now,
      action: plan.action,
      stage: plan.stage,
      pods: plan.pods,
      avoidNodes: [],
      useSpare: null,
    },
    message,
  });
}

async function finishRecovery(ctx: JobContext): Promise<void> {
  const recovery = ctx.state.recovery;
  if (!recovery) return;
  const { deps } = ctx;
  // Recovered now, once every agent has accepted its /start (not when this reconcile began).
  const now = deps.clock();
  const message = remediatedMessage(recovery.reason, Math.max(0, now - recovery.faultAt));
  await completeFault(deps.db, recovery.eventId, {
    outcome: "recovered",
    recoveredAt: new Date(now),
    message,
  });
  const restartType = recovery.action === "REPLACE_PODS" ? "POD_REPLACEMENT" : recovery.action;
  deps.metrics.restarted.inc({ ...labels(ctx), restart_type: restartType });
  deps.metrics.restartLatency.observe(
    { ...labels(ctx), restart_type: restartType },
    (now - recovery.detectedAt) / 1000,
  );
  ctx.status = setCondition(ctx.status, { type: "Running", status: "True", reason: "Running", message }, now);
  await event(ctx, "Normal", "Running", message);
  ctx.state.phase = "Running";
  ctx.state.since = now;
  ctx.state.recovery = null;
}

export async function advanceRecovery(ctx: JobContext): Promise<void> {
  const recovery = ctx.state.recovery;
  if (!recovery) return;
  if (recovery.stage === "replacing") {
    const unplaced = await ensurePods(ctx, {
      replace: new Set(recovery.pods),
      avoidNodes: recovery.avoidNodes,
      preferNode: recovery.useSpare,
    });
    recovery.pods = [];
    if (unplaced > 0) return;
    recovery.stage = "stopping";
  }
  if (recovery.stage === "stopping") {
    // Pods that died meanwhile are recreated; the agents come up READY.
    if ((await ensurePods(ctx, { avoidNodes: recovery.avoidNodes, preferNode: null })) > 0) return;
    if (!(await stopAgents(ctx))) return;
    recovery.stage = "starting";
  }
  if (await startAgents(ctx)) await finishRecovery(ctx);
}

/** A fault while restarting: the restart in progress failed; the new fault is decided afresh. */
export async function abandonRecovery(ctx: JobContext, reason: string): Promise<void> {
  const recovery = ctx.state.recovery;
  if (!recovery) return;
  await completeFault(ctx.deps.db, recovery.eventId, {
    outcome: "failed",
    recoveredAt: null,
    message: reason,
  });
  ctx.state.recovery = null;
}
