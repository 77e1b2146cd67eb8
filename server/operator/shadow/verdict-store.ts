import type { Db } from "@/server/db/client";

/** One thing a shadow rule set would have done, as kept (the ShadowVerdict table). */
export type NewShadowVerdict = {
  jobUid: string;
  namespace: string;
  jobName: string;
  pod: string;
  rank: number;
  rule: string;
  state: string;
  reason: string;
  line: string | null;
  wouldAction: string;
  policy: string | null;
  at: Date;
};

export type VerdictStore = { save(verdict: NewShadowVerdict): Promise<void> };

/** Verdict rows kept per job run: a shadow that fires all day keeps its latest. */
export const VERDICTS_KEPT = 200;

/** In Postgres, bounded per run on write (the oldest beyond VERDICTS_KEPT go). */
export function createVerdictStore(db: Db): VerdictStore {
  return {
    async save(verdict) {
      await db.shadowVerdict.create({ data: verdict });
      const stale = await db.shadowVerdict.findMany({
        where: { jobUid: verdict.jobUid },
        orderBy: { at: "desc" },
        skip: VERDICTS_KEPT,
        select: { id: true },
      });
      if (stale.length > 0)
        await db.shadowVerdict.deleteMany({ where: { id: { in: stale.map((row) => row.id) } } });
    },
  };
}
