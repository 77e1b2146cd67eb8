import type { ClusterPod } from "@/server/cluster/types";
import type { AgentView, ObservedPod } from "@/server/operator/reconcilers/observe";

/** Pod `index` of job "job" (replica spec "w") in namespace "ns", Running on node `n<index>`, for unit tests. */
export function testPod(index: number, overrides: Partial<ClusterPod> = {}): ClusterPod {
  return {
    name: `job-w-${index}`,
    namespace: "ns",
    job: "job",
    replicaSpec: "w",
    index,
    node: `n${index}`,
    phase: "Running",
    agentUrl: `http://127.0.0.1:${9000 + index}`,
    createdAt: 0,
    finishedAt: null,
    ...overrides,
  };
}

/** The observation's view of testPod(index) (null overrides: no pod) with its agent's view. */
export function testView(
  index: number,
  agent: AgentView,
  podOverrides: Partial<ClusterPod> | null = {},
): ObservedPod {
  return {
    expected: { name: `job-w-${index}`, replicaSpec: "w", index, groupRank: index },
    pod: podOverrides === null ? null : testPod(index, podOverrides),
    agent,
  };
}
