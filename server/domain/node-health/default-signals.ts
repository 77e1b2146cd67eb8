import {
  type NodeSignalRule,
  type NodeSignalSource,
  type NodeSignalTable,
  nodeSignalTableSchema,
  type SignalRead,
} from "./signal-table.schema";

/**
 * The shipped table, following each source's own documentation:
 * - HyperPod: `sagemaker.amazonaws.com/node-health-status` other than `Schedulable` (absent reads as
 *   Schedulable) is a node fault, the pods replaced at once: the operator's behaviour before this table.
 * - Kubernetes: `Ready` not True (or missing) and the lifecycle controller's not-ready / unreachable /
 *   out-of-service taints: unusable. Cordon (`spec.unschedulable`): new pods avoid the node, running ones
 *   stay, as Kubernetes does (change the row's action to move them). Pressure conditions: avoid.
 * - NVSentinel: a `Gpu*Watch`, `SysLogs*` or `NvswitchErrorFromKmsgWatch` condition True is a fatal
 *   health event, and its state label (`dgxc.nvidia.com/nvsentinel-state`, any value, removed after
 *   recovery) a quarantined node: unusable. DCGM unreachable: the node is unwatched, avoid it. CSP
 *   maintenance: planned, avoid.
 * - node-problem-detector: `KernelDeadlock`, `ReadonlyFilesystem`, `XfsShutdown` True: unusable; its
 *   kubelet, runtime and restart-counter conditions: avoid; NVSentinel's FabricManagerDown plugin: degraded.
 * - EKS node monitoring agent: `AcceleratedHardwareReady=False` (fatal reasons only; `NvidiaXID<N>Warning`
 *   is an Event, never a condition): unusable; its other `*Ready=False`: degraded (EKS repairs after 30 min).
 * - NVIDIA device plugin: allocatable `nvidia.com/gpu` below capacity (a GPU it marked unhealthy):
 *   degraded, the pods replaced after a grace period (the GPU may belong to another pod).
 * - DCGM exporter (through Prometheus, when the operator has PROMETHEUS_URL): `DCGM_FI_DEV_XID_ERRORS` is
 *   a GPU's last Xid, acted on as NVIDIA's Xid catalog's immediate action says: reset the GPU or reboot
 *   the node: unusable; restart the application (the operator already sees that as the rank's crash) or
 *   ignore: no node signal; any other Xid (a diagnosis workflow, contact support): degraded, avoid.
 *   `DCGM_EXP_GPU_HEALTH_STATUS` is DCGM's health result (0 pass, 10 warn, 20 fail): fail is unusable,
 *   warn degraded. `DCGM_FI_DEV_ROW_REMAP_FAILURE` 1 (the GPU could not remap a failed memory row): unusable.
 */

type Row = Omit<NodeSignalRule, "source">;

const condition = (type: string, status: "True" | "False", reason?: string): SignalRead => ({
  kind: "condition",
  type,
  status: [status],
  ...(reason ? { reason } : {}),
});

const from = (source: NodeSignalSource, rows: Row[]): NodeSignalRule[] =>
  rows.map((row) => ({ ...row, source }));

const unusable = { meaning: "unusable", action: "replace-now" } as const;
const avoid = { meaning: "degraded", action: "avoid" } as const;

export const DEVICE_PLUGIN_GRACE_SECONDS = 60;

const span = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** NVIDIA's Xid catalog, by immediate action (Ampere and later). */
export const XID_ACTIONS = {
  restartApp: [
    8,
    11,
    13,
    25,
    31,
    32,
    ...span(39, 41),
    60,
    ...span(68, 72),
    ...span(75, 77),
    80,
    ...span(82, 86),
    88,
    89,
    94,
    ...span(96, 105),
    ...span(126, 135),
    139,
  ],
  resetGpu: [46, 62, 64, 95, 109, 110, 119, 120, 136, 140, 143, 155, 156, 158, 162],
  rebootNode: [79, 151, 160],
  ignore: [14, 37, 38, 43, 44, 63, 66, 67, 92, 93, 106, 107, 121, 137, 141, 152, 153, 157, 161],
} as const;

export const DCGM_XID_METRIC = "DCGM_FI_DEV_XID_ERRORS";
const DCGM_HEALTH_METRIC = "DCGM_EXP_GPU_HEALTH_STATUS";
/** DCGM's health results (dcgmHealthWatchResult_t): pass 0, warn 10, fail 20. */
const DCGM_HEALTH_WARN = 10;
const DCGM_HEALTH_FAIL = 20;

const xid = (values: readonly number[]): SignalRead => ({
  kind: "metric",
  name: DCGM_XID_METRIC,
  values: [...values],
});
const none = { meaning: "healthy", action: "none" } as const;

