import { describe, expect, it } from "vitest";
import { pickNode } from "@/server/cluster/placement";
import { type ClusterJob, type ClusterNode, isNodeHealthy } from "@/server/cluster/types";
import { DEFAULT_NODE_SIGNALS } from "@/server/domain/node-health/default-signals";
import { evaluateNode, type NodeFacts } from "@/server/domain/node-health/evaluate";
import type { AgentStatus } from "@/server/operator/agent-client";
import { testView } from "@/server/operator/testing/pod-views";
import { detectFault } from "./detect";
import type { Observation } from "./observe";

/** Detection and placement of nodes judged by the node-signal table (the Kubernetes back end's verdict). */
const SINCE = 1_000_000;
const options = { agentTimeoutMs: 3000, ranksPerNode: 1, podStartGraceMs: 30_000 };
const running = { kind: "status", status: { status: "running" } as AgentStatus } as const;

function judged(name: string, change: Partial<NodeFacts> = {}): ClusterNode {
  const facts: NodeFacts = {
    labels: {},
    conditions: [{ type: "Ready", status: "True" }],
    taints: [],
    unschedulable: false,
    capacity: { "nvidia.com/gpu": "4" },
    allocatable: { "nvidia.com/gpu": "4" },
    ...change,
  };
  const verdict = evaluateNode(facts, DEFAULT_NODE_SIGNALS, { now: SINCE });
  return { name, health: "Schedulable", ready: true, gpus: 4, changedAt: SINCE, verdict };
}

const observe = (nodes: ClusterNode[], now: number): Observation => ({
  now,
  job: {} as ClusterJob,
  pods: [testView(0, running), testView(1, running)],
  strays: [],
  nodes,
});

describe("node faults from the node-signal verdict", () => {
  it("replaces the pods of a node with an NVSentinel fault at once, naming the source", () => {
    const bad = judged("n1", {
      conditions: [
        { type: "Ready", status: "True" },
        { type: "GpuMemWatch", status: "True", message: "ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0" },
      ],
    });
    expect(detectFault(observe([judged("n0"), bad], SINCE), options)).toEqual({
      kind: "NodeFault",
      reason: "NodeFault",
      detail: "NVSentinel: GpuMemWatch — ErrorCode:DCGM_FR_VOLATILE_DBE_DETECTED GPU:0",
      at: SINCE,
      node: "n1",
      pods: ["job-w-1"],
      ranks: [1],
    });
  });

  it("keeps HyperPod's fault as it was: no detail", () => {
    const bad = judged("n1", {
      labels: { "sagemaker.amazonaws.com/node-health-status": "UnschedulablePendingReboot" },
    });
    const fault = detectFault(observe([judged("n0"), bad], SINCE + 5), options);
    expect(fault).toMatchObject({ kind: "NodeFault", at: SINCE, node: "n1" });
    expect(fault).not.toHaveProperty("detail");
  });

  it("waits out the device plugin's grace period before replacing", () => {
    const degraded = judged("n1", { allocatable: { "nvidia.com/gpu": "3" } });
    const nodes = [judged("n0"), degraded];
    expect(detectFault(observe(nodes, SINCE + 59_999), options)).toBeNull();
    expect(detectFault(observe(nodes, SINCE + 60_000), options)).toMatchObject({
      kind: "NodeFault",
      at: SINCE + 60_000,
      node: "n1",
    });
  });

  it("leaves the pods of a cordoned node where they are, and places no new pod there", () => {
    const cordoned = judged("n1", { unschedulable: true });
    expect(detectFault(observe([judged("n0"), cordoned], SINCE + 3_600_000), options)).toBeNull();
    expect(isNodeHealthy(cordoned)).toBe(false);
    const pick = pickNode({
      nodes: [cordoned, judged("n2")],
      used: new Map(),
      gpus: 4,
      avoid: [],
      prefer: "n1",
    });
    expect(pick).toBe("n2");
  });
});
