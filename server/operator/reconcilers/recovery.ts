import { randomUUID } from "node:crypto";
import { isNodeHealthy } from "@/server/cluster/types";
import { onFailure, restartsWithoutProgressLimit } from "@/server/domain/recovery/crash-loop";
import { decideRecovery } from "@/server/domain/recovery/decide";
import { remediatedMessage } from "@/server/domain/recovery/remediation";
import type { ClusterView, Fault, RecoveryDecision } from "@/server/domain/recovery/types";
import { event, type JobContext, labels, saveStatus } from "./deps";
import { unreachablePods } from "./detect";
import { isInProcessJob, pauseAgents, startInProcess } from "./inprocess";
import { type PendingRecord, type Recovery, setCondition } from "./job-state";
import { failJob } from "./lifecycle";
import { completeRecord, eventOnce, ownDecision, writeRecord } from "./record";
import { ensurePods, startAgents, stopAgents } from "./steps";

/**
 * A fault's life: detected → decided (PLR, pod replacement, full job restart, or fail) → carried out in
 * stages (replacing → stopping → starting) across reconciles → recovered, with the restart timeline row
 * and the Running condition's "remediated in N milliseconds" message.
 *
 * Exactly once: the decision, its counters and its row id are saved in status before any side effect
 * (saveStatus), so a reconcile that fails or an operator that dies afterwards resumes that decision
 * (carryOutDecision) instead of deciding the fault again; every later step is idempotent on it.
 */

function clusterView(ctx: JobContext): ClusterView {
  const healthy = ctx.obs.nodes.filter(isNodeHealthy).map((node) => node.name);
  const used = new Set(ctx.obs.pods.map((view) => view.pod?.node).filter((node): node is string => !!node));
  return { healthyNodes: healthy, spareNodes: [], freeNodes: healthy.filter((node) => !used.has(node)) };
}

function describeFault(fault: Fault, agentMessage: string | undefined): string {
  switch (fault.kind) {
    case "NodeFault":
      return `Found unhealthy node ${fault.node ?? "(unknown)"}${fault.detail ? ` (${fault.detail})` : ""}`;
    case "PodGone":
      return `Pod ${fault.pods.join(", ")} is gone (${fault.reason})`;
    case "AgentUnreachable":
      return `The agent of pod ${fault.pods.join(", ")} did not answer (${fault.cause})`;
    default:
      return agentMessage ?? `${fault.reason} on pod ${fault.pods.join(", ")}`;
  }
}

/** When each pod to be replaced was created: a pod of that name created later is already its replacement. */
function creationTimes(ctx: JobContext, pods: readonly string[]): Record<string, number> {
  const wanted = new Set(pods);
  const times: Record<string, number> = {};
  for (const view of ctx.obs.pods) {
    if (view.pod && wanted.has(view.expected.name)) times[view.expected.name] = view.pod.createdAt;
  }
  return times;
}

export type RestartPlan = Pick<Recovery, "action" | "stage" | "pods" | "avoidNodes" | "useSpare">;
type RestartDecision = Exclude<RecoveryDecision, { action: "FAIL" }>;

