import { describe, expect, it } from "vitest";
import type { RankStatus } from "@/server/domain/agent-api/protocol";
import { type LiveJob, liveJobSchema } from "@/server/domain/operator-api/contract";
import { HttpError } from "./http-utils";
import { jobListView, jobSummary } from "./job-summary";

const rank = (local: number, state: RankStatus["state"]): RankStatus => ({
  local_rank: local,
  rank: local,
  pid: 100 + local,
  state,
  exit_code: null,
  signal: null,
  last_line: "step 10 loss 1.0",
  last_line_at: new Date(0).toISOString(),
  step: 10,
  loss: 1,
  throughput: null,
  rule_states: {},
  rule_metrics: {},
  restarts: 0,
});

const live: LiveJob = {
  namespace: "ns",
  name: "job",
  createdAt: 0,
  gpus: 3,
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
      ranks: [rank(0, "running"), rank(1, "crashed"), rank(2, "running")],
    },
  ],
  ranksTotal: 3,
  ranksRunning: 2,
  updatedAt: 0,
};

describe("the jobs list's view parameter", () => {
  it("is full by default and when asked, summary when asked", () => {
    expect(jobListView("/api/v1/jobs")).toBe("full");
    expect(jobListView("/api/v1/jobs?view=full")).toBe("full");
    expect(jobListView("/api/v1/jobs?view=summary")).toBe("summary");
  });

  it("refuses another value with a 400 that names the parameter and what it takes", () => {
    const refused = (() => {
      try {
        jobListView("/api/v1/jobs?view=brief");
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).status).toBe(400);
    expect((refused as HttpError).message).toBe('view: expected "full" or "summary", got "brief"');
  });
});

describe("a job's summary", () => {
  it("drops the per-rank detail, keeps every pod, counts the healthy ranks, and parses as the contract says", () => {
    const summary = jobSummary(live);
    expect(summary.pods.map((pod) => [pod.name, pod.ranks.length])).toEqual([["job-w-0", 0]]);
    expect(summary.ranksHealthy).toBe(2);
    expect(live.pods[0]?.ranks).toHaveLength(3);
    expect(liveJobSchema.safeParse(summary).success).toBe(true);
  });

  it("is built once per live object (live-state replaces the object when the job changes)", () => {
    expect(jobSummary(live)).toBe(jobSummary(live));
    expect(jobSummary({ ...live })).not.toBe(jobSummary(live));
  });
});
