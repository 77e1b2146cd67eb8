import { describe, expect, it } from "vitest";
import {
  ageFrom,
  DEFAULT_SORT,
  filterRanks,
  formatRuleStates,
  healthText,
  nextSort,
  sortRanks,
} from "./rank-table-model";
import { syntheticRank } from "./testing";

const ranks = [
  syntheticRank({ rank: 0, node: "node-10", pod: "w-0", health: "healthy", step: 5, loss: 2 }),
  syntheticRank({ rank: 1, node: "node-2", pod: "w-1", health: "faulted", step: null, loss: Number.NaN }),
  syntheticRank({ rank: 2, node: "node-2", pod: "w-1", health: "slow", step: 5, loss: 1 }),
  syntheticRank({ rank: 3, node: null, pod: "w-3", health: "healthy", step: 7, loss: null, straggler: true }),
];
const order = (rows: ReadonlyArray<{ rank: number }>) => rows.map((row) => row.rank);

describe("sortRanks", () => {
  it("sorts by rank by default and does not mutate its input", () => {
    const shuffled = [ranks[2], ranks[0], ranks[3], ranks[1]].filter((r) => r !== undefined);
    expect(order(sortRanks(shuffled, DEFAULT_SORT))).toEqual([0, 1, 2, 3]);
    expect(order(shuffled)).toEqual([2, 0, 3, 1]);
  });

  it("breaks ties by rank in both directions, so equal rows never jump", () => {
    expect(order(sortRanks(ranks, { key: "step", direction: "ascending" }))).toEqual([0, 2, 3, 1]);
    expect(order(sortRanks(ranks, { key: "step", direction: "descending" }))).toEqual([3, 0, 2, 1]);
  });

  it("puts nulls (and NaN measurements) last in both directions", () => {
    expect(order(sortRanks(ranks, { key: "loss", direction: "ascending" }))).toEqual([2, 0, 1, 3]);
    expect(order(sortRanks(ranks, { key: "loss", direction: "descending" }))).toEqual([0, 2, 1, 3]);
    expect(order(sortRanks(ranks, { key: "node", direction: "ascending" }))).toEqual([1, 2, 0, 3]);
  });

  it("sorts health by severity, node names numerically, stragglers first", () => {
    expect(order(sortRanks(ranks, { key: "health", direction: "ascending" }))).toEqual([1, 2, 0, 3]);
    expect(order(sortRanks(ranks, { key: "straggler", direction: "ascending" }))).toEqual([3, 0, 1, 2]);
  });
});

describe("filterRanks", () => {
  it("matches rank, node, pod and health substrings, case-insensitively", () => {
    expect(order(filterRanks(ranks, ""))).toEqual([0, 1, 2, 3]);
    expect(order(filterRanks(ranks, " NODE-2 "))).toEqual([1, 2]);
    expect(order(filterRanks(ranks, "w-3"))).toEqual([3]);
    expect(order(filterRanks(ranks, "fault"))).toEqual([1]);
    expect(order(filterRanks(ranks, "3"))).toEqual([3]);
    expect(filterRanks(ranks, "nothing")).toEqual([]);
  });
});

describe("nextSort and formatRuleStates", () => {
  it("starts a new column ascending and flips the same column", () => {
    expect(nextSort(DEFAULT_SORT, "loss")).toEqual({ key: "loss", direction: "ascending" });
    expect(nextSort({ key: "loss", direction: "ascending" }, "loss").direction).toBe("descending");
    expect(nextSort({ key: "loss", direction: "descending" }, "loss").direction).toBe("ascending");
  });

  it("lists rule states by name", () => {
    expect(formatRuleStates({ loss: "SLOW", heartbeat: "HEALTHY" })).toBe("heartbeat: HEALTHY, loss: SLOW");
    expect(formatRuleStates({})).toBe("");
  });
});

describe("progress age and no progress (the Age and Health columns)", () => {
  const T0 = 1_700_000_000_000;
  const stalled = syntheticRank({ rank: 4, health: "stalled", lastProgressAt: T0, lastLineAt: T0 + 500 });

  it("counts Age from the last progress line, else from the last line", () => {
    expect(ageFrom(stalled)).toBe(T0);
    expect(ageFrom(syntheticRank({ rank: 5, lastProgressAt: null, lastLineAt: T0 + 500 }))).toBe(T0 + 500);
    expect(ageFrom(syntheticRank({ rank: 6, lastLineAt: null }))).toBeNull();
  });

  it("sorts by Age with the oldest progress first ascending, and ranks with neither last", () => {
    const rows = [
      syntheticRank({ rank: 0, lastProgressAt: T0 + 9000, lastLineAt: T0 + 9000 }),
      syntheticRank({ rank: 1, lastLineAt: null }),
      syntheticRank({ rank: 2, lastProgressAt: T0, lastLineAt: T0 + 9500 }),
      syntheticRank({ rank: 3, lastLineAt: T0 + 4000 }),
    ];
    expect(order(sortRanks(rows, { key: "age", direction: "ascending" }))).toEqual([2, 3, 0, 1]);
  });

  it("reads 'No progress for N s' for a stalled rank, counting up with the clock; other healths their label", () => {
    expect(healthText(stalled, T0 + 5_400)).toBe("No progress for 5 s");
    // The page's clock a second behind the server that judged it stalled: never under the threshold.
    expect(healthText(stalled, T0 + 4_300)).toBe("No progress for 5 s");
    expect(healthText({ ...stalled, progressIntervalMs: 3000 }, T0 + 8_000)).toBe("No progress for 9 s");
    expect(healthText(stalled, T0 + 6_100)).toBe("No progress for 6 s");
    expect(healthText(stalled, T0 + 125_000)).toBe("No progress for 2 min 5 s");
    expect(healthText(syntheticRank({ rank: 7, lastProgressAt: T0 }), T0 + 60_000)).toBe("Healthy");
  });

  it("finds stalled ranks by the words of their health", () => {
    expect(order(filterRanks([...ranks, stalled], "no progress"))).toEqual([4]);
  });
});
