import type { Db } from "@/server/db/client";
import { COLLAPSE_WINDOW_MS, MAX_EVENT_AGE_MS, MAX_EVENTS_PER_RUN } from "./retention";

export type NewJobEvent = {
  jobUid: string;
  namespace: string;
  jobName: string;
  type: "Normal" | "Warning";
  reason: string;
  message: string;
  at: Date;
};

/** Counts the event into its run's identical recent row, if there is one; true when it did. */
async function collapse(db: Db, event: NewJobEvent): Promise<boolean> {
  const since = new Date(event.at.getTime() - COLLAPSE_WINDOW_MS);
  const changed = await db.$executeRaw`
    UPDATE "JobEvent" SET "count" = "count" + 1, "lastAt" = GREATEST("lastAt", ${event.at})
    WHERE "id" = (
      SELECT "id" FROM "JobEvent"
      WHERE "jobUid" = ${event.jobUid} AND "type" = ${event.type} AND "reason" = ${event.reason}
        AND "message" = ${event.message} AND "lastAt" >= ${since}
      ORDER BY "lastAt" DESC LIMIT 1
    )`;
  return changed > 0;
}

/** Drops the run's rows past the newest MAX_EVENTS_PER_RUN, and every row past MAX_EVENT_AGE_MS. */
async function prune(db: Db, event: NewJobEvent): Promise<void> {
  await db.$executeRaw`
    DELETE FROM "JobEvent" WHERE "id" IN (
      SELECT "id" FROM "JobEvent" WHERE "jobUid" = ${event.jobUid}
      ORDER BY "lastAt" DESC OFFSET ${MAX_EVENTS_PER_RUN}
    )`;
  await db.jobEvent.deleteMany({
    where: { lastAt: { lt: new Date(event.at.getTime() - MAX_EVENT_AGE_MS) } },
  });
}

/** Records a job's event: a repeat within the collapse window counts into the row it repeats. */
export async function recordJobEvent(db: Db, event: NewJobEvent): Promise<void> {
  if (await collapse(db, event)) return;
  await db.jobEvent.create({
    data: {
      jobUid: event.jobUid,
      namespace: event.namespace,
      jobName: event.jobName,
      type: event.type,
      reason: event.reason,
      message: event.message,
      firstAt: event.at,
      lastAt: event.at,
    },
  });
  await prune(db, event);
}
