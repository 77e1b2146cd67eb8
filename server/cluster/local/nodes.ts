import type { ClusterNode, NodeHealth } from "@/server/cluster/types";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import { evaluateNode, type NodeFacts, verdictFingerprint } from "@/server/domain/node-health/evaluate";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import type { NodeFaultSource } from "@/server/domain/operator-api/contract";
import { GPU_RESOURCE, HEALTH_LABEL, initialFacts, SIGNAL_FAULTS } from "./node-facts";

/**
 * Virtual nodes on this machine. Each keeps the facts a Kubernetes Node carries (node-facts.ts) and is
 * judged by the node-signal table, as the Kubernetes back end judges its nodes (ClusterNode.verdict). A
 * node "fails" by having its health label changed (as HyperPod's health agent does) and, after
 * `rebootAfterMs`, comes back Schedulable, like a rebooted instance; or by another source's fact
 * (`signal`), cleared after the same delay.
 */
export type NodePool = {
  list(): ClusterNode[];
  get(name: string): ClusterNode | undefined;
  /** The node's facts, as the table reads them. */
  facts(name: string): NodeFacts | undefined;
  setHealth(name: string, health: NodeHealth): void;
  /** Marks the node UnschedulablePendingReboot; it turns Schedulable again after rebootAfterMs (0 = never). */
  fail(name: string, opts: { rebootAfterMs: number }): void;
  /** Sets the source's fact on the node; it is cleared after clearAfterMs (0 = never). */
  signal(name: string, source: Exclude<NodeFaultSource, "hyperpod">, opts: { clearAfterMs: number }): void;
  /** GPU indices of this machine assigned to the node, when it has real GPUs. */
  gpuIndices(name: string): number[];
  dispose(): void;
};

export function localNodeName(index: number): string {
  return `local-node-${index}`;
}

type Entry = { facts: NodeFacts; view: ClusterNode; fingerprint: string };

const fingerprintOf = (node: ClusterNode) =>
  `${node.health}|${node.ready}|${node.gpus}|${node.verdict ? verdictFingerprint(node.verdict) : ""}`;

/** What the Kubernetes back end shows of a Node's facts (a cordoned Schedulable node is Unschedulable). */
function nodeView(name: string, facts: NodeFacts): Pick<ClusterNode, "name" | "health" | "ready" | "gpus"> {
  const label = facts.labels[HEALTH_LABEL] ?? "Schedulable";
  const gpus = Number(facts.allocatable[GPU_RESOURCE] ?? facts.capacity[GPU_RESOURCE] ?? 0);
  return {
    name,
    health: facts.unschedulable && label === "Schedulable" ? "Unschedulable" : label,
    ready: facts.conditions.some((condition) => condition.type === "Ready" && condition.status === "True"),
    gpus: Number.isFinite(gpus) ? gpus : 0,
  };
}

export function createNodePool(opts: {
  count: number;
  gpusPerNode: number;
  realGpus: number;
  onChange: (node: string) => void;
  /** The node-signal table in force (read at each change); default the shipped one. */
  nodeSignals?: () => NodeSignalTable;
}): NodePool {
  const tableNow = () => opts.nodeSignals?.() ?? DEFAULT_NODE_SIGNALS;
  const entries = new Map<string, Entry>();
  const timers = new Set<NodeJS.Timeout>();
  let judgedBy = tableNow();
  let listed: ClusterNode[] | null = null;

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  /** The node as the table sees these facts; changedAt moves only when what the operator reads does. */
  const judge = (name: string, facts: NodeFacts, seen: Entry | undefined, now: number): Entry => {
    const view: ClusterNode = {
      ...nodeView(name, facts),
      changedAt: seen?.view.changedAt ?? now,
      verdict: evaluateNode(facts, judgedBy, { now, previous: seen?.view.verdict }),
    };
    const fingerprint = fingerprintOf(view);
    if (seen && seen.fingerprint !== fingerprint) view.changedAt = now;
    return { facts, view, fingerprint };
  };

  for (let i = 0; i < opts.count; i += 1) {
    const name = localNodeName(i);
    entries.set(name, judge(name, initialFacts(opts.gpusPerNode), undefined, Date.now()));
  }
  const order = [...entries.keys()];

  /** A new table (from its provider) judges every node again. */
  const rejudgeOnNewTable = () => {
    const table = tableNow();
    if (table === judgedBy) return;
    judgedBy = table;
    listed = null;
    const now = Date.now();
    for (const [name, entry] of entries) entries.set(name, judge(name, entry.facts, entry, now));
  };

  const changeFacts = (name: string, change: (facts: NodeFacts) => NodeFacts) => {
    const entry = entries.get(name);
    if (!entry) return;
    rejudgeOnNewTable();
    const now = Date.now();
    const next = judge(name, change(entry.facts), entries.get(name), now);
    entries.set(name, next);
    listed = null;
    if (next.fingerprint === entry.fingerprint) return;
    opts.onChange(name);
    // A grace period (replace-after-grace) ends with no change of facts: the operator looks again then.
    const due = next.view.verdict?.replaceAt ?? null;
    if (due !== null && due > now) later(due - now + 1, () => opts.onChange(name));
  };

  const setHealth = (name: string, health: NodeHealth) =>
    changeFacts(name, (facts) => ({ ...facts, labels: { ...facts.labels, [HEALTH_LABEL]: health } }));

  return {
    list() {
      rejudgeOnNewTable();
      listed ??= order.map((name) => (entries.get(name) as Entry).view);
      return listed;
    },
    get: (name) => entries.get(name)?.view,
    facts: (name) => entries.get(name)?.facts,
    setHealth,
    fail(name, { rebootAfterMs }) {
      setHealth(name, "UnschedulablePendingReboot");
      if (rebootAfterMs > 0) later(rebootAfterMs, () => setHealth(name, "Schedulable"));
    },
    signal(name, source, { clearAfterMs }) {
      const fault = SIGNAL_FAULTS[source];
      changeFacts(name, fault.set);
      if (clearAfterMs > 0) later(clearAfterMs, () => changeFacts(name, fault.clear));
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
