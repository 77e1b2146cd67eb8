import { remediatedMessage } from "@/server/domain/recovery/remediation";
import { appliedPolicy } from "@/server/operator/shadow/marks";
import type { FaultCompletion } from "@/server/store/restart-events/store";
import { event, type JobContext, labels } from "./deps";
import { type ElasticState, type PendingRecord, setCondition } from "./job-state";
import { faultProgress, forgetProgress, restarted } from "./progress";

/**
 * A fault's restart-timeline row, Warning event and metrics, each written exactly once whatever fails:
 * the decision and its row id are saved in status first (state.record); the row is inserted by that id
 * (a retry finds it); a completion applies only to a pending row; events and metrics are sent once per
 * operator process (the ledger), and a metric only by the process that decided or inserted it, so a
 * restarted operator does not count again what its predecessor counted.
 */

const key = (id: string, what: string) => `${id}:${what}`;

/** Marks a decision as this process's own (before it is saved): its metrics are observed here. */
export function ownDecision(ctx: JobContext, id: string): void {
  ctx.deps.ledger.add(key(id, "decided"));
}

/** Runs `effect` unless this process already ran it for `what` (retries skip it). */
async function once(ctx: JobContext, what: string, effect: () => unknown): Promise<void> {
  if (ctx.deps.ledger.has(what)) return;
  await effect();
  ctx.deps.ledger.add(what);
}

/** Writes the row, the event and the detection metric of the saved decision (idempotent); keeps it pending. */
export async function writeRecord(ctx: JobContext, record: PendingRecord): Promise<void> {
  const { deps } = ctx;
  if (record.supersedes) {
    const { id, message } = record.supersedes;
    await deps.restartEvents.complete(id, { outcome: "failed", recoveredAt: null, message });
  }
  const progress = await faultProgress(ctx, record);
  const inserted = await deps.restartEvents.record({
    id: record.id,
    jobUid: ctx.job.uid,
    namespace: ctx.job.ref.namespace,
    jobName: ctx.job.ref.name,
    ranks: record.ranks,
    pods: record.pods,
    node: record.node,
    reason: record.reason,
    faultAt: new Date(record.faultAt),
    detectedAt: new Date(record.detectedAt),
    action: record.action,
    message: record.message,
    repeat: record.repeat,
    policy: appliedPolicy(ctx.job).text,
    progressStep: progress?.progressStep ?? null,
    progressAt: progress ? new Date(progress.progressAt) : null,
  });
  if (record.detection && (inserted || deps.ledger.has(key(record.id, "decided")))) {
    await once(ctx, key(record.id, "detected"), () =>
      deps.metrics.detectionLatency.observe(
        { ...labels(ctx), fault_reason: record.reason },
        Math.max(0, record.detectedAt - record.faultAt) / 1000,
      ),
    );
  }
  await once(ctx, key(record.id, "event"), () =>
    event(ctx, record.event.type, record.reason, record.event.message),
  );
}

/**
 * Completes the row of restart `id`: the first call changes it, any later one is a no-op. Returns whether
 * this process should count the completion (it changed the row now, or in an attempt this process began
 * and that failed afterwards): true once per restart and process.
 */
export async function completeRecord(ctx: JobContext, id: string, result: FaultCompletion): Promise<boolean> {
  const { ledger } = ctx.deps;
  const began = ledger.has(key(id, "completing"));
  ledger.add(key(id, "completing"));
  const changed = await ctx.deps.restartEvents.complete(id, result);
  if (result.outcome === "recovered" && result.recoveredAt) restarted(ctx, id, result.recoveredAt.getTime());
  if (!(changed || began) || ledger.has(key(id, "counted"))) return false;
  ledger.add(key(id, "counted"));
  return true;
}

/** Sends an event once per restart and process (retries skip it). */
export function eventOnce(
  ctx: JobContext,
  input: { id: string; type: "Normal" | "Warning"; reason: string; message: string },
): Promise<void> {
  return once(ctx, key(input.id, `event:${input.reason}`), () =>
    event(ctx, input.type, input.reason, input.message),
  );
}

/**
 * The restart in progress ends without recovering (job failed, suspended or deleted): its row says why. So
 * does that of a fault whose scale-down is under way (elastic.ts), which has no `recovery` any more.
 */
export async function dropRecovery(ctx: JobContext, message: string): Promise<void> {
  const recovery = ctx.state.recovery;
  forgetProgress(ctx);
  const scaling = ctx.state.elastic?.scaling;
  if (scaling?.fault) {
    await completeRecord(ctx, scaling.fault.eventId, { outcome: "failed", recoveredAt: null, message });
    if (ctx.state.elastic) ctx.state.elastic = { ...ctx.state.elastic, scaling: { ...scaling, fault: null } };
  }
  if (!recovery) return;
  await completeRecord(ctx, recovery.eventId, { outcome: "failed", recoveredAt: null, message });
  ctx.state.recovery = null;
}

type ScalingFault = NonNullable<NonNullable<ElasticState["scaling"]>["fault"]>;

/**
 * A fault whose restart became a FaultyScaleDown (elastic.ts) ends when the scaling does: `running` (every
 * agent runs at the smaller size) completes its row as recovered, counts the restart, and turns Running
 * True with the remediation message, as a restart that replaced its pods would; otherwise the row is
 * completed as failed with `message`. Called at most once per scaling, and idempotent as completeRecord is.
 */
export async function endScalingFault(
  ctx: JobContext,
  input: { fault: ScalingFault; running: boolean; to: number; message: string },
): Promise<void> {
  const { fault, to } = input;
  if (!input.running) {
    forgetProgress(ctx);
    await completeRecord(ctx, fault.eventId, {
      outcome: "failed",
      recoveredAt: null,
      message: input.message,
    });
    return;
  }
  const now = ctx.deps.clock();
  const message = `${remediatedMessage(fault.reason, now - fault.faultAt)} The job scaled down to ${to} replicas: ${input.message}.`;
  const result = { outcome: "recovered", recoveredAt: new Date(now), message } as const;
  if (await completeRecord(ctx, fault.eventId, result)) {
    ctx.deps.metrics.restarted.inc({ ...labels(ctx), restart_type: fault.action });
    ctx.deps.metrics.restartLatency.observe(
      { ...labels(ctx), restart_type: fault.action },
      (now - fault.detectedAt) / 1000,
    );
  }
  ctx.status = setCondition(ctx.status, { type: "Running", status: "True", reason: "Running", message }, now);
  await eventOnce(ctx, { id: fault.eventId, type: "Normal", reason: "Running", message });
}
