import type { ClusterEvent } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";

/** One run's events (its job uid), oldest first; `at` is the last occurrence, `count` how many there were. */
export async function listJobEvents(db: Db, jobUid: string): Promise<ClusterEvent[]> {
  const rows = await db.jobEvent.findMany({
    where: { jobUid },
    orderBy: { lastAt: "asc" },
    select: { type: true, reason: true, message: true, firstAt: true, lastAt: true, count: true },
  });
  return rows.map((row) => ({
    type: row.type === "Warning" ? "Warning" : "Normal",
    reason: row.reason,
    message: row.message,
    at: row.lastAt.getTime(),
    firstAt: row.firstAt.getTime(),
    count: row.count,
  }));
}
