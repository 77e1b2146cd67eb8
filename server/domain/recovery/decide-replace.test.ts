import { describe, expect, it } from "vitest";
import { type DecideRecoveryInput, decideRecovery } from "./decide";
import { at, cluster, crash, nodeFault, restart } from "./test-helpers";
import type { Fault, RunPolicyInput } from "./types";

const POLICY: RunPolicyInput = {
  restartPolicy: {
    evalPeriodSeconds: 3600,
    numRestartBeforeFullJobRestart: 3,
    maxFullJobRestarts: 1,
    maxNumRepeatOffendersToAvoid: 2,
  },
};
const NOW = at(60);
// node-3 is down: it is not among the healthy nodes.
const DOWN = cluster({ healthyNodes: ["node-0", "node-1", "node-2", "spare-1", "spare-2", "free-1"] });

const decide = (overrides: Partial<DecideRecoveryInput>) =>
  decideRecovery({
    runPolicy: POLICY,
    history: [],
    fault: nodeFault(NOW),
    now: NOW,
    cluster: DOWN,
    ...overrides,
  });

describe("decideRecovery pod replacement", () => {
  it("replaces only the faulty node's pod, on a spare, and records a PLR-type restart", () => {
    const decision = decide({
      cluster: { ...DOWN, spareNodes: ["spare-1", "spare-2"], freeNodes: ["free-1"] },
    });
    expect(decision).toEqual({
      action: "POD_REPLACEMENT",
      pods: ["job-pod-3"],
      ranks: [3],
      avoidNodes: ["node-3"],
      useSpare: "spare-1",
      awaitingCapacity: false,
      restartStatus: {
        currentEvalPeriod: Math.floor((NOW - 3_600_000) / 1000),
        fullJobRestartCount: 0,
        restartCount: 1,
      },
      latestFaultyPodInstanceList: {
        restartType: "PLR",
        faultyInstanceIdList: ["node-3"],
        faultyPodList: ["job-pod-3"],
        faultyRankList: ["3"],
      },
      restartCount: 1,
      record: { at: NOW, type: "POD_REPLACEMENT", nodes: ["node-3"], pods: ["job-pod-3"] },
    });
  });

  it("skips a spare that is a repeat offender", () => {
    const history = [restart(at(10), "PLR", ["spare-1"]), restart(at(20), "PLR", ["spare-1"])];
    const decision = decide({ history, cluster: { ...DOWN, spareNodes: ["spare-1", "spare-2"] } });
    expect(decision).toMatchObject({ avoidNodes: ["node-3", "spare-1"], useSpare: "spare-2" });
  });

  it("uses a free node when no spare is left", () => {
    const decision = decide({ cluster: { ...DOWN, freeNodes: ["free-1"] } });
    expect(decision).toMatchObject({ action: "POD_REPLACEMENT", useSpare: null, awaitingCapacity: false });
  });

  it("still replaces the pod, waiting for capacity, when no node can take it (our choice)", () => {
    const decision = decide({ cluster: { ...DOWN, freeNodes: ["node-3"] } });
    expect(decision).toMatchObject({
      action: "POD_REPLACEMENT",
      avoidNodes: ["node-3"],
      useSpare: null,
      awaitingCapacity: true,
      restartCount: 1,
    });
  });

  it("recreates a vanished pod on its healthy node when nothing else is free", () => {
    const fault: Fault = { ...crash(NOW, { node: "node-2" }), kind: "PodGone", reason: "PodGone" };
    const decision = decide({ fault, cluster: cluster() });
    expect(decision).toMatchObject({ action: "POD_REPLACEMENT", avoidNodes: [], awaitingCapacity: false });
  });

  it("prefers a spare for a vanished pod even when its node is healthy", () => {
    const fault: Fault = { ...crash(NOW, { node: "node-2" }), kind: "PodGone", reason: "PodGone" };
    const decision = decide({ fault, cluster: cluster({ spareNodes: ["spare-1"] }) });
    expect(decision).toMatchObject({ action: "POD_REPLACEMENT", useSpare: "spare-1" });
  });

  it("writes the EC2 instance id of a HyperPod node", () => {
    const decision = decide({ fault: nodeFault(NOW, "hyperpod-i-076a8fd1fb47273d2") });
    expect(decision.latestFaultyPodInstanceList?.faultyInstanceIdList).toEqual(["i-076a8fd1fb47273d2"]);
  });

  it("escalates a node fault to JLR at the limit, avoiding the unhealthy node", () => {
    const history = [restart(at(10), "PLR"), restart(at(20), "PLR"), restart(at(30), "POD_REPLACEMENT")];
    const decision = decide({ history, cluster: { ...DOWN, spareNodes: ["spare-1"] } });
    expect(decision).toMatchObject({ action: "JLR", avoidNodes: ["node-3"] });
    expect(decision.latestFaultyPodInstanceList?.restartType).toBe("JLR");
  });
});

describe("decideRecovery remedy by fault kind", () => {
  const base = { at: NOW, pods: ["job-pod-1"], ranks: [1], reason: "r" };
  const unreachable = (node?: string): Fault => ({
    ...base,
    node,
    kind: "AgentUnreachable",
    cause: "timeout",
  });

  it.each<{ name: string; fault: Fault; expected: string }>([
    { name: "WorkerCrash on a healthy node", fault: crash(NOW), expected: "PLR" },
    { name: "LogHang", fault: { ...base, node: "node-1", kind: "LogHang", rule: "hang" }, expected: "PLR" },
    { name: "LogSlow", fault: { ...base, node: "node-1", kind: "LogSlow", rule: "tflops" }, expected: "PLR" },
    { name: "LogFault", fault: { ...base, node: "node-1", kind: "LogFault", rule: "nccl" }, expected: "PLR" },
    { name: "AgentUnreachable, healthy node", fault: unreachable("node-1"), expected: "POD_REPLACEMENT" },
    { name: "AgentUnreachable, node unknown", fault: unreachable(), expected: "POD_REPLACEMENT" },
    { name: "AgentUnreachable, unhealthy node", fault: unreachable("node-3"), expected: "POD_REPLACEMENT" },
    {
      name: "WorkerCrash on an unhealthy node",
      fault: crash(NOW, { node: "node-3" }),
      expected: "POD_REPLACEMENT",
    },
    { name: "NodeFault", fault: nodeFault(NOW), expected: "POD_REPLACEMENT" },
  ])("$name → $expected", ({ fault, expected }) => {
    expect(decide({ fault }).action).toBe(expected);
  });

  it("avoids the unhealthy node of an unreachable agent", () => {
    expect(decide({ fault: unreachable("node-3") })).toMatchObject({ avoidNodes: ["node-3"] });
  });
});
