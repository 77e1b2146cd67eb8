import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/server/db/client";

/**
 * A fault's training progress (server/domain/goodput), times as ISO strings as they go on the wire (the
 * operator's API passes rows through): null on rows from before it was recorded.
 */
export type RestartProgress = {
  progressStep: number | null;
  progressAt: string | null;
  resumeStep: number | null;
  resumedAt: string | null;
};

const epochMs = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

/** A row's progress as a timeline entry carries it (epoch ms; nulls when it was not recorded). */
export function entryProgress(progress: RestartProgress | null | undefined): {
  progressStep: number | null;
  progressAt: number | null;
  resumeStep: number | null;
  resumedAt: number | null;
} {
  return {
    progressStep: progress?.progressStep ?? null,
    progressAt: epochMs(progress?.progressAt ?? null),
    resumeStep: progress?.resumeStep ?? null,
    resumedAt: epochMs(progress?.resumedAt ?? null),
  };
}

export type RestartEventRow = {
  id: string;
  jobName: string;
  namespace: string;
  ranks: number[];
  pods: string[];
  node: string | null;
  faultReason: string;
  faultAt: Date;
  detectedAt: Date;
  action: string;
  recoveredAt: Date | null;
  outcome: string;
  message: string;
  /** How many identical failures in a row (a crash loop) the record stands for; 1 for most. */
  count?: number;
  /** Of detected → recovered, ms spent waiting out the crash-loop back-off; 0 or absent: none. */
  waitMs?: number;
  /** The policy the recovery ran under (issue 12); null: the job's own runPolicy. */
  policy?: string | null;
  /** Training progress around the fault; null: not recorded (an older row, an agent without steps). */
  progress?: RestartProgress | null;
};

/** The fields every restart read selects. */
const summarySelect = {
  id: true,
  jobName: true,
  namespace: true,
  node: true,
  faultReason: true,
  faultAt: true,
  detectedAt: true,
  action: true,
  recoveredAt: true,
  outcome: true,
  progressStep: true,
  progressAt: true,
  resumeStep: true,
  resumedAt: true,
  // A row standing for several identical failures counts each (count), less its back-off wait (waitMs).
  count: true,
  waitMs: true,
} as const;

type ProgressColumns = {
  progressStep: number | null;
  progressAt: Date | null;
  resumeStep: number | null;
  resumedAt: Date | null;
};

/** The row with its progress columns folded into `progress` (null when none was recorded). */
function withProgress<T extends ProgressColumns>(
  row: T,
): Omit<T, keyof ProgressColumns> & { progress: RestartProgress | null } {
  const { progressStep, progressAt, resumeStep, resumedAt, ...rest } = row;
  const recorded = progressAt !== null || resumedAt !== null;
  return {
    ...rest,
    progress: recorded
      ? {
          progressStep,
          progressAt: progressAt?.toISOString() ?? null,
          resumeStep,
          resumedAt: resumedAt?.toISOString() ?? null,
        }
      : null,
  };
}

/**
 * A job's restart records: with `jobUid`, one run's only (the job page, a past run); without it, every run
 * of the name (tests and benchmarks that count what a name went through).
 */
export async function listRestartEvents(
  db: Db,
  job: { namespace: string; jobName: string; jobUid?: string },
): Promise<RestartEventRow[]> {
  const rows = await db.restartEvent.findMany({
    where:
      job.jobUid === undefined
        ? { namespace: job.namespace, jobName: job.jobName }
        : { jobUid: job.jobUid, namespace: job.namespace, jobName: job.jobName },
    orderBy: { faultAt: "asc" },
    select: {
      ...summarySelect,
      ranks: true,
      pods: true,
      message: true,
      policy: true,
    },
  });
  return rows.map(withProgress);
}

/** A restart row without its rank and pod lists (a 2,048-rank row carries thousands), with its run's uid. */
export type RestartSummaryRow = Omit<RestartEventRow, "ranks" | "pods" | "message" | "policy"> & {
  jobUid: string | null;
};

/** Restart rows matching `where`, oldest fault first, as summaries (what the TV counts). */
export async function listRestartSummaries(
  db: Db,
  where: Prisma.RestartEventWhereInput,
): Promise<RestartSummaryRow[]> {
  const rows = await db.restartEvent.findMany({
    where,
    orderBy: { faultAt: "asc" },
    select: { ...summarySelect, jobUid: true },
  });
  return rows.map(withProgress);
}

/** Rows neither recovered nor failed: a restart in flight, or (once nothing is in flight) a lost completion. */
export async function listPendingRestartEvents(
  db: Db,
): Promise<Array<{ id: string; namespace: string; jobName: string; faultReason: string }>> {
  return db.restartEvent.findMany({
    where: { outcome: "pending" },
    select: { id: true, namespace: true, jobName: true, faultReason: true },
  });
}
