import { describe, expect, it } from "vitest";
import {
  aggregateRanks,
  aggregateRuleStates,
  isFaultState,
  type RuleOutcome,
  rankLogFault,
} from "./aggregate";
import type { LogState } from "./evaluator";

const outcome = (rule: string, state: LogState, lastMatchLine: string | null = null): RuleOutcome => ({
  rule,
  state,
  lastMatchLine,
});

describe("aggregateRuleStates", () => {
  it.each<[LogState[], LogState]>([
    [["HEALTHY", "SLOW", "HANGING", "FAULTED"], "FAULTED"],
    [["SLOW", "HANGING", "HEALTHY"], "HANGING"],
    [["WAITING", "SLOW", "HEALTHY"], "SLOW"],
    [["WAITING", "HEALTHY"], "HEALTHY"],
    [["WAITING", "WAITING"], "WAITING"],
    [[], "WAITING"],
  ])("%j -> %s", (states, expected) => {
    expect(aggregateRuleStates(states.map((state, i) => outcome(`r${i}`, state))).state).toBe(expected);
  });

  it("lists every rule in the winning state, in config order, with its last line", () => {
    const rank = aggregateRuleStates([
      outcome("A", "HEALTHY", "a"),
      outcome("B", "HANGING", "b"),
      outcome("C", "SLOW", "c"),
      outcome("D", "HANGING", null),
    ]);
    expect(rank).toEqual({
      state: "HANGING",
      rules: [
        { rule: "B", line: "b" },
        { rule: "D", line: null },
      ],
    });
    expect(rankLogFault(rank)).toEqual({
      reason: "LogHang_B",
      message:
        "The job is hanging (not receiving required logs) on the following log monitoring rules and corresponding last matched log lines: {'B': 'b\\n', 'D': None}",
    });
  });

  it("reports no fault while HEALTHY or WAITING", () => {
    expect(rankLogFault(aggregateRuleStates([outcome("A", "HEALTHY")]))).toBeNull();
    expect(rankLogFault(aggregateRuleStates([]))).toBeNull();
    expect(
      ["FAULTED", "HANGING", "SLOW", "HEALTHY", "WAITING"].map((s) => isFaultState(s as LogState)),
    ).toEqual([true, true, true, false, false]);
  });
});

describe("aggregateRanks", () => {
  const rank = (state: LogState, rule = "R") => ({ state, rules: [{ rule, line: null }] });

  it("takes the first bad rank in order, even if a later one is worse", () => {
    expect(aggregateRanks([rank("HEALTHY"), rank("SLOW", "S"), rank("FAULTED", "F")])).toEqual(
      rank("SLOW", "S"),
    );
  });

  it("is WAITING if any rank waits, else HEALTHY", () => {
    expect(aggregateRanks([rank("HEALTHY"), rank("WAITING")]).state).toBe("WAITING");
    expect(aggregateRanks([rank("HEALTHY"), rank("HEALTHY")]).state).toBe("HEALTHY");
    expect(aggregateRanks([]).state).toBe("WAITING");
  });
});
