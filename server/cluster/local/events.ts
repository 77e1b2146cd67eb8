import type { ClusterEvent, JobRef } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import { recordJobEvent } from "@/server/store/job-events/mutations";
import { listJobEvents } from "@/server/store/job-events/queries";
import type { JobStore } from "./job-store";

/**
 * The local back end's stand-in for Kubernetes Events: in Postgres, per job uid (so they survive an
 * operator restart, and a job resubmitted under the same name starts with none), repeats collapsed into a
 * count and kept bounded (server/store/job-events/retention.ts).
 */
export function createEventLog(deps: { db: Db; jobs: Pick<JobStore, "get"> }) {
  return {
    /** An event of a job that no longer exists is dropped (as the apiserver refuses one without its object). */
    async record(ref: JobRef, event: Omit<ClusterEvent, "at">): Promise<void> {
      const job = await deps.jobs.get(ref);
      if (!job) return;
      await recordJobEvent(deps.db, {
        jobUid: job.uid,
        namespace: ref.namespace,
        jobName: ref.name,
        type: event.type,
        reason: event.reason,
        message: event.message,
        at: new Date(),
      });
    },
    /** The events of the job's current run. */
    async list(ref: JobRef): Promise<ClusterEvent[]> {
      const job = await deps.jobs.get(ref);
      return job ? listJobEvents(deps.db, job.uid) : [];
    },
  };
}
