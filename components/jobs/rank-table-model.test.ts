import { describe, expect, it } from "vitest";
import { DEFAULT_SORT, filterRanks, formatRuleStates, nextSort, sortRanks } from "./rank-table-model";
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
