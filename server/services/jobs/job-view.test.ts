import { describe, expect, it } from "vitest";
import type { RankStatus } from "@/server/domain/agent-api/protocol";
import { countHealthyRanks } from "@/server/domain/console/job-ranks";
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

  it("shows a running rank with no progress for past 3 usual intervals (at least 5 s) as stalled, from `now`", () => {
    const progress = { last_progress_at: "1970-01-01T00:00:10.000000+00:00", progress_interval_ms: 200 };
    const live = job([rank(0, progress), rank(1), rank(2, { ...progress, state: "crashed" })]);
    const health = (now: number) => topologyView(live, [], null, now).ranks.map((r) => r.health);
    expect(health(15_000)).toEqual(["healthy", "healthy", "faulted"]);
    expect(health(15_001)).toEqual(["stalled", "healthy", "faulted"]);
    expect(topologyView(live, [], null, 15_001).ranks[0]).toMatchObject({
      lastProgressAt: 10_000,
      progressIntervalMs: 200,
    });
    expect(topologyView(live, [], null, 15_001).ranks[1]).toMatchObject({
      lastProgressAt: null,
      progressIntervalMs: null,
    });
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

describe("the healthy count the lists show (countHealthyRanks, what the operator's summary view sends)", () => {
  const throughputs = (values: number[]) =>
    values.map((value, local) => rank(local, { rank: local, throughput: value }));
  const pod = (base: LiveJob, extra: Partial<LiveJob["pods"][number]>) => ({ ...base.pods[0], ...extra });
  const cases: Array<[string, LiveJob]> = [
    ["all healthy", job([rank(0), rank(1), rank(2)])],
    ["a crashed rank", job([rank(0), rank(1, { state: "crashed" }), rank(2)])],
    ["a hanging watched rank", job([rank(0, { log_watched: true, rule_states: { StepHang: "HANGING" } })])],
    ["a straggler", job(throughputs([100, 100, 100, 100, 100, 100, 100, 10]))],
    [
      "a rank with no progress for 60 s (usual 200 ms)",
      {
        ...job([
          rank(0, { last_progress_at: new Date(0).toISOString(), progress_interval_ms: 200 }),
          rank(1),
        ]),
        updatedAt: 60_000,
      },
    ],
    [
      "recovering",
      {
        ...job([rank(0), rank(1)]),
        recovery: { action: "PLR", stage: "starting", reason: "x", faultAt: 0, detectedAt: 0, pods: [] },
      },
    ],
    ["failed", { ...job([rank(0)]), phase: "Failed" }],
    ["ranks the agent does not list (hyperpodrun)", { ...job([]), ranksTotal: 4 }],
    ["one listed, one missing", { ...job([rank(0)]), ranksTotal: 2 }],
    [
      "an unreachable agent",
      (() => {
        const base = job([]);
        return { ...base, pods: [pod(base, { agentState: null })], ranksTotal: 2 } as LiveJob;
      })(),
    ],
    [
      "a faulted agent",
      (() => {
        const base = job([rank(0), rank(1)]);
        return { ...base, pods: [pod(base, { agentState: "faulted" })] } as LiveJob;
      })(),
    ],
  ];

  it.each(cases)("%s: the same count as the topology's healthy ranks", (_name, live) => {
    const fromTopology = topologyView(live, []).ranks.filter((r) => r.health === "healthy").length;
    expect(countHealthyRanks(live)).toBe(fromTopology);
  });

  it("tells the cases apart (the comparison above is not vacuous)", () => {
    // "failed": 0, its ranks finished (no longer running), whatever its agent last said.
    expect(cases.map(([, live]) => countHealthyRanks(live))).toEqual([3, 2, 0, 7, 1, 0, 0, 4, 1, 0, 0]);
  });
});
