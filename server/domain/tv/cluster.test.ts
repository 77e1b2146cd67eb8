import { describe, expect, it } from "vitest";
import { GPU, type TeamCapacity } from "@/server/domain/governance/types";
import { clusterGpus, jobCounts, teamGpuRows } from "./cluster";

const cell = (team: string, over: Partial<TeamCapacity>): TeamCapacity => ({
  team,
  flavor: "default",
  resource: GPU,
  guaranteed: 0,
  used: 0,
  borrowed: 0,
  lent: 0,
  borrowLimit: 0,
  available: 0,
  lendable: 0,
  ...over,
});

const teams = [
  { id: "t1", name: "vision", displayName: "Vision" },
  { id: "t2", name: "nlp", displayName: "NLP" },
  { id: "t3", name: "speech", displayName: "" },
];

describe("teamGpuRows", () => {
  it("sums GPUs over flavors per team, other resources ignored, teams without quota at 0", () => {
    const rows = teamGpuRows({
      teams,
      scope: { all: true },
      capacities: [
        cell("vision", { guaranteed: 16, used: 20, borrowed: 4 }),
        cell("vision", { flavor: "h100", guaranteed: 8, used: 2 }),
        cell("vision", { resource: "cpu", guaranteed: 999, used: 999 }),
        cell("nlp", { guaranteed: 8, used: 3 }),
      ],
    });
    expect(rows).toEqual({
      teams: [
        { team: "vision", displayName: "Vision", used: 22, quota: 24, borrowed: 4 },
        { team: "nlp", displayName: "NLP", used: 3, quota: 8, borrowed: 0 },
        { team: "speech", displayName: "speech", used: 0, quota: 0, borrowed: 0 },
      ],
      more: 0,
    });
  });

  it("shows only the teams in scope", () => {
    const rows = teamGpuRows({
      teams,
      scope: { all: false, teamIds: ["t2"] },
      capacities: [cell("vision", { used: 1 }), cell("nlp", { used: 2 })],
    });
    expect(rows.teams.map((row) => row.team)).toEqual(["nlp"]);
  });

  it("shows the busiest teams first, at most `max`, and counts the rest", () => {
    const rows = teamGpuRows({
      teams,
      scope: { all: true },
      max: 2,
      capacities: [cell("vision", { used: 1 }), cell("nlp", { used: 5 }), cell("speech", { used: 3 })],
    });
    expect(rows.teams.map((row) => row.team)).toEqual(["nlp", "speech"]);
    expect(rows.more).toBe(1);
  });
});

describe("jobCounts", () => {
  it("counts starting and recovering jobs as running; finished and suspended ones not at all", () => {
    const phases = [
      "Running",
      "Starting",
      "Recovering",
      "Pending",
      "Pending",
      "Failed",
      "Succeeded",
      "Suspended",
    ];
    expect(jobCounts(phases.map((phase) => ({ phase })))).toEqual({ running: 3, pending: 2, failed: 1 });
  });
});

describe("clusterGpus", () => {
  it("adds the teams past the cap to the total, so the bars and the tile agree", () => {
    const figures = clusterGpus({
      teams,
      scope: { all: true },
      max: 1,
      jobs: [{ team: null, phase: "Suspended", gpus: 8 }],
      capacities: [cell("vision", { used: 6 }), cell("nlp", { used: 5 }), cell("speech", { used: 3 })],
    });
    expect(figures).toMatchObject({ more: 2, moreGpus: 8, inUse: 14 });
    expect(figures.teams.map((row) => row.team)).toEqual(["vision"]);
  });
});
