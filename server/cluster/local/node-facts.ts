import { DCGM_XID_METRIC } from "@/server/domain/node-health/default-signals";
import type { NodeFacts } from "@/server/domain/node-health/evaluate";
import type { NodeSignalSource, NodeSignalTable } from "@/server/domain/node-health/signal-table.schema";
import { NODE_FAULT_SOURCES, type NodeFaultSource } from "@/server/domain/operator-api/contract";

/**
 * What a virtual node looks like to the node-signal table (server/domain/node-health): the facts a
 * Kubernetes Node object carries (labels, conditions, taints, the cordon, capacity and allocatable), and
 * for each source the fact it sets on a bad node, as that source writes it on a real cluster, and the fact
 * it leaves once the node is well again. The operator then judges a local node as it judges a Kubernetes one.
 */

export const HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status";
export const GPU_RESOURCE = "nvidia.com/gpu";

type Condition = NodeFacts["conditions"][number];

const READY: Condition = {
  type: "Ready",
  status: "True",
  reason: "KubeletReady",
  message: "kubelet is posting ready status",
};

/** A new node: HyperPod's label Schedulable, Ready, all its GPUs allocatable. */
export function initialFacts(gpus: number): NodeFacts {
  return {
    labels: { [HEALTH_LABEL]: "Schedulable" },
    conditions: [READY],
    taints: [],
    unschedulable: false,
    capacity: { [GPU_RESOURCE]: String(gpus) },
    allocatable: { [GPU_RESOURCE]: String(gpus) },
  };
}

/** The condition of that type replaced (or added), as a node's status is patched. */
export function withCondition(facts: NodeFacts, condition: Condition): NodeFacts {
  const others = facts.conditions.filter((each) => each.type !== condition.type);
  return { ...facts, conditions: [...others, condition] };
}

const NOT_READY_TAINT = { key: "node.kubernetes.io/not-ready", effect: "NoExecute" };

/** The XID metric's series for GPU 0, as the DCGM exporter labels it. */
const xidSeries = (value: number) => ({
  name: DCGM_XID_METRIC,
  series: "gpu=0",
  labels: { gpu: "0", err_code: String(value), err_msg: value ? "GPU has fallen off the bus" : "" },
  value,
});

type SignalFault = {
  /** The table's source whose rows read the fact (a table without them would not see it). */
  reads: NodeSignalSource;
  set(facts: NodeFacts): NodeFacts;
  clear(facts: NodeFacts): NodeFacts;
};

/** Each source but HyperPod's label (nodes.ts: fail), with the messages its agent writes. */
export const SIGNAL_FAULTS: Record<Exclude<NodeFaultSource, "hyperpod">, SignalFault> = {
  // NVSentinel's health monitors set a `<Check>` condition True on a fatal event, False once it passes.
  nvsentinel: {
    reads: "nvsentinel",
    set: (facts) =>
      withCondition(facts, {
        type: "GpuMemWatch",
        status: "True",
        reason: "GpuMemWatchIsNotHealthy",
        message: "ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0 Recommended Action=COMPONENT_RESET;",
      }),
    clear: (facts) =>
      withCondition(facts, {
        type: "GpuMemWatch",
        status: "False",
        reason: "GpuMemWatchIsHealthy",
        message: "No Health Failures",
      }),
  },
  // node-problem-detector's kernel monitor (its kernel-monitor.json rules).
  npd: {
    reads: "npd",
    set: (facts) =>
      withCondition(facts, {
        type: "KernelDeadlock",
        status: "True",
        reason: "DockerHung",
        message: "kernel: INFO: task docker:20744 blocked for more than 120 seconds.",
      }),
    clear: (facts) =>
      withCondition(facts, {
        type: "KernelDeadlock",
        status: "False",
        reason: "KernelHasNoDeadlock",
        message: "kernel has no deadlock",
      }),
  },
  // The EKS node monitoring agent: a fatal Xid turns AcceleratedHardwareReady False.
  eks: {
    reads: "eks",
    set: (facts) =>
      withCondition(facts, {
        type: "AcceleratedHardwareReady",
        status: "False",
        reason: "NvidiaXID79Error",
        message: "NVRM: Xid (PCI:0000:10:1c): 79, GPU has fallen off the bus.",
      }),
    clear: (facts) =>
      withCondition(facts, {
        type: "AcceleratedHardwareReady",
        status: "True",
        reason: "NvidiaAcceleratedHardwareIsReady",
        message: "",
      }),
  },
  // The DCGM exporter's last Xid of GPU 0 (79: reboot the node, in NVIDIA's Xid catalog); 0 after reboot.
  dcgm: {
    reads: "dcgm",
    set: (facts) => ({ ...facts, metrics: [xidSeries(79)] }),
    clear: (facts) => ({ ...facts, metrics: [xidSeries(0)] }),
  },
  // The NVIDIA device plugin reports a GPU it found unhealthy by lowering allocatable.
  "device-plugin": {
    reads: "device-plugin",
    set: (facts) => {
      const capacity = Number(facts.capacity[GPU_RESOURCE] ?? 0);
      return {
        ...facts,
        allocatable: { ...facts.allocatable, [GPU_RESOURCE]: String(Math.max(0, capacity - 1)) },
      };
    },
    clear: (facts) => ({
      ...facts,
      allocatable: { ...facts.allocatable, [GPU_RESOURCE]: facts.capacity[GPU_RESOURCE] ?? "0" },
    }),
  },
  // `kubectl cordon`.
  cordon: {
    reads: "kubernetes",
    set: (facts) => ({ ...facts, unschedulable: true }),
    clear: (facts) => ({ ...facts, unschedulable: false }),
  },
  // The kubelet stops posting Ready; the node lifecycle controller taints the node.
  "not-ready": {
    reads: "kubernetes",
    set: (facts) => ({
      ...withCondition(facts, {
        type: "Ready",
        status: "False",
        reason: "KubeletNotReady",
        message: "container runtime network not ready: NetworkReady=false",
      }),
      taints: [...facts.taints.filter((taint) => taint.key !== NOT_READY_TAINT.key), NOT_READY_TAINT],
    }),
    clear: (facts) => ({
      ...withCondition(facts, READY),
      taints: facts.taints.filter((taint) => taint.key !== NOT_READY_TAINT.key),
    }),
  },
};

/** The sources a node fault may name under this table: HyperPod's, and those whose rows it has. */
export function injectableSources(table: NodeSignalTable): NodeFaultSource[] {
  const read = new Set<string>(table.map((rule) => rule.source));
  return NODE_FAULT_SOURCES.filter(
    (source) => source === "hyperpod" || read.has(SIGNAL_FAULTS[source].reads),
  );
}
