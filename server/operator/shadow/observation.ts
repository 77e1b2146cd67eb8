import { isNodeHealthy } from "@/server/cluster/types";
import type { JobContext } from "@/server/operator/reconcilers/deps";
import type { ShadowObservation } from "./watcher";

const podsOf = (ctx: JobContext): ShadowObservation["pods"] =>
  ctx.obs.pods.flatMap((view) =>
    view.pod ? [{ name: view.pod.name, groupRank: view.expected.groupRank, node: view.pod.node }] : [],
  );

function clusterOf(ctx: JobContext): ShadowObservation["cluster"] {
  const healthy = ctx.obs.nodes.filter(isNodeHealthy).map((node) => node.name);
  const used = new Set(ctx.obs.pods.flatMap((view) => (view.pod?.node ? [view.pod.node] : [])));
  return { healthyNodes: healthy, spareNodes: [], freeNodes: healthy.filter((node) => !used.has(node)) };
}

/**
 * What a reconcile tells the shadow watcher of its job: running or not, this attempt, its pods and history.
 * The pods and the cluster are read only for a job with shadow rules (most have none), the cluster only
 * when a verdict is recorded: each is built on first use, not on every reconcile (at 2,048 pods and 2,050
 * nodes building both every reconcile cost 6 s of CPU while the job started).
 */
export function shadowObservation(ctx: JobContext): ShadowObservation {
  let pods: ShadowObservation["pods"] | null = null;
  let cluster: ShadowObservation["cluster"] | null = null;
  return {
    job: ctx.job,
    running: ctx.state.phase === "Running" && ctx.state.recovery === null,
    attempt: ctx.state.rendezvous?.ipVersion ?? "",
    get pods() {
      pods ??= podsOf(ctx);
      return pods;
    },
    ranksPerNode: ctx.ranksPerNode,
    status: ctx.status,
    history: ctx.state.history,
    get cluster() {
      cluster ??= clusterOf(ctx);
      return cluster;
    },
  };
}
