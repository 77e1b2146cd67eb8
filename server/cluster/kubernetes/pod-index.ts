import type { V1Pod } from "@kubernetes/client-node";
import { LABEL_JOB, podGpuRequest } from "./objects";

/**
 * The pod informer's store, indexed as the operator reads it, kept in step with every store change
 * (`onStore`): a job's pods by job (a reconcile reads its own job's pods, not every pod in the cluster), and
 * the GPUs that live pods hold per node (placement). Each change costs O(1), so a fault's handling does not
 * grow with the number of other pods.
 */
export type PodIndex = {
  onStore(key: string, before: V1Pod | undefined, after: V1Pod | undefined): void;
  /**
   * The job's pods (namespace/name of the job), in the order the store first saw them: the same array until
   * one of them changes, so a reader can tell "nothing changed" by identity (a quiet reconcile of a large
   * job then skips its per-pod work, observe.ts). Read-only: it is shared.
   */
  jobPods(namespace: string, job: string): readonly V1Pod[];
  /** GPUs held per node by pods that are neither finished nor being deleted. */
  gpusInUse(): ReadonlyMap<string, number>;
};

const isTerminal = (pod: V1Pod) =>
  pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed" || !!pod.metadata?.deletionTimestamp;

const jobOf = (pod: V1Pod): string | null => {
  const job = pod.metadata?.labels?.[LABEL_JOB];
  return job ? `${pod.metadata?.namespace ?? ""}/${job}` : null;
};

/** `onUsage`: the GPUs held on that node changed. */
export function createPodIndex(opts: { onUsage?: (node: string) => void } = {}): PodIndex {
  const byJob = new Map<string, Map<string, V1Pod>>();
  /** jobPods' answer per job, dropped on any change to the job's pods. */
  const lists = new Map<string, readonly V1Pod[]>();
  const gpus = new Map<string, number>();
  const NONE: readonly V1Pod[] = Object.freeze([]);

  const countGpus = (pod: V1Pod | undefined, sign: 1 | -1) => {
    const node = pod?.spec?.nodeName;
    if (!pod || !node || isTerminal(pod)) return;
    const total = (gpus.get(node) ?? 0) + sign * podGpuRequest(pod);
    // No entry and 0 read the same (`get(node) ?? 0`).
    if (total === 0) gpus.delete(node);
    else gpus.set(node, total);
    opts.onUsage?.(node);
  };

  const unindex = (key: string, pod: V1Pod | undefined) => {
    if (!pod) return;
    countGpus(pod, -1);
    const job = jobOf(pod);
    const pods = job ? byJob.get(job) : undefined;
    if (!job || !pods) return;
    lists.delete(job);
    pods.delete(key);
    if (pods.size === 0) byJob.delete(job);
  };

  const index = (key: string, pod: V1Pod | undefined) => {
    if (!pod) return;
    countGpus(pod, 1);
    const job = jobOf(pod);
    if (!job) return;
    lists.delete(job);
    let pods = byJob.get(job);
    if (!pods) {
      pods = new Map();
      byJob.set(job, pods);
    }
    pods.set(key, pod);
  };

  return {
    onStore(key, before, after) {
      // A pod that stays in its job keeps its place in the job's order (Map.set on an existing key).
      if (before && after && jobOf(before) === jobOf(after)) {
        countGpus(before, -1);
        countGpus(after, 1);
        const job = jobOf(after);
        if (job) {
          byJob.get(job)?.set(key, after);
          lists.delete(job);
        }
        return;
      }
      unindex(key, before);
      index(key, after);
    },
    jobPods(namespace, job) {
      const key = `${namespace}/${job}`;
      const pods = byJob.get(key);
      if (!pods) return NONE;
      let list = lists.get(key);
      if (!list) {
        list = Object.freeze([...pods.values()]);
        lists.set(key, list);
      }
      return list;
    },
    gpusInUse: () => gpus,
  };
}
