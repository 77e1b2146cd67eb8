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
   * A failure after a restart that made no progress (a crash loop), under any crash-loop limit: when the
   * run's latest records are this same failure (reason, pods), the one that took the same action becomes
   * this one (its id, times, message) with count + 1 (recordRepeat).
   */
  repeat?: boolean;
  /** The policy in force (`<team>/<name> v<N>`, the job's rebound.dev/policy annotation); null: none. */
  policy?: string | null;
  /** The job's last step before the fault and its time (server/operator/reconcilers/progress.ts). */
  progressStep?: number | null;
  progressAt?: Date | null;
};

export type FaultCompletion = {
  outcome: "recovered" | "failed";
  recoveredAt: Date | null;
  message: string;
  /** Of detected → recovered, the ms spent waiting out the crash-loop back-off (0 or absent: none). */
  waitMs?: number;
};

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

/** Restart actions a failure streak can take (PLR, POD_REPLACEMENT, JLR, FAIL): the records it may fold into. */
const STREAK_LOOKBACK = 4;

/**
 * The record a repeated failure folds into: the newest of the run's latest records, all of this same
 * failure (reason, pods) with nothing else in between, that took the same action. The restart ladder may
 * answer one crash loop with in-place restarts and now and then a full job restart: each action keeps one
 * record of the streak, so the loop is one record per action, and a count per action stays exact.
 */
function streakRecord<T extends { faultReason: string; action: string; pods: string[] }>(
  latest: readonly T[],
  fault: NewRestartEvent,
): T | null {
  for (const record of latest) {
    if (record.faultReason !== fault.reason || !sameList(record.pods, fault.pods)) return null;
    if (record.action === fault.action) return record;
  }
  return null;
}

/**
 * A repeat of a failure without progress in between (a crash loop), as the streak's record for its action
 * now standing for one more failure (count + 1), under the new id, pending again; "new" when there is none
 * (a new row is inserted instead), "exists" when the new id exists already (a retried write: nothing to do).
 */
async function recordRepeat(db: Db, fault: NewRestartEvent): Promise<"repeated" | "exists" | "new"> {
  return db.$transaction(async (tx) => {
    if (await tx.restartEvent.findUnique({ where: { id: fault.id }, select: { id: true } })) return "exists";
    const latest = await tx.restartEvent.findMany({
      where: { jobUid: fault.jobUid, namespace: fault.namespace, jobName: fault.jobName },
      orderBy: { detectedAt: "desc" },
      take: STREAK_LOOKBACK,
    });
    const last = streakRecord(latest, fault);
    if (!last) return "new";
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
        waitMs: 0,
        ...repeatProgress(last, fault),
      },
    });
    return "repeated";
  });
}

/**
 * The most records one run (job uid) keeps. A crash loop folds into one record (recordRepeat), but failures
 * that alternate, or that each follow some progress, are rows of their own: past this bound the run's
 * oldest completed records go (by fault time), so a job failing for weeks cannot grow the table without end.
 */
export const MAX_RECORDS_PER_RUN = 200;

/** Deletes the run's completed records older than its newest MAX_RECORDS_PER_RUN; returns how many went. */
async function pruneRun(db: Db, fault: NewRestartEvent): Promise<number> {
  const run = { jobUid: fault.jobUid, namespace: fault.namespace, jobName: fault.jobName };
  const old = await db.restartEvent.findMany({
    where: run,
    orderBy: [{ faultAt: "desc" }, { detectedAt: "desc" }],
    skip: MAX_RECORDS_PER_RUN,
    select: { id: true, outcome: true },
  });
  // A pending record is a restart in flight: its completion must land, so it is never pruned.
  const ids = old.filter((row) => row.outcome !== "pending").map((row) => row.id);
  if (ids.length === 0) return 0;
  const { count } = await db.restartEvent.deleteMany({ where: { id: { in: ids } } });
  return count;
}

/**
 * Inserts the row unless one with its id exists (or collapses a repeat); true when this call wrote it.
 * A new row may push the run's oldest out (MAX_RECORDS_PER_RUN).
 */
export async function recordFault(db: Db, fault: NewRestartEvent): Promise<boolean> {
  if (fault.repeat) {
    const repeated = await recordRepeat(db, fault);
    if (repeated !== "new") return repeated === "repeated";
  }
  const inserted = await insertFault(db, fault);
  if (inserted) await pruneRun(db, fault);
  return inserted;
}

async function insertFault(db: Db, fault: NewRestartEvent): Promise<boolean> {
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
