import type { CoreV1Api, CoreV1Event } from "@kubernetes/client-node";
import type { ClusterEvent, JobRef } from "@/server/cluster/types";
import { JOB_API_VERSION, JOB_KIND } from "@/server/domain/job-spec/job-spec.schema";
import type { WatchSettings } from "../api-calls";
import { createInformer, type Informer, type KubeObject, type ObjectList } from "../informer";
import { toClusterEvent } from "../objects";

export type EventWatch = {
  readonly informer: Informer<CoreV1Event & KubeObject>;
  /** The job's events of this run, oldest first. */
  list(ref: JobRef): ClusterEvent[];
  /** Records an event on the job (an operator only; nothing for a job not in the cache). */
  record(ref: JobRef, event: Omit<ClusterEvent, "at">): Promise<void>;
};

/** The Kubernetes events whose involved object is one of our jobs: their informer, and the operator's writes. */
export function createEventWatch(opts: {
  settings: WatchSettings;
  core: CoreV1Api;
  clock: () => number;
  writer: boolean;
  /** The job object as cached (its uid tells this run's events from an earlier run's). */
  job: (ref: JobRef) => KubeObject | undefined;
}): EventWatch {
  const { core, clock, writer, job } = opts;
  const eventSelector = { fieldSelector: `involvedObject.kind=${JOB_KIND}` };
  const events = createInformer<CoreV1Event & KubeObject>({
    ...opts.settings,
    name: "events",
    watchPath: "/api/v1/events",
    query: eventSelector,
    list: () =>
      core.listEventForAllNamespaces(eventSelector) as Promise<ObjectList<CoreV1Event & KubeObject>>,
  });

  return {
    informer: events,
    // This run's events only: a job resubmitted under the same name has a new uid (involvedObject.uid).
    list(ref) {
      const uid = job(ref)?.metadata?.uid;
      if (!uid) return [];
      return events
        .list()
        .filter(
          (event) =>
            event.involvedObject?.namespace === ref.namespace &&
            event.involvedObject?.name === ref.name &&
            event.involvedObject?.uid === uid,
        )
        .map(toClusterEvent)
        .sort((a, b) => a.at - b.at);
    },
    async record(ref, event) {
      const object = job(ref);
      if (!writer || !object) return;
      const now = new Date(clock());
      await core.createNamespacedEvent({
        namespace: ref.namespace,
        body: {
          metadata: {
            name: `${ref.name}.${now.getTime().toString(16)}${Math.random().toString(16).slice(2, 6)}`,
          },
          involvedObject: {
            apiVersion: JOB_API_VERSION,
            kind: JOB_KIND,
            name: ref.name,
            namespace: ref.namespace,
            uid: object.metadata?.uid,
          },
          type: event.type,
          reason: event.reason,
          message: event.message,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
          source: { component: "rebound-operator" },
          reportingComponent: "rebound-operator",
        },
      });
    },
  };
}
