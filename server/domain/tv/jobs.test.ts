import { describe, expect, it } from "vitest";
import { type TvJobRow, tvJobList } from "./jobs";

const row = (name: string, phase: string): TvJobRow => ({
  namespace: "ns",
  name,
  team: "vision",
  phase,
  status: phase,
  gpus: 8,
  ranksHealthy: 8,
  ranksTotal: 8,
  restarts: 0,
  goodput: 1,
});

describe("tvJobList", () => {
  it("puts recovering and failed jobs first and leaves finished and suspended ones out", () => {
    const { jobs, more } = tvJobList([
      row("b", "Running"),
      row("a", "Running"),
      row("p", "Pending"),
      row("done", "Succeeded"),
      row("held", "Suspended"),
      row("f", "Failed"),
      row("r", "Recovering"),
    ]);
    expect(jobs.map((job) => job.name)).toEqual(["r", "f", "a", "b", "p"]);
    expect(more).toBe(0);
  });

  it("caps the list and says how many more", () => {
    const rows = Array.from({ length: 25 }, (_, index) =>
      row(`j${String(index).padStart(2, "0")}`, "Running"),
    );
    const { jobs, more } = tvJobList(rows, 20);
    expect(jobs).toHaveLength(20);
    expect(jobs[0]?.name).toBe("j00");
    expect(more).toBe(5);
  });

  it("gives the cluster's goodput over every listed job, weighted by GPUs", () => {
    const rows = [
      { ...row("big", "Running"), gpus: 24, goodput: 0.9 },
      { ...row("small", "Recovering"), gpus: 8, goodput: 0.5 },
      { ...row("new", "Pending"), gpus: 0, goodput: null },
      { ...row("done", "Succeeded"), gpus: 64, goodput: 0.1 },
    ];
    expect(tvJobList(rows, 1)).toMatchObject({ more: 2, goodput: 0.8 });
    expect(tvJobList([row("q", "Pending")].map((r) => ({ ...r, goodput: null }))).goodput).toBeNull();
  });
});
