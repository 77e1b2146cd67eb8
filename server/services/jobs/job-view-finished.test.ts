import { describe, expect, it } from "vitest";
import type { LiveJob, LivePod } from "@/server/domain/operator-api/contract";
import { topologyView } from "./job-view";

/**
 * Issue 36 item 5: a finished job's pods (cleaned up by cleanPodPolicy: the operator sees them Missing) and
 * ranks read as finished, not as Missing pods and ranks "waiting" (0 of N healthy), nor all "faulted".
 */
const missingPod = (index: number): LivePod => ({
  name: `done-workers-${index}`,
  node: null,
  phase: "Missing",
  groupRank: index,
  agentState: null,
  agentReason: null,
  agentError: null,
  ranks: [],
});

const job = (phase: LiveJob["phase"]): LiveJob => ({
  namespace: "ns",
  name: "done",
  createdAt: 0,
  gpus: 2,
  priorityClass: null,
  queue: null,
  phase,
  status: phase === "Succeeded" ? "Completed" : phase,
  recovery: null,
  restartCount: 0,
  pods: [missingPod(0), missingPod(1)],
  ranksTotal: 4,
  ranksRunning: 0,
  updatedAt: 0,
});

describe("a finished job's topology", () => {
  it("shows a succeeded job's cleaned-up pods as Completed and their ranks finished", () => {
    const view = topologyView(job("Succeeded"), []);
    expect(view.pods.map((pod) => pod.phase)).toEqual(["Completed", "Completed"]);
    expect(view.ranks.map((rank) => [rank.rank, rank.health, rank.state])).toEqual([
      [0, "finished", "completed"],
      [1, "finished", "completed"],
      [2, "finished", "completed"],
      [3, "finished", "completed"],
    ]);
  });

  it("shows a failed job's pods as Stopped, the latest fault's rank faulted and the others finished", () => {
    const view = topologyView(job("Failed"), [], { ranks: [2] });
    expect(view.pods.map((pod) => pod.phase)).toEqual(["Stopped", "Stopped"]);
    expect(view.ranks.map((rank) => rank.health)).toEqual(["finished", "finished", "faulted", "finished"]);
    const noFault = topologyView(job("Failed"), []);
    expect(noFault.ranks.map((rank) => rank.health)).toEqual([
      "finished",
      "finished",
      "finished",
      "finished",
    ]);
  });

  it("still shows a running job's missing pod as Missing and its ranks waiting", () => {
    const view = topologyView(job("Running"), []);
    expect(view.pods.map((pod) => pod.phase)).toEqual(["Missing", "Missing"]);
    expect(new Set(view.ranks.map((rank) => rank.health))).toEqual(new Set(["waiting"]));
  });
});
