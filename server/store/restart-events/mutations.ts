import type { RestartAction } from "@/generated/prisma/enums";
import type { Db } from "@/server/db/client";

/**
 * The restart timeline: one row per fault, written when it is detected and completed when it is over.
 * Both writes are idempotent: the row's id is chosen by the caller before anything else happens (and kept
 * in the job's status), so a retried write finds the row it already made; a completion applies once.
 */
export type NewRestartEvent = {
  id: string;
  /** The job's uid: the run this record belongs to (a resubmitted name is a new run). */
  jobUid: string;
  namespace: string;
  jobName: string;
  ranks: number[];
  pods: string[];
  node: string | null;
  reason: string;
  faultAt: Date;
  detectedAt: Date;
  action: RestartAction;
  message: string;
  /**
   * A failure after a restart that made no progress (a crash loop): when the job's latest record is the
   * same failure (reason, action, pods), it becomes this one (its id, times, message) with count + 1.
   */
  repeat?: boolean;
  /** The policy in force (`<team>/<name> v<N>`, the job's rebound.dev/policy annotation); null: none. */
  policy?: string | null;
  /** The job's last step before the fault and its time (server/operator/reconcilers/progress.ts). */
  progressStep?: number | null;
  progressAt?: Date | null;
};

export type FaultCompletion = { outcome: "recovered" | "failed"; recoveredAt: Date | null; message: string };

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, index) => value === b[index]);

/** No progress since the record's first failure: its last progress stays; the resume is still to come. */
function repeatProgress(
  last: { progressStep: number | null; progressAt: Date | null },
  fault: NewRestartEvent,
): { progressStep: number | null; progressAt: Date | null; resumeStep: null; resumedAt: null } {
  const kept = last.progressAt !== null;
  return {
    progressStep: kept ? last.progressStep : (fault.progressStep ?? null),
    progressAt: kept ? last.progressAt : (fault.progressAt ?? null),
    resumeStep: null,
    resumedAt: null,
  };
}

/**
 * A repeat of the job's latest record, as that record now standing for one more failure (count + 1),
 * under the new id, pending again; false when there is nothing to repeat (a new row is inserted instead)
 * or the new id exists already (a retried write: nothing to do).
 */
async function recordRepeat(db: Db, fault: NewRestartEvent): Promise<"repeated" | "exists" | "new"> {
  return db.$transaction(async (tx) => {
    if (await tx.restartEvent.findUnique({ where: { id: fault.id }, select: { id: true } })) return "exists";
    const last = await tx.restartEvent.findFirst({
      where: { jobUid: fault.jobUid, namespace: fault.namespace, jobName: fault.jobName },
      orderBy: { detectedAt: "desc" },
    });
    if (
      !last ||
      last.faultReason !== fault.reason ||
      last.action !== fault.action ||
      !sameList(last.pods, fault.pods)
    )
      return "new";
    await tx.restartEvent.update({
      where: { id: last.id },
      data: {
        id: fault.id,
        count: { increment: 1 },
        faultAt: fault.faultAt,
        detectedAt: fault.detectedAt,
        message: fault.message,
        ranks: fault.ranks,
        outcome: fault.action === "FAIL" ? "failed" : "pending",
        recoveredAt: null,
        ...repeatProgress(last, fault),
      },
    });
    return "repeated";
  });
}

/** Inserts the row unless one with its id exists (or collapses a repeat); true when this call wrote it. */
export async function recordFault(db: Db, fault: NewRestartEvent): Promise<boolean> {
  if (fault.repeat) {
    const repeated = await recordRepeat(db, fault);
    if (repeated !== "new") return repeated === "repeated";
  }
  const { namespace, jobName, reason, repeat: _repeat, ...rest } = fault;
  const { count } = await db.restartEvent.createMany({
    data: [
      {
        namespace,
        jobName,
        faultReason: reason,
        ...rest,
        outcome: fault.action === "FAIL" ? "failed" : "pending",
      },
    ],
    skipDuplicates: true,
  });
  return count === 1;
}

/** Completes a pending row; true when this call completed it (false: already completed, or no such row). */
export async function completeFault(db: Db, id: string, result: FaultCompletion): Promise<boolean> {
  const { count } = await db.restartEvent.updateMany({ where: { id, outcome: "pending" }, data: result });
  return count === 1;
}

/** When a restarted job's training is back (server/operator/reconcilers/progress.ts). */
export type ResumeFacts = { resumeStep: number | null; resumedAt: Date | null };

/** Records the step training restarted from and, once there, when progress was back; true when a row changed. */
export async function recordResume(db: Db, id: string, facts: ResumeFacts): Promise<boolean> {
  const { count } = await db.restartEvent.updateMany({ where: { id, resumedAt: null }, data: facts });
  return count === 1;
}

/** The job's latest row still waiting for its training to be back, if any (an operator that restarted). */
export type AwaitingResume = {
  id: string;
  progressStep: number;
  progressAt: Date;
  resumeStep: number | null;
  recoveredAt: Date | null;
  outcome: string;
};

export async function findAwaitingResume(db: Db, jobUid: string): Promise<AwaitingResume | null> {
  const last = await db.restartEvent.findFirst({
    where: { jobUid },
    orderBy: { detectedAt: "desc" },
    select: {
      id: true,
      progressStep: true,
      progressAt: true,
      resumeStep: true,
      resumedAt: true,
      recoveredAt: true,
      outcome: true,
    },
  });
  if (!last || last.progressStep === null || last.progressAt === null || last.resumedAt !== null) return null;
  if (last.outcome === "failed") return null;
  return { ...last, progressStep: last.progressStep, progressAt: last.progressAt };
}
