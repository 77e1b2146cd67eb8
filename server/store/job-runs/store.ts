import type { Db } from "@/server/db/client";

/**
 * Runs of a job name (one per job uid), written by the operator: `started` when it first marks a job
 * Created, `ended` when the job finishes (Succeeded, Failed) or, before that, when its deletion is
 * finalized (phase Deleted), with a reason a user can read (server/operator/reconcilers/runs.ts). Both are
 * idempotent, and the first end wins, so a retried reconcile or a restarted operator writes nothing twice.
 */
export type JobRunStore = {
  started(run: { uid: string; namespace: string; jobName: string; createdAt: Date }): Promise<void>;
  ended(run: {
    uid: string;
    namespace: string;
    jobName: string;
    createdAt: Date;
    endedAt: Date;
    phase: string | null;
    reason: string | null;
  }): Promise<void>;
};

export function createJobRunStore(db: Db): JobRunStore {
  return {
    async started(run) {
      await db.jobRun.createMany({ data: [run], skipDuplicates: true });
    },
    async ended(run) {
      const { endedAt, phase, reason, ...start } = run;
      await db.jobRun.upsert({
        where: { uid: run.uid },
        create: { ...start, endedAt, phase, reason },
        update: {},
      });
      await db.jobRun.updateMany({
        where: { uid: run.uid, endedAt: null },
        data: { endedAt, phase, reason },
      });
    },
  };
}
