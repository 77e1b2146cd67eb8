import { describe, expect, it } from "vitest";
import { DCGM_XID_METRIC, DEFAULT_NODE_SIGNALS, metricNamesOf, XID_ACTIONS } from "./default-signals";
import { evaluateNode, HEALTHY_VERDICT, type NodeFacts, type NodeVerdict } from "./evaluate";
import { nodeSignalTableSchema } from "./signal-table.schema";

const NOW = 1_000_000;
const READY = { type: "Ready", status: "True", reason: "KubeletReady" };

/** A healthy 4-GPU node, with `change` applied. */
const facts = (change: Partial<NodeFacts> = {}): NodeFacts => ({
  labels: { "sagemaker.amazonaws.com/node-health-status": "Schedulable" },
  conditions: [READY],
  taints: [],
  unschedulable: false,
  capacity: { "nvidia.com/gpu": "4" },
  allocatable: { "nvidia.com/gpu": "4" },
  ...change,
});

const judge = (node: NodeFacts, previous?: NodeVerdict, now = NOW, table = DEFAULT_NODE_SIGNALS) =>
  evaluateNode(node, table, { now, previous });

const withCondition = (condition: NodeFacts["conditions"][number]) =>
  facts({ conditions: [READY, condition] });

const GPU_MEM_MESSAGE =
  "ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0 Volatile double-bit ECC error Recommended Action=COMPONENT_RESET;";

