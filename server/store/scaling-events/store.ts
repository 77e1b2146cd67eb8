import type { Db } from "@/server/db/client";
import type { ScalingEventRow } from "@/server/domain/elastic/scaling-event";

/** What the operator needs of the scaling history (an in-memory one in unit tests). */
export type ScalingEventStore = {
  /** Inserts the row unless one with its id exists (a retried reconcile writes the same id). */
  record(row: ScalingEventRow): Promise<void>;
};

/** Rows kept per job run: older ones go when a new one is written. */
export const SCALING_EVENTS_PER_RUN = 200;

export function createScalingEventStore(db: Db): ScalingEventStore {
  return {
    async record(row) {
      await db.scalingEvent.upsert({ where: { id: row.id }, create: row, update: {} });
      const old = await db.scalingEvent.findMany({
        where: { jobUid: row.jobUid },
        orderBy: { startedAt: "desc" },
        skip: SCALING_EVENTS_PER_RUN,
        select: { id: true },
      });
      if (old.length > 0) await db.scalingEvent.deleteMany({ where: { id: { in: old.map((r) => r.id) } } });
    },
  };
}
