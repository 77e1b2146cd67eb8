import type { CoreV1Api, V1Node } from "@kubernetes/client-node";
import type { CapacityIndex } from "@/server/cluster/placement";
import type { ClusterNode, JobRef } from "@/server/cluster/types";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import type { NodeVerdict } from "@/server/domain/node-health/evaluate";
import type { NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import type { NodeMetricsFeed } from "@/server/metrics/node-metrics";
import type { WatchSettings } from "../api-calls";
import { createInformer, type Informer, type KubeObject, type ObjectList } from "../informer";
import { nodeFingerprint, toClusterNode } from "../objects";

/** A node-signal table that may change while the back end runs: nodes are judged again on each change. */
export type NodeSignalSource = {
  current(): NodeSignalTable;
  onChange(listener: (table: NodeSignalTable) => void): () => void;
};

export type NodeWatch = {
  readonly informer: Informer<V1Node & KubeObject>;
  /** Every node's view, rebuilt only after the node store changed: the same frozen array until then. */
  list(): readonly ClusterNode[];
  /** Whether pods on that node must go at once: the node is gone or its verdict is to replace now. */
  replaceNow(name: string | undefined): boolean;
  /** Hands the nodes changed since the last call to the capacity index (before each placement). */
  syncCapacity(): void;
  /** Starts the metric feed (after the informers' first lists). */
  startFeeds(): void;
  /** Stops listening to the signal table and the metric feed. */
  stopFeeds(): void;
};

/**
 * The nodes: their informer, and each node's view judged by the node-signal table and the metric facts
 * (server/domain/node-health). Only a change of a node's health, readiness or GPUs wakes jobs; a new table
 * or new metric facts judge the nodes again.
 */
export function createNodeWatch(opts: {
  settings: WatchSettings;
  core: CoreV1Api;
  clock: () => number;
  /** The table nodes are judged by, or a source of it that may change; default: the shipped one. */
  nodeSignals?: NodeSignalTable | NodeSignalSource;
  nodeMetrics?: NodeMetricsFeed;
  /** Where placement reads the nodes from. */
  capacity: Pick<CapacityIndex, "setNode">;
  /** Jobs may have to act (null: any job). */
  emit: (ref: JobRef | null) => void;
}): NodeWatch {
  const { core, clock, capacity, emit } = opts;
  const nodeSeen = new Map<string, { fingerprint: string; changedAt: number; verdict?: NodeVerdict }>();
  const signalSource = Array.isArray(opts.nodeSignals)
    ? null
    : (opts.nodeSignals as NodeSignalSource | undefined);
  let nodeSignals =
    signalSource?.current() ?? (opts.nodeSignals as NodeSignalTable | undefined) ?? DEFAULT_NODE_SIGNALS;

  // A node's view is made once per stored object; its changedAt moves only when its fingerprint does, and
  // each of its signals keeps the time it was first seen.
  let nodeViews = new WeakMap<V1Node, ClusterNode>();
  const makeNodeView = (node: V1Node): ClusterNode => {
    const name = node.metadata?.name ?? "";
    const seen = nodeSeen.get(name);
    const now = clock();
    const judged = {
      changedAt: seen?.changedAt ?? now,
      now,
      table: nodeSignals,
      previous: seen?.verdict,
      metrics: opts.nodeMetrics?.get(name),
    };
    const view = toClusterNode(node, judged);
    const fingerprint = nodeFingerprint(view);
    if (seen?.fingerprint === fingerprint) return view;
    const changedAt = seen ? now : view.changedAt;
    nodeSeen.set(name, { fingerprint, changedAt, verdict: view.verdict });
    return { ...view, changedAt };
  };
  const nodeView = (node: V1Node): ClusterNode => {
    let view = nodeViews.get(node);
    if (!view) {
      view = makeNodeView(node);
      nodeViews.set(node, view);
    }
    return view;
  };
  let nodeList: readonly ClusterNode[] | null = null;
  // Nodes changed since the capacity index last saw them (read at the next pick, after the event's handling).
  const nodesToPlace = new Set<string>();
  const nodes = createInformer<V1Node & KubeObject>({
    ...opts.settings,
    name: "nodes",
    watchPath: "/api/v1/nodes",
    list: () => core.listNode() as Promise<ObjectList<V1Node & KubeObject>>,
    onStore: (key) => {
      nodeList = null;
      nodesToPlace.add(key);
    },
    // Heartbeats change nodes every few seconds; only a change of health, readiness or GPUs wakes jobs.
    onEvent: (type, node) => {
      if (!node) return emit(null);
      const before = nodeSeen.get(node.metadata?.name ?? "")?.fingerprint;
      if (type === "DELETED") nodeSeen.delete(node.metadata?.name ?? "");
      else if (before === nodeFingerprint(nodeView(node))) return;
      emit(null);
    },
  });
  // New metric facts for some nodes: their views are judged again, and jobs woken when a verdict changed.
  const metricsChanged = (names: readonly string[]) => {
    let changed = false;
    for (const name of names) {
      const node = nodes.get(name);
      if (!node) continue;
      const before = nodeSeen.get(name)?.fingerprint;
      nodeViews.delete(node);
      nodeList = null;
      nodesToPlace.add(name);
      if (before !== nodeFingerprint(nodeView(node))) changed = true;
    }
    if (changed) emit(null);
  };
  let unsubscribeMetrics: (() => void) | null = null;
  // A new node-signal table: every node is judged again (views, capacity) and every job woken to act on it.
  const stopSignals = signalSource?.onChange((table) => {
    nodeSignals = table;
    nodeViews = new WeakMap();
    nodeList = null;
    for (const node of nodes.list()) nodesToPlace.add(node.metadata?.name ?? "");
    emit(null);
  });

  return {
    informer: nodes,
    list() {
      nodeList ??= Object.freeze(nodes.list().map(nodeView));
      return nodeList;
    },
    replaceNow(name) {
      const node = name ? nodes.get(name) : undefined;
      return !node || nodeView(node).verdict?.action === "replace-now";
    },
    syncCapacity() {
      for (const name of nodesToPlace) {
        const node = nodes.get(name);
        capacity.setNode(name, node ? nodeView(node) : undefined);
      }
      nodesToPlace.clear();
    },
    startFeeds() {
      unsubscribeMetrics ??= opts.nodeMetrics?.onChange(metricsChanged) ?? null;
      opts.nodeMetrics?.start();
    },
    stopFeeds() {
      stopSignals?.();
      opts.nodeMetrics?.stop();
      unsubscribeMetrics?.();
      unsubscribeMetrics = null;
    },
  };
}