/** Which pods the restart recreates, where they may go, and the first stage. */
function plan(ctx: JobContext, decision: RestartDecision): RestartPlan {
  switch (decision.action) {
    case "PLR":
      return { action: "PLR", stage: "stopping", pods: [], avoidNodes: [], useSpare: null };
    case "POD_REPLACEMENT":
      return {
        action: "POD_REPLACEMENT",
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

/** Enters the Recovering phase with this restart (Running turns False with its reason); no side effect. */
export function enterRestart(ctx: JobContext, input: { record: PendingRecord; plan: RestartPlan }): void {
  const { record, plan } = input;
  ctx.state.phase = "Recovering";
  ctx.state.since = record.detectedAt;
  ctx.state.rendezvous = null;
  ctx.state.recovery = {
    eventId: record.id,
    reason: record.reason,
    faultAt: record.faultAt,
    detectedAt: record.detectedAt,
    ...plan,
    podsCreatedAt: creationTimes(ctx, plan.pods),
  };
  ctx.status = setCondition(
    ctx.status,
    { type: "Running", status: "False", reason: record.reason, message: record.event.message },
    record.detectedAt,
  );
}

/**
 * Writes the saved decision's row, event and metric, fails the job if that was the decision, and clears
 * it. Every reconcile calls it first, so a decision saved by a reconcile that failed afterwards (or by an
 * operator that died) is carried out with the same row id.
 */
export async function carryOutDecision(ctx: JobContext): Promise<void> {
  const record = ctx.state.record;
  if (!record) return;
  if (ctx.state.recovery) ctx.deps.backend.beforeRestart?.(ctx.job.ref);
  await writeRecord(ctx, record);
  if (record.fail) await failJob(ctx, record.fail);
  ctx.state.record = null;
}

/** Saves the decision (the intent) before any of its side effects, then carries it out. */
export async function decide(ctx: JobContext, record: PendingRecord): Promise<void> {
  ownDecision(ctx, record.id);
  ctx.state.record = record;
  await saveStatus(ctx);
  await carryOutDecision(ctx);
  await advanceRecovery(ctx);
}

/** A fault while a restart is in progress: that restart failed; its row says so once this one is saved. */
function superseded(ctx: JobContext, fault: Fault): PendingRecord["supersedes"] {
  const recovery = ctx.state.recovery;
  if (!recovery) return null;
  return { id: recovery.eventId, message: `a new fault (${fault.reason}) happened while restarting` };
}

function faultRecord(
  ctx: JobContext,
  input: { fault: Fault; decision: RecoveryDecision; message: string; now: number },
): PendingRecord {
  const { fault, decision, message, now } = input;
  const failed = decision.action === "FAIL";
  return {
    id: randomUUID(),
    ranks: fault.ranks,
    pods: fault.pods,
    node: fault.node ?? null,
    reason: fault.reason,
    faultAt: fault.at,
    detectedAt: now,
    action: decision.action,
    message: failed ? decision.reason : message,
    event: { type: "Warning", message },
    detection: true,
    fail: failed ? { reason: decision.limit, message: decision.reason } : null,
    repeat: ctx.state.crashLoop.restartsWithoutProgress > 1,
    supersedes: superseded(ctx, fault),
  };
}

/**
 * The crash-loop bound over HyperPod's decision (server/domain/recovery/crash-loop.ts): a restart after
 * too many in a row without progress becomes a failure; otherwise the restart waits its back-off.
 */
function applyCrashLoop(
  ctx: JobContext,
  decision: RecoveryDecision,
  cause: string,
): { decision: RecoveryDecision; delayMs: number } {
  if (decision.action === "FAIL") return { decision, delayMs: 0 };
  const limit = restartsWithoutProgressLimit(ctx.job.object.metadata.annotations);
  const loop = onFailure({
    state: ctx.state.crashLoop,
    progressed: ctx.state.crashLoop.progressed,
    limit: limit.ok ? limit.limit : 0,
    cause,
  });
  ctx.state.crashLoop = { ...ctx.state.crashLoop, ...loop.state, progressed: false };
  if (loop.action === "restart") return { decision, delayMs: loop.delayMs };
  return {
    decision: {
      action: "FAIL",
      limit: "CrashLoop",
      reason: loop.reason,
      restartStatus: ctx.status.restartStatus ?? decision.restartStatus,
      latestFaultyPodInstanceList: null,
      restartCount: ctx.status.restartCount ?? 0,
      record: null,
    },
    delayMs: 0,
  };
}

const backOffNote = (delayMs: number, inARow: number) =>
  delayMs > 0
    ? `; back-off ${Math.round(delayMs / 1000)} s before starting again (${inARow} restarts in a row without progress)`
    : "";

/** Decides a fault (a new one, or one that supersedes the restart in progress) and carries it out. */
export async function beginRecovery(ctx: JobContext, fault: Fault, agentMessage?: string): Promise<void> {
  // Detected now, once this reconcile has observed the fault (ctx.now is when it began observing).
  const now = ctx.deps.clock();
  const described = describeFault(fault, agentMessage);
  const { decision, delayMs } = applyCrashLoop(
    ctx,
    decideRecovery({
      runPolicy: ctx.job.object.spec.runPolicy,
      status: { restartCount: ctx.status.restartCount, restartStatus: ctx.status.restartStatus },
      history: ctx.state.history,
      fault,
      now,
      cluster: clusterView(ctx),
    }),
    described,
  );
  const message = `${described}${backOffNote(delayMs, ctx.state.crashLoop.restartsWithoutProgress)}`;
  const record = faultRecord(ctx, { fault, decision, message, now });
  ctx.status = {
    ...ctx.status,
    restartCount: decision.restartCount,
    restartStatus: decision.restartStatus,
    ...(decision.latestFaultyPodInstanceList
      ? { latestFaultyPodInstanceList: decision.latestFaultyPodInstanceList }
      : {}),
  };
  if (decision.record) ctx.state.history.push(decision.record);
  if (decision.action === "FAIL") ctx.state.recovery = null;
  else enterRestart(ctx, { record, plan: plan(ctx, decision) });
  if (ctx.state.recovery && delayMs > 0) ctx.state.recovery.notBefore = now + delayMs;
  await decide(ctx, record);
}

/**
 * The row's message once recovered: HyperPod's remediation message, and for a node fault said by a node
 * signal what was found (describeFault: its source and reason, still the Running condition's message),
 * which the remediation message alone would lose from the restart timeline.
 */
function recoveredRowMessage(ctx: JobContext, reason: string, message: string): string {
  const running = ctx.status.conditions?.find((condition) => condition.type === "Running");
  const found = running?.status === "False" && running.reason === reason ? running.message : undefined;
  return reason === "NodeFault" && found?.includes(" (") ? `${message} ${found}` : message;
}

/**
 * Of the restart's detected → recovered, the time it waited out its crash-loop back-off: waiting, not
 * recovering, kept apart on its row so MTTR counts only the recovery (server/domain/console/timeline.ts).
 */
export function backOffWaitMs(recovery: Pick<Recovery, "detectedAt" | "notBefore">, now: number): number {
  if (recovery.notBefore === undefined) return 0;
  return Math.round(Math.max(0, Math.min(now, recovery.notBefore) - recovery.detectedAt));
}

const waitNote = (waitMs: number) =>
  waitMs > 0 ? ` ${Math.round(waitMs / 1000)} s of it was the crash-loop back-off's wait.` : "";

async function finishRecovery(ctx: JobContext): Promise<void> {
  const recovery = ctx.state.recovery;
  if (!recovery) return;
  const { deps } = ctx;
  // Recovered now, once every agent has accepted its /start (not when this reconcile began).
  const now = deps.clock();
  const message = remediatedMessage(recovery.reason, Math.max(0, now - recovery.faultAt));
  const waitMs = backOffWaitMs(recovery, now);
  const result = {
    outcome: "recovered",
    recoveredAt: new Date(now),
    message: `${recoveredRowMessage(ctx, recovery.reason, message)}${waitNote(waitMs)}`,
    waitMs,
  } as const;
  if (await completeRecord(ctx, recovery.eventId, result)) {
    deps.metrics.restarted.inc({ ...labels(ctx), restart_type: recovery.action });
    deps.metrics.restartLatency.observe(
      { ...labels(ctx), restart_type: recovery.action },
      (now - recovery.detectedAt) / 1000,
    );
  }
  ctx.status = setCondition(ctx.status, { type: "Running", status: "True", reason: "Running", message }, now);
  await eventOnce(ctx, { id: recovery.eventId, type: "Normal", reason: "Running", message });
  ctx.state.phase = "Running";
  ctx.state.since = now;
  ctx.state.recovery = null;
}

/** The listed pods still to replace: those that are still the instance seen when the restart was decided. */
function stillToReplace(ctx: JobContext, recovery: Recovery): Set<string> {
  const created = recovery.podsCreatedAt;
  if (!created) return new Set(recovery.pods);
  const listed = new Set(recovery.pods);
  const due = ctx.obs.pods.filter(
    (view) => listed.has(view.expected.name) && view.pod?.createdAt === created[view.expected.name],
  );
  return new Set(due.map((view) => view.expected.name));
}

/** The "replacing" stage: recreates the pods the restart replaces; false while some wait for room. */
async function replacePods(ctx: JobContext, recovery: Recovery): Promise<boolean> {
  const unplaced = await ensurePods(ctx, {
    replace: stillToReplace(ctx, recovery),
    avoidNodes: recovery.avoidNodes,
    preferNode: recovery.useSpare,
  });
  recovery.pods = [];
  recovery.podsCreatedAt = {};
  return unplaced === 0;
}

/**
 * The "stopping" stage: pods that died meanwhile are recreated (agents come up READY), the rest stopped;
 * a job whose agents run in-process restart has its healthy ranks paused instead (inprocess.ts).
 */
async function stopAll(ctx: JobContext, recovery: Recovery): Promise<boolean> {
  // An agent that stops answering while the others stop (frozen, its node cut off) would never be READY and
  // the restart would wait for it for good (bench:k8s: 20 agents frozen over 10 s at 2,048 pods held one
  // in "stopping" past 180 s): its pod is replaced, as one that died meanwhile is.
  const hung = unreachablePods(ctx.obs, {
    agentTimeoutMs: ctx.deps.config.agentTimeoutMs,
    podStartGraceMs: ctx.deps.config.podStartGraceMs,
    ranksPerNode: ctx.ranksPerNode,
  }).map((view) => view.expected.name);
  if (hung.length > 0)
    await event(
      ctx,
      "Warning",
      "AgentUnreachable",
      `agents stopped answering during the restart, pods replaced: ${hung.join(", ")}`,
    );
  const replace = new Set(hung);
  if ((await ensurePods(ctx, { replace, avoidNodes: recovery.avoidNodes, preferNode: null })) > 0)
    return false;
  return isInProcessJob(ctx) ? pauseAgents(ctx) : stopAgents(ctx);
}

/** The "starting" stage: /start to every READY agent (with the ranks' worker_data for in-process jobs). */
const startAll = (ctx: JobContext): Promise<boolean> =>
  isInProcessJob(ctx) ? startInProcess(ctx) : startAgents(ctx);

/** The restart waits out its crash-loop back-off before starting the agents again. */
export function inBackOff(ctx: JobContext): boolean {
  const notBefore = ctx.state.recovery?.notBefore;
  return notBefore !== undefined && ctx.now < notBefore;
}

/**
 * A stage of the restart is over: its time goes to the stage metric (where a restart's time goes, read by
 * bench:k8s), and the next stage counts from now. The first stage counts from detection; starting from the
 * end of a crash-loop back-off's wait, which is waiting, not restarting.
 */
function endStage(ctx: JobContext, recovery: Recovery, stage: Recovery["stage"]): void {
  const now = ctx.deps.clock();
  const began = recovery.stageSince ?? recovery.detectedAt;
  const since = stage === "starting" ? Math.max(began, recovery.notBefore ?? 0) : began;
  ctx.deps.metrics.restartStageSeconds.observe(
    { restart_type: recovery.action, stage },
    Math.max(0, now - since) / 1000,
  );
  recovery.stageSince = now;
}

/** Takes the restart's next steps (none while its decision is not written yet). */
export async function advanceRecovery(ctx: JobContext): Promise<void> {
  const recovery = ctx.state.recovery;
  if (!recovery || ctx.state.record) return;
  if (recovery.stage === "replacing") {
    if (!(await replacePods(ctx, recovery))) return;
    endStage(ctx, recovery, "replacing");
    recovery.stage = "stopping";
  }
  if (recovery.stage === "stopping") {
    if (!(await stopAll(ctx, recovery))) return;
    endStage(ctx, recovery, "stopping");
    recovery.stage = "starting";
  }
  if (inBackOff(ctx)) return;
  if (!(await startAll(ctx))) return;
  endStage(ctx, recovery, "starting");
  await finishRecovery(ctx);
}