describe("evaluateNode with the shipped table", () => {
  it("finds nothing against a healthy node", () => {
    expect(judge(facts())).toEqual(HEALTHY_VERDICT);
    expect(judge(facts({ labels: {} }))).toEqual(HEALTHY_VERDICT);
  });

  it("HyperPod: any health label but Schedulable makes the node unusable at once; Schedulable clears it", () => {
    for (const value of ["Unschedulable", "UnschedulablePendingReboot", "SchedulablePreferred", "Unknown"]) {
      const verdict = judge(facts({ labels: { "sagemaker.amazonaws.com/node-health-status": value } }));
      expect(verdict).toMatchObject({
        meaning: "unusable",
        action: "replace-now",
        source: "hyperpod",
        reason: `HyperPod: sagemaker.amazonaws.com/node-health-status=${value}`,
        replaceAt: NOW,
      });
    }
  });

  it("Kubernetes: Ready not True or missing, and the not-ready / unreachable taints, make the node unusable", () => {
    const notReady = judge(
      facts({ conditions: [{ type: "Ready", status: "Unknown", reason: "NodeStatusUnknown" }] }),
    );
    expect(notReady).toMatchObject({
      action: "replace-now",
      source: "kubernetes",
      reason: "Kubernetes: Ready=Unknown (NodeStatusUnknown)",
    });
    expect(judge(facts({ conditions: [] })).reason).toBe("Kubernetes: no Ready condition");
    for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
      const verdict = judge(facts({ taints: [{ key, effect: "NoExecute" }] }));
      expect(verdict).toMatchObject({ action: "replace-now", reason: `Kubernetes: taint ${key}:NoExecute` });
    }
    expect(judge(facts({ taints: [{ key: "example.com/other", effect: "NoSchedule" }] }))).toEqual(
      HEALTHY_VERDICT,
    );
  });

  it("Kubernetes: a cordon only keeps new pods away; uncordoned, the node is healthy again", () => {
    const cordoned = judge(facts({ unschedulable: true }));
    expect(cordoned).toMatchObject({ meaning: "maintenance", action: "avoid", replaceAt: null });
    expect(judge(facts({ unschedulable: false }), cordoned)).toEqual(HEALTHY_VERDICT);
  });

  it("NVSentinel: a Gpu*Watch condition True is unusable, with its check and message; False clears it", () => {
    const set = judge(
      withCondition({
        type: "GpuMemWatch",
        status: "True",
        reason: "GpuMemWatchIsNotHealthy",
        message: GPU_MEM_MESSAGE,
      }),
    );
    expect(set).toMatchObject({ meaning: "unusable", action: "replace-now", source: "nvsentinel" });
    expect(set.reason).toBe(
      "NVSentinel: GpuMemWatch — ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0 Volatile double-bit ECC error Recommended Action=COMPONENT_RESET",
    );
    const cleared = withCondition({
      type: "GpuMemWatch",
      status: "False",
      reason: "GpuMemWatchIsHealthy",
      message: "No Health Failures",
    });
    expect(judge(cleared, set)).toEqual(HEALTHY_VERDICT);
  });

  it("NVSentinel: syslog checks and the quarantine state label are unusable; DCGM unreachable is avoided", () => {
    expect(judge(withCondition({ type: "SysLogsGPUFallenOff", status: "True" }))).toMatchObject({
      action: "replace-now",
      reason: "NVSentinel: SysLogsGPUFallenOff",
    });
    const quarantined = facts({ labels: { "dgxc.nvidia.com/nvsentinel-state": "draining" } });
    expect(judge(quarantined)).toMatchObject({
      action: "replace-now",
      reason: "NVSentinel: dgxc.nvidia.com/nvsentinel-state=draining",
    });
    expect(judge(withCondition({ type: "GpuDcgmUnresponsive", status: "True" }))).toMatchObject({
      meaning: "degraded",
      action: "avoid",
      replaceAt: null,
    });
  });

  it("node-problem-detector: KernelDeadlock / ReadonlyFilesystem True are unusable; their default False is not", () => {
    for (const type of ["KernelDeadlock", "ReadonlyFilesystem"]) {
      expect(judge(withCondition({ type, status: "True", reason: "DockerHung" }))).toMatchObject({
        action: "replace-now",
        source: "npd",
      });
      expect(judge(withCondition({ type, status: "False" }))).toEqual(HEALTHY_VERDICT);
    }
    expect(judge(withCondition({ type: "FrequentKubeletRestart", status: "True" })).action).toBe("avoid");
  });

  it("EKS: AcceleratedHardwareReady=False is unusable, by the Xid row when the reason is NvidiaXID<N>Error", () => {
    const xid = judge(
      withCondition({
        type: "AcceleratedHardwareReady",
        status: "False",
        reason: "NvidiaXID79Error",
        message: "GPU has fallen off the bus",
      }),
    );
    expect(xid).toMatchObject({
      action: "replace-now",
      source: "eks",
      reason: "EKS: AcceleratedHardwareReady=False (NvidiaXID79Error) — GPU has fallen off the bus",
    });
    expect(xid.signals.map((signal) => signal.rule)).toEqual(["eks-gpu-xid"]);
    const other = judge(
      withCondition({ type: "AcceleratedHardwareReady", status: "False", reason: "NvidiaDoubleBitError" }),
    );
    expect(other.signals.map((signal) => signal.rule)).toEqual(["eks-accelerated-hardware"]);
    expect(judge(withCondition({ type: "AcceleratedHardwareReady", status: "True" }), xid)).toEqual(
      HEALTHY_VERDICT,
    );
  });

  it("device plugin: allocatable GPUs below capacity are degraded, replaced after the grace period", () => {
    const dropped = judge(facts({ allocatable: { "nvidia.com/gpu": "3" } }));
    expect(dropped).toMatchObject({
      meaning: "degraded",
      action: "replace-after-grace",
      source: "device-plugin",
      reason: "NVIDIA device plugin: 3 of 4 nvidia.com/gpu allocatable",
      replaceAt: NOW + 60_000,
    });
    expect(judge(facts(), dropped)).toEqual(HEALTHY_VERDICT);
    expect(judge(facts({ capacity: {}, allocatable: {} }))).toEqual(HEALTHY_VERDICT);
  });

  const gpu = (name: string, value: number, series = "gpu=0", labels: Record<string, string> = {}) => ({
    name,
    series,
    labels: { gpu: series.replace(/^gpu=(\d+).*$/, "$1"), ...labels },
    value,
  });

  it("DCGM: an Xid whose catalog action is a GPU reset or a reboot is unusable; 0 clears it", () => {
    for (const value of [...XID_ACTIONS.resetGpu, ...XID_ACTIONS.rebootNode]) {
      const verdict = judge(facts({ metrics: [gpu(DCGM_XID_METRIC, value)] }));
      expect(verdict).toMatchObject({ meaning: "unusable", action: "replace-now", source: "dcgm" });
    }
    const fell = judge(
      facts({
        metrics: [
          gpu(DCGM_XID_METRIC, 0),
          gpu(DCGM_XID_METRIC, 79, "gpu=3", { err_msg: "GPU has fallen off the bus." }),
        ],
      }),
    );
    expect(fell).toMatchObject({
      reason: "DCGM exporter: DCGM_FI_DEV_XID_ERRORS=79 (gpu=3) — GPU has fallen off the bus.",
      replaceAt: NOW,
    });
    expect(fell.signals.map((signal) => [signal.rule, signal.fact])).toEqual([
      ["dcgm-xid-reboot-node", "metric:DCGM_FI_DEV_XID_ERRORS{gpu=3}"],
    ]);
    expect(judge(facts({ metrics: [gpu(DCGM_XID_METRIC, 0, "gpu=3")] }), fell)).toEqual(HEALTHY_VERDICT);
  });

  it("DCGM: ignored and application Xids are no node signal; any other Xid keeps new pods off", () => {
    for (const value of [...XID_ACTIONS.ignore, ...XID_ACTIONS.restartApp])
      expect(judge(facts({ metrics: [gpu(DCGM_XID_METRIC, value)] }))).toEqual(HEALTHY_VERDICT);
    for (const value of [48, 74, 54, 145, 999]) {
      const verdict = judge(facts({ metrics: [gpu(DCGM_XID_METRIC, value)] }));
      expect(verdict).toMatchObject({ meaning: "degraded", action: "avoid", replaceAt: null });
      expect(verdict.signals.map((signal) => signal.rule)).toEqual(["dcgm-xid-other"]);
    }
  });

  it("DCGM: a health watch failing is unusable, warning avoided; a failed row remap is unusable", () => {
    const health = (value: number) =>
      gpu("DCGM_EXP_GPU_HEALTH_STATUS", value, "gpu=1,health_watch=MEM", {
        health_watch: "MEM",
        health_error_code: "DCGM_FR_VOLATILE_DBE_DETECTED",
      });
    expect(judge(facts({ metrics: [health(20)] }))).toMatchObject({
      action: "replace-now",
      reason:
        "DCGM exporter: DCGM_EXP_GPU_HEALTH_STATUS=20 (gpu=1, health_watch=MEM) — DCGM_FR_VOLATILE_DBE_DETECTED",
    });
    expect(judge(facts({ metrics: [health(10)] })).action).toBe("avoid");
    expect(judge(facts({ metrics: [health(0)] }))).toEqual(HEALTHY_VERDICT);
    expect(judge(facts({ metrics: [gpu("DCGM_FI_DEV_ROW_REMAP_FAILURE", 1)] })).action).toBe("replace-now");
  });
});

