import type { JobContext } from "./deps";

type PodRef = { apiVersion?: string; kind?: string; namespace?: string; name?: string };

/**
 * status.jobPods: references to the job's pods, in order, for elastic jobs (whose pods come and go with their
 * size), as HyperPod documents it for them. Not for every job: at 2,048 pods the list is ~150 KB in every
 * status write, and building and comparing it was the operator's largest own cost per reconcile
 * (bench:k8s profile, 2026-12-07). Written only when a name changes; the comparison allocates nothing.
 */
export function writeJobPods(ctx: JobContext): void {
  const pods = ctx.obs.pods.flatMap((view) => (view.pod ? [view.pod] : []));
  const current: readonly PodRef[] = ctx.status.jobPods ?? [];
  const same =
    current.length === pods.length &&
    pods.every(
      (pod, index) => current[index]?.name === pod.name && current[index]?.namespace === pod.namespace,
    );
  if (same) return;
  const jobPods = pods.map((pod) => ({
    apiVersion: "v1",
    kind: "Pod",
    namespace: pod.namespace,
    name: pod.name,
  }));
  ctx.status = { ...ctx.status, jobPods };
}
