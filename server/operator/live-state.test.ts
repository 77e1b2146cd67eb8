import { describe, expect, it } from "vitest";
import type { ClusterJob } from "@/server/cluster/types";
import type { HyperPodPyTorchJob } from "@/server/domain/job-spec/job-spec.schema";
import type { AgentStatus } from "./agent-client";
import { createLiveState } from "./live-state";
import type { Observation, ObservedPod } from "./reconcilers/observe";
import { testView } from "./testing/pod-views";

const job = {
  ref: { namespace: "ns", name: "job" },
  uid: "uid-1",
  createdAt: new Date(0),
  object: {
    metadata: { name: "job", namespace: "ns" },
    spec: { replicaSpecs: [{ name: "w", replicas: 3, template: { spec: { containers: [] } } }] },
  } as unknown as HyperPodPyTorchJob,
} as ClusterJob;

const listed = (running: number, of: number): AgentStatus =>
  ({
    status: "running",
    ranks: Array.from({ length: of }, (_, rank) => ({ rank, state: rank < running ? "running" : "exited" })),
  }) as AgentStatus;

const view = (index: number, status: AgentStatus | null): ObservedPod =>
  testView(index, status ? { kind: "status", status } : { kind: "none" });

const update = (live: ReturnType<typeof createLiveState>, pods: ObservedPod[]) => {
  const obs: Observation = { now: 1, job, pods, strays: [], nodes: [] };
  const entry = {
    phase: "Running",
    status: "Running",
    reason: null,
    recovery: null,
    restartCount: 0,
  } as const;
  live.update("ns/job", { ...entry, obs, ranksPerNode: 4 });
  return live.get("ns/job");
};

describe("live state", () => {
  it("counts the ranks an agent lists running, and all of a pod's ranks for one that lists none", () => {
    const live = createLiveState();
    // Our agent, 3 of 4 running; hyperpodrun (no rank list), running: 4; an agent not answering: 0.
    const pods = [view(0, listed(3, 4)), view(1, { status: "running" } as AgentStatus), view(2, null)];
    expect(update(live, pods)).toMatchObject({ ranksRunning: 7, ranksTotal: 12 });
    // Our agent forking its ranks (an empty list): none running yet.
    expect(update(live, [view(0, { status: "running", ranks: [] } as AgentStatus)])?.ranksRunning).toBe(0);
  });

  it("converts a kept view once, and a changed view again", () => {
    const live = createLiveState();
    const kept = view(0, listed(4, 4));
    const first = update(live, [kept, view(1, listed(4, 4))]);
    const second = update(live, [kept, view(1, listed(1, 4))]);
    expect(second?.pods[0]).toBe(first?.pods[0]);
    expect(second?.pods[1]).not.toBe(first?.pods[1]);
    expect([first?.ranksRunning, second?.ranksRunning]).toEqual([8, 5]);
  });

  it("keeps when each pod's agent last entered RUNNING (its attempt's start), where its status says", () => {
    const live = createLiveState();
    const since = { status: "running", transitions: { RUNNING: "2026-03-01T10:00:00.250000+00:00" } };
    const pods = [
      view(0, since as AgentStatus),
      view(1, { status: "running" } as AgentStatus),
      view(2, null),
    ];
    const state = update(live, pods);
    expect(state?.pods.map((pod) => pod.runningSince)).toEqual([
      Date.parse("2026-03-01T10:00:00.250Z"),
      undefined,
      undefined,
    ]);
  });
});
