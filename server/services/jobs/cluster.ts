import { isNodeHealthy } from "@/server/cluster/types";
import type { ClusterNodeRow } from "@/server/domain/jobs/pages";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { toAppError } from "./queries";

/**
 * Every node with its health, its GPUs used by the jobs' pods, and which jobs run there: GPUs count every
 * job's pods, but only the jobs the caller may see (`visible`) are named.
 */
export async function clusterNodes(
  source: ClusterSource,
  visible: (namespace: string) => boolean,
): Promise<ClusterNodeRow[]> {
  const [nodes, jobs] = await Promise.all([source.nodes(), source.jobs()]).catch((error: unknown) => {
    throw toAppError(error);
  });
  const perPodGpus = new Map(
    jobs.map((job) => [`${job.namespace}/${job.name}`, job.pods.length > 0 ? job.gpus / job.pods.length : 0]),
  );
  return nodes
    .map((node) => {
      const pods = jobs.flatMap((job) =>
        job.pods
          .filter((pod) => pod.node === node.name && (pod.phase === "Running" || pod.phase === "Pending"))
          .map((pod) => ({ job, pod })),
      );
      return {
        name: node.name,
        health: node.health,
        ready: node.ready,
        healthy: isNodeHealthy(node),
        verdict: node.verdict
          ? {
              meaning: node.verdict.meaning,
              action: node.verdict.action,
              source: node.verdict.source,
              reason: node.verdict.reason,
            }
          : null,
        gpus: node.gpus,
        gpusUsed: pods.reduce(
          (sum, { job }) => sum + (perPodGpus.get(`${job.namespace}/${job.name}`) ?? 0),
          0,
        ),
        pods: pods.filter(({ job }) => visible(job.namespace)).map(({ pod }) => pod.name),
        jobs: [
          ...new Set(
            pods.filter(({ job }) => visible(job.namespace)).map(({ job }) => `${job.namespace}/${job.name}`),
          ),
        ].sort(),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
}
