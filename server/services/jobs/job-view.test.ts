import { describe, expect, it } from "vitest";
import type { RankStatus } from "@/server/agent/protocol";
import type { LiveJob } from "@/server/domain/operator-api/contract";
import { topologyView } from "./job-view";

const rank = (local: number, extra: Partial<RankStatus> = {}): RankStatus => ({
  local_rank: local,
  rank: local,
  pid: 100 + local,
  state: "running",
  exit_code: null,
  signal: null,
  last_line: "step 10 loss 1.0",
  last_line_at: new Date(0).toISOString(),
  step: 10,
  loss: 1,
  throughput: null,
  rule_states: { StepHang: "HEALTHY" },
  rule_metrics: {},
  restarts: 0,
  ...extra,
});

const job = (ranks: RankStatus[]): LiveJob => ({
  namespace: "ns",
  name: "job",
  createdAt: 0,
  gpus: 2,
  priorityClass: null,
  queue: null,
  phase: "Running",
  status: "Running",
  recovery: null,
  restartCount: 0,
  pods: [
    {
      name: "job-w-0",
      node: "n0",
      phase: "Running",
      groupRank: 0,
      agentState: "running",
      agentReason: null,
      agentError: null,
      ranks,
    },
  ],
  ranksTotal: ranks.length,
  ranksRunning: ranks.length,
  updatedAt: 0,
});

describe("job view ranks", () => {
  it("shows a rank the agent reports suspect as suspect, and an unwatched rank's rule states do not colour it", () => {
    const view = topologyView(
      job([
        rank(0, { log_watched: true }),
        rank(1, { log_watched: false, suspect: true, rule_states: { StepHang: "HANGING" } }),
      ]),
      [],
    );
    expect(view.ranks.map((r) => r.health)).toEqual(["healthy", "suspect"]);
  });

  it("colours a watched rank by its rule state", () => {
    const view = topologyView(
      job([rank(0, { log_watched: true, rule_states: { StepHang: "HANGING" } })]),
      [],
    );
    expect(view.ranks[0]?.health).not.toBe("healthy");
  });
});

describe("an agent that reports no ranks (hyperpodrun's /status)", () => {
  it("shows its ranks from the agent's state and says per-rank detail is not reported", () => {
    const live = { ...job([]), ranksTotal: 2 };
    const view = topologyView(live, []);
    expect(view.ranks.map((r) => [r.rank, r.state, r.health])).toEqual([
      [0, "running", "healthy"],
      [1, "running", "healthy"],
    ]);
    expect(view.note).toBe("per-rank detail is not reported by this agent");
  });

  it("keeps unreachable agents' ranks unknown and waiting, with no note", () => {
    const base = job([]);
    const pod = {
      ...base.pods[0],
      agentState: null,
      agentError: "timeout: no answer",
    } as LiveJob["pods"][number];
    const view = topologyView({ ...base, pods: [pod], ranksTotal: 1 }, []);
    expect(view.ranks.map((r) => [r.state, r.health])).toEqual([["unknown", "waiting"]]);
    expect(view.note).toBeUndefined();
  });

  it("adds no note when the agent lists its ranks", () => {
    expect(topologyView(job([rank(0)]), []).note).toBeUndefined();
  });
});
