import { describe, expect, it } from "vitest";
import { faultPlan, victimsOf } from "./schedule";

describe("faultPlan", () => {
  it("10 minutes at one fault every 30 s: 20 faults, mid-slot, the four kinds in turn", () => {
    const plan = faultPlan({ durationMs: 600_000, intervalMs: 30_000, ranks: 64 });
    expect(plan).toHaveLength(20);
    expect(plan.map((fault) => fault.offsetMs).slice(0, 3)).toEqual([15_000, 45_000, 75_000]);
    expect(plan.at(-1)?.offsetMs).toBe(585_000);
    for (const kind of ["crash", "hang", "nan", "node"])
      expect(plan.filter((fault) => fault.kind === kind)).toHaveLength(5);
    expect(plan.slice(0, 4).map((fault) => fault.kind)).toEqual(["crash", "hang", "nan", "node"]);
  });

  it("spreads the faults over pods and local ranks, within the job", () => {
    const plan = faultPlan({ durationMs: 600_000, intervalMs: 30_000, ranks: 64 });
    expect(plan.every((fault) => fault.rank >= 0 && fault.rank < 64)).toBe(true);
    expect(new Set(plan.map((fault) => Math.floor(fault.rank / 8))).size).toBe(8);
    expect(new Set(plan.map((fault) => fault.rank % 8)).size).toBe(8);
  });

  it("a shorter run has fewer faults; a bad interval is refused", () => {
    expect(faultPlan({ durationMs: 120_000, intervalMs: 30_000, ranks: 64 })).toHaveLength(4);
    expect(() => faultPlan({ durationMs: 1000, intervalMs: 0, ranks: 64 })).toThrow(/positive/);
  });
});

describe("victimsOf", () => {
  it("a node fault stops every rank of the node's pod; the others one rank", () => {
    expect(victimsOf({ kind: "node", rank: 12 }, 8)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(victimsOf({ kind: "hang", rank: 12 }, 8)).toEqual([12]);
  });
});
