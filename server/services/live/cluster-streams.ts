import type { ClusterNodeRow } from "@/server/domain/jobs/pages";
import type { ListDiff } from "@/server/domain/live/list-diff";
import { nodeRowList } from "@/server/domain/live/lists";
import { clusterNodes } from "@/server/services/jobs/cluster";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { liveHub } from "@/server/services/wiring";
import type { LiveMessage, LiveSource } from "./hub";
import { type ReadScope, type ScopedSession, scopedStream, sharedReads, sourceId } from "./scope";

/** How often the cluster page's nodes are looked at (the jobs and nodes read are shared with the jobs list). */
export const NODES_INTERVAL_MS = 1000;

export function clusterNodesSource(opts: {
  source: ClusterSource;
  scope: ReadScope;
}): LiveSource<ClusterNodeRow[], ListDiff<ClusterNodeRow>> {
  const { source, scope } = opts;
  return {
    key: `cluster.nodes:${sourceId(source)}:${scope.key}`,
    intervalMs: NODES_INTERVAL_MS,
    load: () => clusterNodes(sharedReads(source), scope.visible),
    diff: nodeRowList.diff,
  };
}

/** The cluster's nodes with the jobs on each the user may read, live (as the jobs list: one loop per scope). */
export function watchClusterNodes(
  session: ScopedSession & { source: ClusterSource },
): AsyncGenerator<LiveMessage<ClusterNodeRow[], ListDiff<ClusterNodeRow>>, void> {
  return scopedStream(session, (scope, signal) =>
    liveHub().stream(clusterNodesSource({ source: session.source, scope }), signal),
  );
}
