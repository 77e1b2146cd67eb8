import type { ClusterEvent, JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { timelineTotals } from "@/server/domain/console/timeline";
import type { JobTotals, TimelineEntry } from "@/server/domain/jobs/view-model";
import { AppError } from "@/server/errors";
import { listJobEvents } from "@/server/store/job-events/queries";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { timelineEntries } from "./job-view";
import { type RunOutcome, runOutcome } from "./run-outcome";

/**
 * Runs of a job name (each a job uid, JobRun rows written by the operator): a run is past once it ended,
 * its job finished (Succeeded, Failed) or deleted. Their restart records stay in Postgres; their events
 * where the local back end kept them (server/store/job-events; Kubernetes deletes a job's Events with it).
 */
export type PastRunRow = RunOutcome & {
  uid: string;
  createdAt: number;
  endedAt: number;
  phase: string | null;
  reason: string | null;
  restarts: number;
};

export type PastRun = PastRunRow & {
  namespace: string;
  name: string;
  timeline: TimelineEntry[];
  totals: JobTotals;
  events: ClusterEvent[];
};

/**
 * The name's past runs, newest first, with how many restarts each recorded (FAIL decisions excluded; a
 * crash loop's folded record counts each of its failures).
 */
export async function listPastRuns(db: Db, ref: JobRef): Promise<PastRunRow[]> {
  const runs = await db.jobRun.findMany({
    where: { namespace: ref.namespace, jobName: ref.name, endedAt: { not: null } },
    orderBy: { createdAt: "desc" },
    select: { uid: true, createdAt: true, endedAt: true, phase: true, reason: true },
  });
  const byUid = await restartsOf(
    db,
    runs.map((run) => run.uid),
  );
  return runs.map((run) => pastRunRow(run, byUid.get(run.uid) ?? 0));
}

async function restartsOf(db: Db, uids: string[]): Promise<Map<string | null, number>> {
  const counts = await db.restartEvent.groupBy({
    by: ["jobUid"],
    where: { jobUid: { in: uids }, action: { not: "FAIL" } },
    _sum: { count: true },
  });
  return new Map(counts.map((group) => [group.jobUid, group._sum.count ?? 0]));
}

function pastRunRow(
  run: { uid: string; createdAt: Date; endedAt: Date | null; phase: string | null; reason: string | null },
  restarts: number,
): PastRunRow {
  return {
    uid: run.uid,
    createdAt: run.createdAt.getTime(),
    endedAt: run.endedAt?.getTime() ?? run.createdAt.getTime(),
    phase: run.phase,
    reason: run.reason,
    restarts,
    ...runOutcome({ phase: run.phase, reason: run.reason, restarts }),
  };
}

/** One past run of the name: its timeline, totals over its life, and its events. NOT_FOUND otherwise. */
export async function pastRun(db: Db, input: { ref: JobRef; uid: string }): Promise<PastRun> {
  const { ref, uid } = input;
  const run = await db.jobRun.findFirst({
    where: { uid, namespace: ref.namespace, jobName: ref.name, endedAt: { not: null } },
    select: { uid: true, createdAt: true, endedAt: true, phase: true, reason: true },
  });
  if (!run?.endedAt)
    throw new AppError("NOT_FOUND", `job ${ref.namespace}/${ref.name} has no past run ${uid}`);
  const [rows, events, restarts] = await Promise.all([
    listRestartEvents(db, { namespace: ref.namespace, jobName: ref.name, jobUid: uid }),
    listJobEvents(db, uid),
    restartsOf(db, [uid]),
  ]);
  const timeline = timelineEntries(rows);
  const row = pastRunRow(run, restarts.get(uid) ?? 0);
  return {
    ...row,
    namespace: ref.namespace,
    name: ref.name,
    timeline,
    totals: timelineTotals(timeline, { startedAt: row.createdAt, now: row.endedAt }),
    events,
  };
}