describe("evaluateNode: time, order and severity", () => {
  it("a signal keeps the time it was first seen; a new one starts now", () => {
    const first = judge(facts({ allocatable: { "nvidia.com/gpu": "3" } }));
    const later = judge(
      facts({ allocatable: { "nvidia.com/gpu": "2" }, unschedulable: true }),
      first,
      NOW + 5000,
    );
    expect(later.signals.map((signal) => [signal.rule, signal.since])).toEqual([
      ["device-plugin-gpu-unhealthy", NOW],
      ["kubernetes-cordon", NOW + 5000],
    ]);
    expect(later.replaceAt).toBe(NOW + 60_000);
  });

  it("the most severe signal leads; every signal is kept", () => {
    const node = facts({
      unschedulable: true,
      conditions: [READY, { type: "GpuPcieWatch", status: "True", message: "PCIe replay" }],
    });
    const verdict = judge(node);
    expect(verdict).toMatchObject({ action: "replace-now", source: "nvsentinel", replaceAt: NOW });
    expect(verdict.signals.map((signal) => signal.rule)).toEqual([
      "nvsentinel-gpu-watch",
      "kubernetes-cordon",
    ]);
  });

  it("an earlier row decides a fact: a cordon that moves pods, a known-benign reason kept healthy", () => {
    const table = nodeSignalTableSchema.parse([
      {
        id: "cordon-moves-pods",
        source: "kubernetes",
        read: { kind: "cordon" },
        meaning: "maintenance",
        action: "replace-now",
      },
      {
        id: "eks-xid-benign",
        source: "eks",
        read: {
          kind: "condition",
          type: "AcceleratedHardwareReady",
          status: ["False"],
          reason: "NvidiaXID13Error",
        },
        meaning: "healthy",
        action: "none",
      },
      ...DEFAULT_NODE_SIGNALS,
    ]);
    expect(judge(facts({ unschedulable: true }), undefined, NOW, table)).toMatchObject({
      action: "replace-now",
      replaceAt: NOW,
    });
    const benign = withCondition({
      type: "AcceleratedHardwareReady",
      status: "False",
      reason: "NvidiaXID13Error",
    });
    expect(judge(benign, undefined, NOW, table)).toEqual(HEALTHY_VERDICT);
  });
});

