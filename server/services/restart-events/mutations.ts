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
};

export type FaultCompletion = { outcome: "recovered" | "failed"; recoveredAt: Date | null; message: string };

/** Inserts the row unless one with its id exists; true when this call inserted it. */
export async function recordFault(db: Db, fault: NewRestartEvent): Promise<boolean> {
  const { namespace, jobName, reason, ...rest } = fault;
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
