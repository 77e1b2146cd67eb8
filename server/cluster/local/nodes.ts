import type { ClusterNode, NodeHealth } from "@/server/cluster/types";

/**
 * Virtual nodes on this machine. A node "fails" by having its health label changed (as HyperPod's health
 * agent does) and, after `rebootAfterMs`, comes back Schedulable, like a rebooted instance.
 */
export type NodePool = {
  list(): ClusterNode[];
  get(name: string): ClusterNode | undefined;
  setHealth(name: string, health: NodeHealth): void;
  /** Marks the node UnschedulablePendingReboot; it turns Schedulable again after rebootAfterMs (0 = never). */
  fail(name: string, opts: { rebootAfterMs: number }): void;
  /** GPU indices of this machine assigned to the node, when it has real GPUs. */
  gpuIndices(name: string): number[];
  dispose(): void;
};

export function localNodeName(index: number): string {
  return `local-node-${index}`;
}

export function createNodePool(opts: {
  count: number;
  gpusPerNode: number;
  realGpus: number;
  onChange: (node: string) => void;
}): NodePool {
  const nodes = new Map<string, ClusterNode>();
  const timers = new Set<NodeJS.Timeout>();
  for (let i = 0; i < opts.count; i += 1) {
    const name = localNodeName(i);
    nodes.set(name, {
      name,
      health: "Schedulable",
      ready: true,
      gpus: opts.gpusPerNode,
      changedAt: Date.now(),
    });
  }
  const order = [...nodes.keys()];

  const setHealth = (name: string, health: NodeHealth) => {
    const node = nodes.get(name);
    if (!node || node.health === health) return;
    nodes.set(name, { ...node, health, changedAt: Date.now() });
    opts.onChange(name);
  };

  return {
    list: () => order.map((name) => nodes.get(name) as ClusterNode),
    get: (name) => nodes.get(name),
    setHealth,
    fail(name, { rebootAfterMs }) {
      setHealth(name, "UnschedulablePendingReboot");
      if (rebootAfterMs <= 0) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        setHealth(name, "Schedulable");
      }, rebootAfterMs);
      timers.add(timer);
    },
    gpuIndices(name) {
      const index = order.indexOf(name);
      if (index < 0 || opts.realGpus === 0) return [];
      const first = index * opts.gpusPerNode;
      const indices: number[] = [];
      for (let gpu = first; gpu < first + opts.gpusPerNode && gpu < opts.realGpus; gpu += 1)
        indices.push(gpu);
      return indices;
    },
    dispose() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
