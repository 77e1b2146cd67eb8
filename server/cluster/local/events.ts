import type { ClusterEvent, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";

/** Recent events per job, bounded, in memory (the local back end's stand-in for Kubernetes Events). */
export function createEventLog(limitPerJob = 200) {
  const events = new Map<string, ClusterEvent[]>();
  return {
    record(ref: JobRef, event: ClusterEvent): void {
      const list = events.get(jobKey(ref)) ?? [];
      list.push(event);
      if (list.length > limitPerJob) list.splice(0, list.length - limitPerJob);
      events.set(jobKey(ref), list);
    },
    list: (ref: JobRef): ClusterEvent[] => [...(events.get(jobKey(ref)) ?? [])],
    forget: (ref: JobRef): void => {
      events.delete(jobKey(ref));
    },
  };
}
