import type { Db } from "@/server/db/client";
import type { ScalingEventRow } from "@/server/domain/elastic/scaling-event";

/** A job run's scalings, oldest first (the console's scaling history). */
export async function listScalingEvents(
  db: Db,
  where: { namespace: string; jobName: string; jobUid: string },
): Promise<ScalingEventRow[]> {
  const rows = await db.scalingEvent.findMany({
    where: { namespace: where.namespace, jobName: where.jobName, jobUid: where.jobUid },
    orderBy: { startedAt: "asc" },
    take: 500,
  });
  return rows.map((row) => ({ ...row, outcome: row.outcome === "Failed" ? "Failed" : "Scaled" }));
}
