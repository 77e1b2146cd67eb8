import type { NodeView, PodTile, RankView, TopologyView } from "@/server/domain/jobs/view-model";

/** A synthetic job for tests: `nodes` nodes × `perNode` ranks, one pod per node. */
export function syntheticTopology(nodes: number, perNode: number): TopologyView {
  const nodeViews: NodeView[] = [];
  const pods: PodTile[] = [];
  const ranks: RankView[] = [];
  for (let n = 0; n < nodes; n += 1) {
    const node = `node-${n}`;
    const pod = `job-worker-${n}`;
    nodeViews.push({
      name: node,
      health: "Schedulable",
      ready: true,
      healthy: true,
      gpus: perNode,
      gpusUsed: perNode,
      pods: [pod],
    });
    const podRanks: number[] = [];
    for (let local = 0; local < perNode; local += 1) {
      const rank = n * perNode + local;
      podRanks.push(rank);
      ranks.push(syntheticRank({ rank, localRank: local, pod, node }));
    }
    pods.push({ name: pod, node, phase: "Running", agentState: "running", ranks: podRanks });
  }
  return { nodes: nodeViews, pods, ranks };
}

export function syntheticRank(overrides: Partial<RankView> & { rank: number }): RankView {
  return {
    localRank: 0,
    pod: "pod-0",
    node: "node-0",
    health: "healthy",
    state: "running",
    pid: 1000 + overrides.rank,
    step: 100,
    loss: 1.5,
    throughput: 100,
    lastLine: `step 100 loss 1.5 rank ${overrides.rank}`,
    lastLineAt: 0,
    restarts: 0,
    ruleStates: { heartbeat: "HEALTHY" },
    straggler: false,
    ...overrides,
  };
}
