import { describe, expect, it } from "vitest";
import type { ClusterJob, ClusterNode } from "@/server/cluster/types";
import type { AgentStatus } from "@/server/operator/agent-client";
import { testView as view } from "@/server/operator/testing/pod-views";
import { allCompleted, detectFault, faultFromAgent, mayHoldFault, unreachablePods } from "./detect";
import type { AgentView, DetectionIndex, Observation, ObservedPod } from "./observe";

const NOW = 1_000_000;
const options = { agentTimeoutMs: 3000, ranksPerNode: 4, podStartGraceMs: 30_000 };

const node = (name: string, health = "Schedulable", changedAt = 0): ClusterNode => ({
  name,
  health,
  ready: true,
  gpus: 8,
  changedAt,
});

const status = (value: Partial<AgentStatus>): AgentView => ({
  kind: "status",
  status: { status: "running", ...value } as AgentStatus,
});

function observation(pods: ObservedPod[], nodes = [node("n0"), node("n1")]): Observation {
  return { now: NOW, job: {} as ClusterJob, pods, strays: [], nodes };
}

describe("detectFault", () => {
  it("sees nothing wrong when every agent runs on a healthy node", () => {
    expect(detectFault(observation([view(0, status({})), view(1, status({}))]), options)).toBeNull();
  });

  it("reports a crash with the agent's fault time, the pod, its node and its ranks", () => {
    const crashed = status({
      status: "faulted",
      reason: "WorkerCrash",
      fault_at: new Date(NOW - 40).toISOString(),
      ranks: [], // our agent, listing no rank faulted: the pod's ranks
    });
    const fault = detectFault(observation([view(0, status({})), view(1, crashed)]), options);
    expect(fault).toEqual({
      kind: "WorkerCrash",
      reason: "WorkerCrash",
      at: NOW - 40,
      node: "n1",
      pods: ["job-w-1"],
      ranks: [4, 5, 6, 7],
    });
  });

  it("prefers a node fault over everything else, covering every pod of that node", () => {
    const nodes = [node("n0"), node("n1", "UnschedulablePendingReboot", NOW - 100)];
    const obs = observation(
      [
        view(0, status({ status: "faulted", reason: "WorkerCrash" })),
        view(1, status({}), { phase: "Failed" }),
      ],
      nodes,
    );
    expect(detectFault(obs, options)).toMatchObject({
      kind: "NodeFault",
      node: "n1",
      at: NOW - 100,
      pods: ["job-w-1"],
    });
  });

  it("reports a vanished or failed pod as PodGone with its finish time", () => {
    const obs = observation([
      view(0, status({})),
      view(1, { kind: "none" }, { phase: "Failed", finishedAt: NOW - 70 }),
    ]);
    expect(detectFault(obs, options)).toMatchObject({ kind: "PodGone", reason: "PodFailed", at: NOW - 70 });
    expect(detectFault(observation([view(0, { kind: "none" }, null)]), options)).toMatchObject({
      reason: "PodMissing",
    });
  });

  it("calls an agent unreachable only after the timeout, and never during a new pod's start-up grace", () => {
    const failing = (since: number, createdAt: number) =>
      view(0, { kind: "error", error: { cause: "timeout", detail: "" }, since }, { createdAt });
    expect(detectFault(observation([failing(NOW - 2999, 0)]), options)).toBeNull();
    expect(detectFault(observation([failing(NOW - 3000, 0)]), options)).toMatchObject({
      kind: "AgentUnreachable",
      cause: "timeout",
      at: NOW - 3000,
    });
    expect(detectFault(observation([failing(NOW - 10_000, NOW - 20_000)]), options)).toBeNull();
  });

  it("calls a stalled agent unreachable when one call has timed out, grace or not", () => {
    // Issue 17: an agent that answered, then stalled 2 s after its pod started, waited out the 30 s grace.
    const stalled = (answered: boolean, failedAt: number) =>
      view(
        0,
        { kind: "error", error: { cause: "timeout", detail: "" }, since: NOW - 3000, failedAt, answered },
        { createdAt: NOW - 5000 },
      );
    expect(detectFault(observation([stalled(true, NOW)]), options)).toMatchObject({
      kind: "AgentUnreachable",
      at: NOW - 3000,
    });
    expect(detectFault(observation([stalled(true, NOW - 1)]), options)).toBeNull();
    expect(detectFault(observation([stalled(false, NOW)]), options)).toBeNull();
  });

  it("calls a pushing agent judged silent unreachable at once, not after the timeout", () => {
    // server/operator/presence: no line nor heartbeat for 700 ms; the fault counts from when it was last heard.
    const silent = view(
      1,
      {
        kind: "error",
        error: { cause: "timeout", detail: "silent for 701 ms" },
        since: NOW - 701,
        failedAt: NOW,
        answered: true,
        silent: true,
      },
      { createdAt: NOW - 5000 },
    );
    expect(detectFault(observation([view(0, status({})), silent]), options)).toEqual({
      kind: "AgentUnreachable",
      cause: "timeout",
      reason: "AgentUnreachable",
      at: NOW - 701,
      node: "n1",
      pods: ["job-w-1"],
      ranks: [4, 5, 6, 7],
    });
    const sameButPolled = { ...silent, agent: { ...silent.agent, silent: undefined } } as ObservedPod;
    expect(detectFault(observation([view(0, status({})), sameButPolled]), options)).toBeNull();
  });

  it("treats a garbage answer as unreachable with cause invalid-response", () => {
    const garbage = view(0, {
      kind: "error",
      error: { cause: "invalid-response", detail: "not JSON" },
      since: NOW - 5000,
    });
    expect(detectFault(observation([garbage]), options)).toMatchObject({
      kind: "AgentUnreachable",
      cause: "invalid-response",
    });
  });
});