describe("nodeSignalTableSchema", () => {
  const row = {
    id: "x",
    source: "npd",
    read: { kind: "condition", type: "KernelDeadlock", status: ["True"] },
    meaning: "unusable",
    action: "replace-now",
  };
  const problems = (table: unknown) => {
    const result = nodeSignalTableSchema.safeParse(table);
    return result.success
      ? []
      : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  };

  it("accepts the shipped table and a plain row", () => {
    expect(problems(DEFAULT_NODE_SIGNALS)).toEqual([]);
    expect(problems([row])).toEqual([]);
  });

  const metric = { kind: "metric", name: "DCGM_FI_DEV_XID_ERRORS", values: [79] };

  it("accepts a metric row with labels; the shipped table reads three DCGM metrics", () => {
    const read = { ...metric, labels: { gpu: "0", modelName: "NVIDIA H100*" } };
    expect(problems([{ ...row, source: "dcgm", read }])).toEqual([]);
    expect(metricNamesOf(DEFAULT_NODE_SIGNALS)).toEqual([
      "DCGM_FI_DEV_XID_ERRORS",
      "DCGM_EXP_GPU_HEALTH_STATUS",
      "DCGM_FI_DEV_ROW_REMAP_FAILURE",
    ]);
    expect(metricNamesOf([])).toEqual([]);
  });

  it.each([
    ["a grace period without the after-grace action", [{ ...row, graceSeconds: 5 }], "0.graceSeconds"],
    [
      "the after-grace action without a grace period",
      [{ ...row, action: "replace-after-grace" }],
      "0.graceSeconds",
    ],
    ["a healthy meaning with an action", [{ ...row, meaning: "healthy" }], "0.action"],
    ["a duplicate id", [row, row], "rule ids must be unique"],
    ["an unknown source", [{ ...row, source: "dcgm-exporter" }], "0.source"],
    [
      "orAbsent with a pattern",
      [{ ...row, read: { ...row.read, type: "Gpu*", orAbsent: true } }],
      "orAbsent",
    ],
    ["an empty status list", [{ ...row, read: { ...row.read, status: [] } }], "at least one status"],
    ["an unknown key", [{ ...row, severity: 3 }], "severity"],
    [
      "a metric read with neither values nor atLeast",
      [{ ...row, read: { ...metric, values: undefined } }],
      "0.read.values",
    ],
    ["a metric read with both", [{ ...row, read: { ...metric, atLeast: 1 } }], "0.read.values"],
    [
      "a metric value of 0",
      [{ ...row, read: { ...metric, values: [0] } }],
      "0.read.values.0: expected a finite number other than 0",
    ],
    [
      "a metric atLeast of 0",
      [{ ...row, read: { kind: "metric", name: "X", atLeast: 0 } }],
      "0.read.atLeast",
    ],
    [
      "a bad metric name",
      [{ ...row, read: { ...metric, name: "dcgm-xid" } }],
      "0.read.name: expected a metric name",
    ],
    ["a bad label name", [{ ...row, read: { ...metric, labels: { "a-b": "x" } } }], "0.read.labels.a-b"],
  ])("refuses %s, saying where", (_what, table, where) => {
    expect(problems(table).join("; ")).toContain(where);
  });
});
