import { describe, expect, it } from "vitest";
import { teamCapacities } from "./capacity";
import { gpus, running, snapshotOf, team } from "./governance.fixtures";

describe("teamCapacities", () => {
  it("guaranteed, used, borrowed, lent and what each could still take", () => {
    const capacities = teamCapacities(
      snapshotOf({
        teams: [team("a", 4), team("b", 4), team("c", 4, { strategy: "DontLend" })],
        capacity: { default: gpus(16) },
        // b borrows 6: 4 unallocated first, then 2 of a's idle guarantee (c lends nothing).
        admitted: [running({ key: "b/big", gpus: 10 }), running({ key: "c/one", gpus: 1 })],
      }),
    );
    const row = (name: string) => capacities.find((c) => c.team === name);
    expect(row("a")).toEqual({
      team: "a",
      flavor: "default",
      resource: "nvidia.com/gpu",
      guaranteed: 4,
      used: 0,
      borrowed: 0,
      lent: 2,
      borrowLimit: 4,
      available: 2,
      lendable: 4,
    });
    expect(row("b")).toMatchObject({ used: 10, borrowed: 6, lent: 0, borrowLimit: 4, available: 0 });
    expect(row("c")).toMatchObject({ used: 1, borrowed: 0, lent: 0, lendable: 0, available: 3 });
  });
});
