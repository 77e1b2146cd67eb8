import type { JobContext } from "./deps";

/**
 * status.jobPods: references to the job's pods, in order, as HyperPod fills them for every job (elastic or
 * not). Written only when the list changes: a pod replaced under the same name changes nothing.
 */
export function writeJobPods(ctx: JobContext): void {
  const jobPods = ctx.obs.pods.flatMap((view) =>
    view.pod ? [{ apiVersion: "v1", kind: "Pod", namespace: view.pod.namespace, name: view.pod.name }] : [],
  );
  if (JSON.stringify(jobPods) !== JSON.stringify(ctx.status.jobPods ?? []))
    ctx.status = { ...ctx.status, jobPods };
}
