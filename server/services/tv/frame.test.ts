import { describe, expect, it } from "vitest";
import { GPU, type TeamCapacity } from "@/server/domain/governance/types";
import type { JobRow } from "@/server/domain/jobs/pages";
import { type ClusterFrame, type JobsFrame, loadTvFrame } from "./frame";
import type { TvReads } from "./reads";

const capacity = (team: string, used: number, guaranteed: number): TeamCapacity => ({
  team,
  flavor: "default",
  resource: GPU,
  guaranteed,
  used,
  borrowed: Math.max(0, used - guaranteed),
  lent: 0,
  borrowLimit: 0,
  available: 0,
  lendable: 0,
});

type RowInput = Pick<JobRow, "name" | "phase" | "gpus"> &
  Partial<Pick<JobRow, "namespace" | "team" | "ranksHealthy" | "ranksTotal">>;

const row = (input: RowInput): JobRow => ({
  namespace: "ns-vision",
  team: "vision",
  status: input.phase,
  priorityClass: null,
  ranksHealthy: 0,
  ranksTotal: 0,
  restarts: { plr: 0, podReplacement: 0, jlr: 0 },
  createdAt: Date.now() - 60_000,
  reason: null,
  backOffUntil: null,
  ...input,
});

/** The reads as plain data: what the cluster, Postgres and the governance snapshot said at one instant. */
function readsOf(input: { rows: JobRow[]; capacities: TeamCapacity[] }): TvReads {
  return {
    teams: async () => [
      { id: "t1", name: "vision", displayName: "Vision", namespace: "ns-vision" },
      { id: "t2", name: "nlp", displayName: "NLP", namespace: "ns-nlp" },
    ],
    liveJobs: async () => [],
    nodes: async () =>
      [0, 1, 2, 3].map((i) => ({
        name: `node-${i}`,
        health: "Schedulable",
        ready: true,
        gpus: 8,
        changedAt: 0,
      })),
    jobRows: async () => input.rows,
    capacities: async () => input.capacities,
    faultsLastDay: async () => [],
    runTimelines: async () => new Map(),
  };
}

describe("the cluster view's GPU figures", () => {
  it("the tile's GPUs in use are the sum of the team bars, an admitted job waiting for its pods included", async () => {
    // vision: a running 8-GPU job and an admitted 4-GPU job whose pods are pending (quota "used" is 12);
    // nlp: a running 4-GPU job; and a 2-GPU job in a namespace no team owns.
    const rows = [
      row({ name: "a", phase: "Running", gpus: 8 }),
      row({ name: "b", phase: "Pending", gpus: 4 }),
      row({ name: "c", phase: "Running", gpus: 4, namespace: "ns-nlp", team: "nlp" }),
      row({ name: "d", phase: "Running", gpus: 2, namespace: "scratch", team: null }),
    ];
    const frame = (await loadTvFrame({
      reads: readsOf({ rows, capacities: [capacity("vision", 12, 16), capacity("nlp", 4, 16)] }),
      scope: { all: true },
      view: "cluster",
    })) as ClusterFrame;
    const bars = frame.teams.reduce((sum, team) => sum + team.used, 0) + frame.moreTeamsGpus;
    expect(frame.gpus).toEqual({ capacity: 32, inUse: 18 });
    expect(bars).toBe(frame.gpus.inUse);
    expect(frame.teams.map((team) => [team.displayName, team.used, team.quota])).toEqual([
      ["Vision", 12, 16],
      ["NLP", 4, 16],
      ["Outside any team", 2, null],
    ]);
  });

  it("a team-scoped screen counts only its teams' bars, and the teams past the cap are still in the tile", async () => {
    const rows = [row({ name: "a", phase: "Running", gpus: 8 })];
    const reads = readsOf({ rows, capacities: [capacity("vision", 8, 16), capacity("nlp", 4, 16)] });
    const scoped = (await loadTvFrame({
      reads,
      scope: { all: false, teamIds: ["t1"] },
      view: "cluster",
    })) as ClusterFrame;
    expect(scoped.gpus.inUse).toBe(8);
    expect(scoped.teams.map((team) => team.team)).toEqual(["vision"]);
  });
});

describe("the jobs view's goodput", () => {
  it("is — (null) for a job that has not started, and leaves the cluster figure to the jobs that have", async () => {
    const rows = [
      row({ name: "waiting", phase: "Pending", gpus: 8 }),
      row({ name: "starting", phase: "Starting", gpus: 8 }),
      row({ name: "training", phase: "Running", gpus: 8, ranksHealthy: 1, ranksTotal: 1 }),
    ];
    const frame = (await loadTvFrame({
      reads: readsOf({ rows, capacities: [] }),
      scope: { all: true },
      view: "jobs",
    })) as JobsFrame;
    const goodput = Object.fromEntries(frame.jobs.map((job) => [job.name, job.goodput]));
    expect(goodput).toEqual({ waiting: null, starting: null, training: 1 });
    expect(frame.goodput).toBe(1);
  });

  it("is — (null) for a failed job, which never reads as 100 %", async () => {
    const rows = [
      {
        ...row({ name: "exits-at-start", phase: "Failed", gpus: 1 }),
        restarts: { plr: 3, podReplacement: 0, jlr: 0 },
      },
      row({ name: "training", phase: "Running", gpus: 8, ranksHealthy: 1, ranksTotal: 1 }),
    ];
    const frame = (await loadTvFrame({
      reads: readsOf({ rows, capacities: [] }),
      scope: { all: true },
      view: "jobs",
    })) as JobsFrame;
    expect(Object.fromEntries(frame.jobs.map((job) => [job.name, job.goodput]))).toEqual({
      "exits-at-start": null,
      training: 1,
    });
  });
});
