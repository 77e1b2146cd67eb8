import { afterEach, describe, expect, it } from "vitest";
import { isNodeHealthy, nodeReplaceAt } from "@/server/cluster/types";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import { type NodeSignalTable, nodeSignalTableSchema } from "@/server/domain/node-health/signal-table.schema";
import { NODE_FAULT_SOURCES } from "@/server/domain/operator-api/contract";
import { injectableSources } from "./node-facts";
import { createNodePool, type NodePool } from "./nodes";

const pools: NodePool[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.dispose();
});

function pool(opts: { nodeSignals?: () => NodeSignalTable } = {}) {
  const changes: string[] = [];
  const nodes = createNodePool({
    count: 2,
    gpusPerNode: 8,
    realGpus: 0,
    onChange: (node) => changes.push(node),
    ...opts,
  });
  pools.push(nodes);
  return { nodes, changes };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const NODE = "local-node-0";

describe("local nodes judged by the node-signal table", () => {
  it("start healthy, with the facts of a HyperPod node: label Schedulable, Ready, all GPUs allocatable", () => {
    const { nodes } = pool();
    const node = nodes.get(NODE);
    expect(node).toMatchObject({ health: "Schedulable", ready: true, gpus: 8 });
    expect(node?.verdict).toMatchObject({ meaning: "healthy", action: "none", reason: null });
    expect(isNodeHealthy(node ?? ({} as never))).toBe(true);
    expect(nodes.facts(NODE)?.capacity["nvidia.com/gpu"]).toBe("8");
  });

  it("fail: HyperPod's label, its pods due at once, Schedulable again after the reboot", async () => {
    const { nodes, changes } = pool();
    nodes.fail(NODE, { rebootAfterMs: 60 });
    const failed = nodes.get(NODE);
    expect(failed).toMatchObject({ health: "UnschedulablePendingReboot", ready: true });
    expect(failed?.verdict).toMatchObject({ source: "hyperpod", action: "replace-now" });
    expect(nodeReplaceAt(failed ?? ({} as never))).toBe(failed?.changedAt);
    expect(changes).toEqual([NODE]);
    // The same health again changes nothing, and wakes nobody.
    nodes.setHealth(NODE, "UnschedulablePendingReboot");
    expect(changes).toEqual([NODE]);
    await sleep(120);
    expect(nodes.get(NODE)).toMatchObject({ health: "Schedulable", verdict: { action: "none" } });
    expect(changes).toEqual([NODE, NODE]);
    expect(nodes.get("local-node-1")?.verdict?.action).toBe("none");
  });

  const CASES = [
    {
      source: "nvsentinel",
      action: "replace-now",
      reason:
        "NVSentinel: GpuMemWatch — ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0 Recommended Action=COMPONENT_RESET",
    },
    {
      source: "npd",
      action: "replace-now",
      reason:
        "node-problem-detector: KernelDeadlock — kernel: INFO: task docker:20744 blocked for more than 120 seconds.",
    },
    {
      source: "eks",
      action: "replace-now",
      reason:
        "EKS: AcceleratedHardwareReady=False (NvidiaXID79Error) — NVRM: Xid (PCI:0000:10:1c): 79, GPU has fallen off the bus.",
    },
    {
      source: "dcgm",
      action: "replace-now",
      reason: "DCGM exporter: DCGM_FI_DEV_XID_ERRORS=79 (gpu=0) — GPU has fallen off the bus",
    },
    {
      source: "device-plugin",
      action: "replace-after-grace",
      reason: "NVIDIA device plugin: 7 of 8 nvidia.com/gpu allocatable",
      gpus: 7,
    },
    {
      source: "cordon",
      action: "avoid",
      reason: "Kubernetes: cordoned (spec.unschedulable)",
      health: "Unschedulable",
    },
    {
      source: "not-ready",
      action: "replace-now",
      reason:
        "Kubernetes: Ready=False (KubeletNotReady) — container runtime network not ready: NetworkReady=false",
      ready: false,
    },
  ] as const;

  it.each(CASES)(
    "$source: its fact on the node, the verdict with source and reason, cleared later",
    async (each) => {
      const { nodes, changes } = pool();
      nodes.signal(NODE, each.source, { clearAfterMs: 60 });
      const node = nodes.get(NODE);
      expect(node?.verdict).toMatchObject({ action: each.action, reason: each.reason });
      expect(isNodeHealthy(node ?? ({} as never))).toBe(false);
      expect(node).toMatchObject({
        health: "health" in each ? each.health : "Schedulable",
        ready: "ready" in each ? each.ready : true,
        gpus: "gpus" in each ? each.gpus : 8,
      });
      expect(nodes.get("local-node-1")?.verdict?.action).toBe("none");
      expect(changes).toEqual([NODE]);
      await sleep(120);
      expect(nodes.get(NODE)).toMatchObject({
        health: "Schedulable",
        ready: true,
        gpus: 8,
        verdict: { action: "none", reason: null },
      });
    },
  );

  it("a grace period's end wakes the operator though no fact changed", async () => {
    const table = nodeSignalTableSchema.parse(
      DEFAULT_NODE_SIGNALS.map((rule) =>
        rule.id === "device-plugin-gpu-unhealthy" ? { ...rule, graceSeconds: 1 } : rule,
      ),
    );
    const { nodes, changes } = pool({ nodeSignals: () => table });
    nodes.signal(NODE, "device-plugin", { clearAfterMs: 0 });
    const node = nodes.get(NODE);
    expect(node?.verdict?.replaceAt).toBe((node?.verdict?.signals[0]?.since ?? 0) + 1000);
    expect(changes).toEqual([NODE]);
    await sleep(1200);
    expect(changes).toEqual([NODE, NODE]);
  });

  it("a new table from the provider judges every node again; a source without rows is not injectable", () => {
    let table: NodeSignalTable = DEFAULT_NODE_SIGNALS;
    const { nodes } = pool({ nodeSignals: () => table });
    nodes.signal(NODE, "nvsentinel", { clearAfterMs: 0 });
    expect(nodes.list()[0]?.verdict?.source).toBe("nvsentinel");
    table = DEFAULT_NODE_SIGNALS.filter((rule) => rule.source !== "nvsentinel");
    expect(nodes.list()[0]?.verdict?.action).toBe("none");
    expect(injectableSources(table)).not.toContain("nvsentinel");
    expect(injectableSources(DEFAULT_NODE_SIGNALS)).toEqual([...NODE_FAULT_SOURCES]);
    expect(injectableSources(DEFAULT_NODE_SIGNALS.filter((rule) => rule.source !== "dcgm"))).not.toContain(
      "dcgm",
    );
  });

  it("answers the same list while no node changed", () => {
    const { nodes } = pool();
    const first = nodes.list();
    expect(nodes.list()).toBe(first);
    nodes.signal(NODE, "npd", { clearAfterMs: 0 });
    expect(nodes.list()).not.toBe(first);
  });
});