/** The index observe.ts keeps: the views that may hold a fault, and the views by their pod's node. */
function honestIndex(pods: ObservedPod[]): DetectionIndex {
  const onNode = new Map<string, Set<number>>();
  const suspects = new Set<number>();
  pods.forEach((each, at) => {
    if (mayHoldFault(each)) suspects.add(at);
    const name = each.pod?.node;
    if (name) onNode.set(name, new Set([...(onNode.get(name) ?? []), at]));
  });
  return { pods, suspects, onNode };
}

/** A small deterministic generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("detectFault with the observation's detection index", () => {
  const running = () => status({});
  const faulted = status({ status: "faulted", reason: "WorkerCrash" });

  it("reads only the views the index names, so a healthy job's size does not count", () => {
    const pods = [view(0, running()), view(1, faulted), view(2, running())];
    // The index says no view may hold a fault: the faulted view is not read (it would be found if it were).
    const blind = { ...observation(pods), index: { pods, suspects: new Set<number>(), onNode: new Map() } };
    expect(detectFault(blind, options)).toBeNull();
    const named = { ...observation(pods), index: { pods, suspects: new Set([1]), onNode: new Map() } };
    expect(detectFault(named, options)).toMatchObject({ kind: "WorkerCrash", pods: ["job-w-1"] });
  });

  it("reads every view once a step put another array in place of the one indexed", () => {
    const pods = [view(0, running()), view(1, faulted)];
    const stale = { pods: [...pods], suspects: new Set<number>(), onNode: new Map() };
    expect(detectFault({ ...observation(pods), index: stale }, options)).toMatchObject({
      pods: ["job-w-1"],
    });
  });

  it("finds the pods of an unhealthy node from the index's pods by node", () => {
    const pods = [view(0, running()), view(1, running()), view(2, running(), { node: "n1" })];
    const nodes = [node("n0"), node("n1", "UnschedulablePendingReplacement", 77)];
    const onNode = new Map([
      ["n0", new Set([0])],
      ["n1", new Set([1, 2])],
    ]);
    const obs = { ...observation(pods, nodes), index: { pods, suspects: new Set<number>(), onNode } };
    expect(detectFault(obs, options)).toMatchObject({
      kind: "NodeFault",
      node: "n1",
      at: 77,
      pods: ["job-w-1", "job-w-2"],
      ranks: [4, 5, 6, 7, 8, 9, 10, 11],
    });
  });

  it("finds what reading every view finds, over 2,000 random observations", () => {
    const next = random(18);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const agents: (() => AgentView)[] = [
      running,
      running,
      running,
      () => faulted,
      () => status({ status: "faulted", reason: "LogHang_stuck" }),
      () => ({ kind: "none" }),
      () => ({
        kind: "error",
        error: { cause: "timeout", detail: "timed out" },
        since: NOW - Math.floor(next() * 6000),
        answered: next() < 0.5,
      }),
    ];
    const phases = ["Running", "Running", "Running", "Pending", "Failed", "Succeeded"] as const;
    for (let run = 0; run < 2000; run += 1) {
      const size = 1 + Math.floor(next() * 12);
      const pods = Array.from({ length: size }, (_, at) =>
        next() < 0.05
          ? view(at, { kind: "none" }, null)
          : view(at, pick(agents)(), { node: `n${Math.floor(next() * 6)}`, phase: pick(phases) }),
      );
      const nodes = Array.from({ length: 6 }, (_, at) =>
        node(`n${at}`, next() < 0.08 ? "Unschedulable" : "Schedulable", at),
      );
      const plain = observation(pods, nodes);
      const indexed = { ...plain, index: honestIndex(pods) };
      expect(detectFault(indexed, options)).toEqual(detectFault(plain, options));
      expect(unreachablePods(indexed, options)).toEqual(unreachablePods(plain, options));
    }
  });
});

describe("faultFromAgent", () => {
  const base = { at: 1, pods: ["p"], ranks: [0] };
  it.each([
    ["LogHang_JobHang", "LogHang", "JobHang"],
    ["LogStateHanging_JobStart", "LogHang", "JobStart"],
    ["LogSlow_LowThroughput", "LogSlow", "LowThroughput"],
    ["LogStateSlow_X", "LogSlow", "X"],
    ["LogFault_LossNaN", "LogFault", "LossNaN"],
  ])("maps %s to %s of rule %s", (reason, kind, rule) => {
    expect(faultFromAgent({ status: "faulted", reason } as AgentStatus, base)).toMatchObject({
      kind,
      rule,
      reason,
    });
  });

  it("maps WorkerCrash and unknown reasons to a worker crash, keeping the reason", () => {
    expect(
      faultFromAgent({ status: "faulted", reason: "WorkerStateFailed" } as AgentStatus, base),
    ).toMatchObject({
      kind: "WorkerCrash",
      reason: "WorkerStateFailed",
    });
  });
});

describe("allCompleted", () => {
  it("needs every agent COMPLETED", () => {
    expect(
      allCompleted(
        observation([view(0, status({ status: "completed" })), view(1, status({ status: "completed" }))]),
      ),
    ).toBe(true);
    expect(allCompleted(observation([view(0, status({ status: "completed" })), view(1, status({}))]))).toBe(
      false,
    );
  });
});
