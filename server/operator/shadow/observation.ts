import { isNodeHealthy } from "@/server/cluster/types";
import type { JobContext } from "@/server/operator/reconcilers/deps";
import type { ShadowObservation } from "./watcher";

/** What a reconcile tells the shadow watcher of its job: running or not, this attempt, its pods and history. */
export function shadowObservation(ctx: JobContext): ShadowObservation {
  const healthy = ctx.obs.nodes.filter(isNodeHealthy).map((node) => node.name);
  const used = new Set(ctx.obs.pods.flatMap((view) => (view.pod?.node ? [view.pod.node] : [])));
  return {
    job: ctx.job,
    running: ctx.state.phase === "Running" && ctx.state.recovery === null,
    attempt: ctx.state.rendezvous?.ipVersion ?? "",
    pods: ctx.obs.pods.flatMap((view) =>
      view.pod ? [{ name: view.pod.name, groupRank: view.expected.groupRank, node: view.pod.node }] : [],
    ),
    ranksPerNode: ctx.ranksPerNode,
    status: ctx.status,
    history: ctx.state.history,
    cluster: { healthyNodes: healthy, spareNodes: [], freeNodes: healthy.filter((node) => !used.has(node)) },
  };
}
