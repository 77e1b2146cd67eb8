import { describe, expect, it } from "vitest";
import type { AgentStatus } from "@/server/operator/agent-client";
import type { JobContext } from "./deps";
import { aggregateWorkerData, isInProcessJob, pauseAgents } from "./inprocess";
import type { ObservedPod } from "./observe";

function view(name: string, status: Partial<AgentStatus> | null): ObservedPod {
  return {
    expected: { name, replicaSpec: "workers", index: 0, groupRank: 0 },
    pod: { name, agentUrl: `http://${name}` },
    agent: status === null ? { kind: "none" } : { kind: "status", status: { status: "running", ...status } },
  } as unknown as ObservedPod;
}

function context(pods: ObservedPod[], stops: { url: string; body: unknown }[] = []): JobContext {
  const agents = {
    stop: async (url: string, body: unknown) => {
      stops.push({ url, body });
      return { ok: true, value: null };
    },
  };
  return { obs: { pods }, deps: { agents } } as unknown as JobContext;
}

describe("in-process recovery (operator side)", () => {
  it("is used when the agents report in_process_restart and none asks for more", () => {
    const ipr = { restartMode: "in_process_restart" };
    expect(isInProcessJob(context([view("a", ipr), view("b", ipr)]))).toBe(true);
    expect(isInProcessJob(context([view("a", ipr), view("b", null)]))).toBe(true);
    expect(isInProcessJob(context([view("a", { restartMode: "process_level_restart" })]))).toBe(false);
    expect(isInProcessJob(context([view("a", ipr), view("b", { restartMode: "job_level_restart" })]))).toBe(
      false,
    );
    expect(isInProcessJob(context([view("a", {})]))).toBe(false);
  });

  it("hands every agent's worker_data back, in pod order", () => {
    const entry = (rank: number) => ({ rank, group_rank: rank, local_rank: 0, failed: false, data: "{}" });
    const pods = [
      view("a", { worker_data: [entry(0)] }),
      view("b", { worker_data: "not a list" }),
      view("c", { worker_data: [entry(2), 7] }),
    ];
    expect(aggregateWorkerData(pods)).toEqual([entry(0), entry(2)]);
  });

  it("stops without a restart mode (the agent's in-process default) every agent not READY", async () => {
    const stops: { url: string; body: unknown }[] = [];
    const ctx = context(
      [view("a", { status: "ready" }), view("b", { status: "faulted" }), view("c", { status: "init" })],
      stops,
    );
    expect(await pauseAgents(ctx)).toBe(false);
    expect(stops).toEqual([{ url: "http://b", body: {} }]);
    expect(await pauseAgents(context([view("a", { status: "ready" })]))).toBe(true);
  });
});
