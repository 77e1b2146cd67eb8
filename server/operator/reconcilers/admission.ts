import type { AdmissionVerdict } from "@/server/operator/admission/types";
import { event, type JobContext, saveStatus } from "./deps";
import { setCondition } from "./job-state";
import { resumeJob } from "./lifecycle";
import { stepPreemption } from "./preemption";
import { dropRecovery } from "./record";
import { deleteAllPods } from "./steps";

/**
 * Task governance in the reconcile (server/operator/admission): a governed job that is not admitted has no
 * pods and waits in phase Pending with the reason; once admitted it starts as any job does; a preempted
 * one stops gracefully and waits again. An ungoverned job (NotGoverned) runs as HyperPod runs it without
 * task governance.
 */

type Condition = { type: string; status: "True" | "False"; reason: string; message: string };

/** Sets a condition only when it says something new (a write per reconcile would cost a status write). */
function ensureCondition(ctx: JobContext, condition: Condition): void {
  const current = (ctx.status.conditions ?? []).find((existing) => existing.type === condition.type);
  if (
    current?.status === condition.status &&
    current.reason === condition.reason &&
    (current.message ?? "") === condition.message
  )
    return;
  ctx.status = setCondition(ctx.status, condition, ctx.now);
}

/** Reasons that hold whatever else ends or changes: the job can never fit (Kueue says so in a Warning event). */
const NEVER_FITS = new Set(["ExceedsCapacity"]);

async function holdPending(ctx: JobContext, verdict: { reason: string; message: string }): Promise<void> {
  if (ctx.obs.pods.some((view) => view.pod !== null) || ctx.obs.strays.length > 0) await deleteAllPods(ctx);
  if (ctx.state.phase !== "Pending") {
    await dropRecovery(ctx, "the job is waiting for admission");
    ctx.state = { ...ctx.state, phase: "Pending", since: ctx.now, recovery: null, rendezvous: null };
  }
  const before = (ctx.status.conditions ?? []).find((c) => c.type === "Admitted");
  ensureCondition(ctx, { type: "Admitted", status: "False", ...verdict });
  // Once per change to a reason that never clears by waiting: the event list says so, not only the status.
  if (NEVER_FITS.has(verdict.reason) && (before?.status !== "False" || before.reason !== verdict.reason))
    await event(ctx, "Warning", verdict.reason, verdict.message);
}

async function startAdmitted(ctx: JobContext): Promise<void> {
  const wasPending = ctx.state.phase === "Pending";
  const team = ctx.job.ref.namespace;
  const message = `Admitted by ClusterQueue ${team}-clusterqueue`;
  ensureCondition(ctx, { type: "Admitted", status: "True", reason: "Admitted", message });
  const preempted = (ctx.status.conditions ?? []).find((c) => c.type === "Preempted");
  if (preempted?.status === "True")
    ensureCondition(ctx, { type: "Preempted", status: "False", reason: "Admitted", message });
  if (!wasPending) return;
  ctx.state = { ...ctx.state, phase: "Starting", since: ctx.now, rendezvous: null };
  ctx.state.admission = ctx.deps.admission?.describe(ctx.job) ?? null;
  // The admission is on record before its first pod is made (a restarted operator keeps it).
  await saveStatus(ctx);
  await event(ctx, "Normal", "Admitted", message);
}

/**
 * Applies the job's admission verdict; returns true when the job may take its usual step (admitted, or not
 * governed), false while it waits or stops for a preemption.
 */
export async function applyAdmission(ctx: JobContext): Promise<boolean> {
  const gate = ctx.deps.admission;
  if (!gate) return true;
  // Resumed after runPolicy.suspend: it queues again (its capacity was released when it was suspended).
  if (ctx.state.phase === "Suspended") await resumeJob(ctx);
  const verdict: AdmissionVerdict = await gate.verdict(ctx.job, ctx.now);
  let proceed = false;
  switch (verdict.state) {
    case "NotGoverned":
      if (ctx.state.phase === "Pending") ctx.state = { ...ctx.state, phase: "Starting", since: ctx.now };
      proceed = true;
      break;
    case "Pending":
      await holdPending(ctx, verdict);
      break;
    case "Admitted":
      await startAdmitted(ctx);
      proceed = true;
      break;
    case "Evicted":
      await stepPreemption(ctx, verdict);
      break;
    default:
      verdict satisfies never;
  }
  ctx.state.admission = gate.describe(ctx.job);
  return proceed;
}

/** The job finished, failed, was suspended or deleted: its capacity goes back to the queue. */
export async function releaseAdmission(ctx: JobContext): Promise<void> {
  await ctx.deps.admission?.release(ctx.job);
  ctx.state.admission = null;
}
