import { describe, expect, it } from "vitest";
import { matchLines } from "./log-match-worker";

/** A clock that moves `tick` ms each time it is read: every rule then costs one tick to run. */
function tickingClock(tick: number): () => number {
  let now = 0;
  return () => {
    now += tick;
    return now;
  };
}

/**
 * `count` rules matching "step <i>"; the never-matching alternative makes each test's patterns its own, as
 * the worker keeps each pattern's measured cost across requests.
 */
const rules = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    name: `${prefix}${i}`,
    logPattern: `.*step ${i}\\b|${prefix}`,
  }));

describe("the logs view's rule worker", () => {
  it("marks each line with the rules whose logPattern matches it", () => {
    const response = matchLines({
      id: 1,
      rules: rules("Cheap", 3),
      lines: ["step 0 done", "nothing here", "at step 2 and step 1"],
      budgetMs: 1000,
    });
    expect(response).toEqual({ id: 1, matches: [["Cheap0"], [], ["Cheap1", "Cheap2"]], complete: true });
  });

  it("does not start a rule that its last measured cost says would overrun the budget", () => {
    // Each rule costs 10 ms on this clock; 40 ms of budget fits two rules started before 40 ms, not a third.
    const set = rules("Slow", 8);
    const first = matchLines(
      { id: 2, rules: set, lines: ["step 0", "step 1"], budgetMs: 40 },
      tickingClock(10),
    );
    expect(first.complete).toBe(false);
    expect(first.matches).toEqual([["Slow0"], []]);
  });

  it("finishes a costly line over the next requests instead of starting it over", () => {
    const set = rules("Resumed", 8);
    // Lines of one length: a rule's estimate scales with the characters it sees.
    const lines = ["step 5 and step 0", "step 7 and step 1"];
    const request = (id: number) => matchLines({ id, rules: set, lines, budgetMs: 40 }, tickingClock(10));
    const answers = Array.from({ length: 8 }, (_, i) => request(10 + i));
    // Two rules a request: 16 rules over two lines take eight requests; each answer keeps what was found.
    expect(answers.map((answer) => answer.complete)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(answers[2]?.matches).toEqual([["Resumed0", "Resumed5"], []]);
    expect(answers[7]?.matches).toEqual([
      ["Resumed0", "Resumed5"],
      ["Resumed1", "Resumed7"],
    ]);
  });

  it("runs the first rule of a request however costly, so every request makes progress", () => {
    const set = rules("Costly", 2);
    const costly = { id: 20, rules: set, lines: ["step 1"], budgetMs: 5 };
    // A rule costs 50 ms here, ten times the budget: one rule per request, never none.
    expect(matchLines(costly, tickingClock(50))).toMatchObject({ matches: [[]], complete: false });
    expect(matchLines({ ...costly, id: 21 }, tickingClock(50))).toEqual({
      id: 21,
      matches: [["Costly1"]],
      complete: true,
    });
  });
});