export const DEFAULT_NODE_SIGNALS: NodeSignalTable = nodeSignalTableSchema.parse([
  ...from("hyperpod", [
    {
      id: "hyperpod-node-health",
      read: { kind: "label", key: "sagemaker.amazonaws.com/node-health-status", except: ["Schedulable"] },
      ...unusable,
    },
  ]),
  ...from("kubernetes", [
    {
      id: "kubernetes-not-ready",
      read: { kind: "condition", type: "Ready", status: ["False", "Unknown"], orAbsent: true },
      ...unusable,
    },
    {
      id: "kubernetes-not-ready-taint",
      read: { kind: "taint", key: "node.kubernetes.io/not-ready" },
      ...unusable,
    },
    {
      id: "kubernetes-unreachable-taint",
      read: { kind: "taint", key: "node.kubernetes.io/unreachable" },
      ...unusable,
    },
    {
      id: "kubernetes-out-of-service-taint",
      read: { kind: "taint", key: "node.kubernetes.io/out-of-service" },
      ...unusable,
    },
    { id: "kubernetes-cordon", read: { kind: "cordon" }, meaning: "maintenance", action: "avoid" },
    { id: "kubernetes-memory-pressure", read: condition("MemoryPressure", "True"), ...avoid },
    { id: "kubernetes-disk-pressure", read: condition("DiskPressure", "True"), ...avoid },
    { id: "kubernetes-pid-pressure", read: condition("PIDPressure", "True"), ...avoid },
    { id: "kubernetes-network-unavailable", read: condition("NetworkUnavailable", "True"), ...avoid },
  ]),
  ...from("nvsentinel", [
    { id: "nvsentinel-gpu-watch", read: condition("Gpu*Watch", "True"), ...unusable },
    { id: "nvsentinel-syslogs", read: condition("SysLogs*", "True"), ...unusable },
    { id: "nvsentinel-nvswitch-kmsg", read: condition("NvswitchErrorFromKmsgWatch", "True"), ...unusable },
    {
      id: "nvsentinel-quarantined",
      read: { kind: "label", key: "dgxc.nvidia.com/nvsentinel-state" },
      ...unusable,
    },
    { id: "nvsentinel-dcgm-down", read: condition("GpuDcgm*", "True"), ...avoid },
    {
      id: "nvsentinel-csp-maintenance",
      read: condition("CSPMaintenance", "True"),
      meaning: "maintenance",
      action: "avoid",
    },
  ]),
  ...from("npd", [
    { id: "npd-kernel-deadlock", read: condition("KernelDeadlock", "True"), ...unusable },
    { id: "npd-readonly-filesystem", read: condition("ReadonlyFilesystem", "True"), ...unusable },
    { id: "npd-xfs-shutdown", read: condition("XfsShutdown", "True"), ...unusable },
    { id: "npd-kubelet-unhealthy", read: condition("KubeletUnhealthy", "True"), ...avoid },
    { id: "npd-corrupt-overlay", read: condition("CorruptDockerOverlay2", "True"), ...avoid },
    { id: "npd-frequent-restarts", read: condition("Frequent*Restart", "True"), ...avoid },
    {
      id: "npd-fabric-manager-down",
      read: condition("FabricManagerDown", "True"),
      meaning: "degraded",
      action: "replace-after-grace",
      graceSeconds: 60,
    },
  ]),
  ...from("eks", [
    {
      id: "eks-gpu-xid",
      read: condition("AcceleratedHardwareReady", "False", "NvidiaXID*Error"),
      ...unusable,
    },
    { id: "eks-accelerated-hardware", read: condition("AcceleratedHardwareReady", "False"), ...unusable },
    ...["KernelReady", "NetworkingReady", "StorageReady", "ContainerRuntimeReady"].map((type) => ({
      id: `eks-${type.replace(/Ready$/, "").toLowerCase()}`,
      read: condition(type, "False"),
      meaning: "degraded" as const,
      action: "replace-after-grace" as const,
      graceSeconds: 300,
    })),
  ]),
  ...from("device-plugin", [
    {
      id: "device-plugin-gpu-unhealthy",
      read: { kind: "allocatable-below-capacity", resource: "nvidia.com/gpu" },
      meaning: "degraded",
      action: "replace-after-grace",
      graceSeconds: DEVICE_PLUGIN_GRACE_SECONDS,
    },
  ]),
  ...from("dcgm", [
    { id: "dcgm-xid-ignore", read: xid(XID_ACTIONS.ignore), ...none },
    { id: "dcgm-xid-restart-app", read: xid(XID_ACTIONS.restartApp), ...none },
    { id: "dcgm-xid-reset-gpu", read: xid(XID_ACTIONS.resetGpu), ...unusable },
    { id: "dcgm-xid-reboot-node", read: xid(XID_ACTIONS.rebootNode), ...unusable },
    { id: "dcgm-xid-other", read: { kind: "metric", name: DCGM_XID_METRIC, atLeast: 1 }, ...avoid },
    {
      id: "dcgm-health-fail",
      read: { kind: "metric", name: DCGM_HEALTH_METRIC, atLeast: DCGM_HEALTH_FAIL },
      ...unusable,
    },
    {
      id: "dcgm-health-warn",
      read: { kind: "metric", name: DCGM_HEALTH_METRIC, atLeast: DCGM_HEALTH_WARN },
      ...avoid,
    },
    {
      id: "dcgm-row-remap-failure",
      read: { kind: "metric", name: "DCGM_FI_DEV_ROW_REMAP_FAILURE", atLeast: 1 },
      ...unusable,
    },
  ]),
]);

/** The metric names a table reads (what a metrics source must fetch for it). */
export const metricNamesOf = (table: NodeSignalTable): string[] => [
  ...new Set(table.flatMap((rule) => (rule.read.kind === "metric" ? [rule.read.name] : []))),
];
