import { describe, expect, it } from "vitest";
import { createRuleEvaluator, type LogState } from "./evaluator";
import type { LogMonitoringRule } from "./log-rule.schema";
import { MAX_LINE_CHARS } from "./pattern";
import { compiled, fakeClock } from "./testing";

type RuleFields = Partial<LogMonitoringRule> & { logPattern: string };

function setup(rule: RuleFields) {
  const clock = fakeClock();
  const evaluator = createRuleEvaluator({ rule: compiled(rule), now: clock.now });
  return { clock, evaluator };
}

const LOSS = String.raw`.*loss: (\S+)`;

describe("matching and the previous state", () => {
  it("starts WAITING and stays WAITING on idle ticks and non-matching lines", () => {
    const { evaluator } = setup({ logPattern: ".*Epoch.*" });
    expect(evaluator.snapshot().state).toBe("WAITING");
    expect(evaluator.evaluate(null)).toBe("WAITING");
    expect(evaluator.evaluate("booting")).toBe("WAITING");
  });

  it("uses re.match: a line must match from its first character", () => {
    const { evaluator } = setup({ logPattern: "Epoch" });
    expect(evaluator.evaluate("[rank0] Epoch 1")).toBe("WAITING");
    expect(evaluator.evaluate("Epoch 1 done")).toBe("HEALTHY");
  });

  it("returns the previous state for a line that does not match", () => {
    const { evaluator } = setup({ logPattern: "Epoch" });
    evaluator.evaluate("Epoch 1");
    expect(evaluator.evaluate("unrelated")).toBe("HEALTHY");
    expect(evaluator.evaluate(null)).toBe("HEALTHY");
  });

  it("records the last matched line and when it matched", () => {
    const { clock, evaluator } = setup({ logPattern: "Epoch" });
    clock.advance(5);
    evaluator.evaluate("Epoch 1\n");
    expect(evaluator.snapshot()).toMatchObject({ lastMatchLine: "Epoch 1", lastMatchAt: clock.at() });
  });

  it("stores a long matched line cut to MAX_LINE_CHARS", () => {
    const { evaluator } = setup({ logPattern: "Epoch" });
    evaluator.evaluate(`Epoch ${"x".repeat(MAX_LINE_CHARS)}`);
    expect(evaluator.snapshot().lastMatchLine).toHaveLength(MAX_LINE_CHARS);
  });
});

describe("start cut-off", () => {
  it("is HANGING once the cut-off passes with no match, then HEALTHY on a match", () => {
    const { clock, evaluator } = setup({ logPattern: ".*Epoch.*", expectedStartCutOffInSeconds: 60 });
    clock.advance(60);
    expect(evaluator.evaluate(null)).toBe("WAITING");
    clock.advance(0.001);
    expect(evaluator.evaluate(null)).toBe("HANGING");
    expect(evaluator.evaluate("still loading")).toBe("HANGING");
    expect(evaluator.evaluate("Epoch 1")).toBe("HEALTHY");
  });

  it("is measured from the evaluator's creation, not from the first evaluation", () => {
    const { clock, evaluator } = setup({ logPattern: "x", expectedStartCutOffInSeconds: 10 });
    clock.advance(11);
    expect(evaluator.evaluate(null)).toBe("HANGING");
  });

  it("treats a cut-off of 0 as a constraint", () => {
    const { clock, evaluator } = setup({ logPattern: "x", expectedStartCutOffInSeconds: 0 });
    expect(evaluator.evaluate(null)).toBe("WAITING");
    clock.advance(0.001);
    expect(evaluator.evaluate(null)).toBe("HANGING");
  });

  it("no longer applies after the first match", () => {
    const { clock, evaluator } = setup({ logPattern: "x", expectedStartCutOffInSeconds: 10 });
    evaluator.evaluate("x");
    clock.advance(1000);
    expect(evaluator.evaluate(null)).toBe("HEALTHY");
  });
});

describe("recurring frequency", () => {
  it("is HANGING when the gap since the last match exceeds it", () => {
    const { clock, evaluator } = setup({ logPattern: "step", expectedRecurringFrequencyInSeconds: 10 });
    expect(evaluator.evaluate("step 1")).toBe("HEALTHY");
    clock.advance(10);
    expect(evaluator.evaluate(null)).toBe("HEALTHY");
    clock.advance(0.001);
    expect(evaluator.evaluate(null)).toBe("HANGING");
    expect(evaluator.evaluate("noise")).toBe("HANGING");
    expect(evaluator.evaluate("step 2")).toBe("HEALTHY");
    clock.advance(9);
    expect(evaluator.evaluate("noise")).toBe("HEALTHY");
  });

  it("does not apply before the first match", () => {
    const { clock, evaluator } = setup({ logPattern: "step", expectedRecurringFrequencyInSeconds: 10 });
    clock.advance(1000);
    expect(evaluator.evaluate(null)).toBe("WAITING");
  });
});

describe("stopPattern", () => {
  it("deactivates the rule: HEALTHY forever after", () => {
    const { clock, evaluator } = setup({
      logPattern: "step",
      stopPattern: ".*Training finished.*",
      expectedRecurringFrequencyInSeconds: 10,
      faultOnMatch: false,
    });
    evaluator.evaluate("step 1");
    expect(evaluator.evaluate("[rank0] Training finished")).toBe("HEALTHY");
    clock.advance(1000);
    expect(evaluator.evaluate(null)).toBe("HEALTHY");
    expect(evaluator.snapshot().active).toBe(false);
  });

  it("deactivates before any match, even past the start cut-off", () => {
    const { clock, evaluator } = setup({
      logPattern: "step",
      stopPattern: "done",
      expectedStartCutOffInSeconds: 5,
    });
    expect(evaluator.evaluate("done")).toBe("HEALTHY");
    clock.advance(100);
    expect(evaluator.evaluate(null)).toBe("HEALTHY");
  });

  it("is not consulted on idle ticks", () => {
    const { evaluator } = setup({ logPattern: "step", stopPattern: ".*" });
    expect(evaluator.evaluate(null)).toBe("WAITING");
    expect(evaluator.snapshot().active).toBe(true);
  });

  it("loses to faultOnMatch when a line matches both patterns", () => {
    const { evaluator } = setup({ logPattern: ".*error.*", stopPattern: ".*", faultOnMatch: true });
    expect(evaluator.evaluate("fatal error")).toBe("FAULTED");
    expect(evaluator.snapshot().active).toBe(true);
  });
});

describe("faultOnMatch", () => {
  it("returns FAULTED on a match, and keeps it on non-matching lines", () => {
    const { evaluator } = setup({ logPattern: ".*out of memory.*", faultOnMatch: true });
    expect(evaluator.evaluate("step 1")).toBe("WAITING");
    expect(evaluator.evaluate("RuntimeError: CUDA out of memory")).toBe("FAULTED");
    expect(evaluator.evaluate("step 2")).toBe("FAULTED");
  });

  it("ignores the metric settings", () => {
    const { evaluator } = setup({
      logPattern: LOSS,
      faultOnMatch: true,
      metricThreshold: 100,
      operator: "gt",
    });
    expect(evaluator.evaluate("loss: 1")).toBe("FAULTED");
  });

  it("gives way to HANGING when the recurring window later expires, as the agent does", () => {
    const { clock, evaluator } = setup({
      logPattern: "oops",
      faultOnMatch: true,
      expectedRecurringFrequencyInSeconds: 5,
    });
    evaluator.evaluate("oops");
    clock.advance(6);
    expect(evaluator.evaluate(null)).toBe("HANGING");
  });
});

describe("metric threshold", () => {
  it.each<[LogMonitoringRule["operator"], number, string, LogState]>([
    ["gt", 2, "2.5", "SLOW"],
    ["gt", 2, "2", "HEALTHY"],
    ["gt", 2, "1.9", "HEALTHY"],
    ["lt", 2, "1.99", "SLOW"],
    ["lt", 2, "2.0", "HEALTHY"],
    ["eq", 2, "2.0", "SLOW"],
    ["eq", 2, "2", "SLOW"],
    ["eq", 2, "2.0001", "HEALTHY"],
    ["gteq", 2, "2", "SLOW"],
    ["gteq", 2, "1.999", "HEALTHY"],
    ["gteq", 2, "3e1", "SLOW"],
    ["lteq", 2, "2", "SLOW"],
    ["lteq", 2, "2.01", "HEALTHY"],
    ["lteq", 2, "-inf", "SLOW"],
    ["gt", 2, "inf", "SLOW"],
    ["lt", 0, "-1_000.5", "SLOW"],
  ])("%s %d with value %s -> %s", (operator, metricThreshold, value, expected) => {
    const { evaluator } = setup({ logPattern: LOSS, metricThreshold, operator });
    expect(evaluator.evaluate(`loss: ${value}`)).toBe(expected);
  });

  it("truncates metricThreshold like Python int(): 2.9 behaves as 2", () => {
    const { evaluator } = setup({ logPattern: LOSS, metricThreshold: 2.9, operator: "gt" });
    expect(evaluator.evaluate("loss: 2.5")).toBe("SLOW");
  });

  it("is HEALTHY on a match when no capture group, threshold or operator is configured", () => {
    expect(setup({ logPattern: "loss" }).evaluator.evaluate("loss: 9")).toBe("HEALTHY");
    expect(setup({ logPattern: LOSS }).evaluator.evaluate("loss: 9")).toBe("HEALTHY");
  });

  it("records the parsed metric", () => {
    const { evaluator } = setup({ logPattern: LOSS, metricThreshold: 2, operator: "gt" });
    evaluator.evaluate("loss: 1.5e-3");
    expect(evaluator.snapshot().lastMetricValue).toBe(0.0015);
  });

  it.each(["gt", "lt", "eq", "gteq", "lteq"] as const)(
    "treats nan as never crossing the threshold (%s) and resets the count",
    (operator) => {
      const { evaluator } = setup({
        logPattern: LOSS,
        metricThreshold: 2,
        operator,
        metricEvaluationDataPoints: 2,
      });
      evaluator.evaluate("loss: 2");
      evaluator.evaluate("loss: 2");
      expect(evaluator.evaluate("loss: nan")).toBe("HEALTHY");
      expect(evaluator.snapshot()).toMatchObject({ slowCount: 0, lastMetricValue: Number.NaN });
    },
  );
});

describe("metricEvaluationDataPoints", () => {
  const rule: RuleFields = {
    logPattern: LOSS,
    metricThreshold: 5,
    operator: "gt",
    metricEvaluationDataPoints: 3,
  };

  it("needs N consecutive bad values, caps the count at N and resets on a good one", () => {
    const { evaluator } = setup(rule);
    expect(["loss: 9", "loss: 9"].map((line) => evaluator.evaluate(line))).toEqual(["HEALTHY", "HEALTHY"]);
    expect(evaluator.snapshot().slowCount).toBe(2);
    expect(evaluator.evaluate("loss: 9")).toBe("SLOW");
    evaluator.evaluate("loss: 9");
    evaluator.evaluate("loss: 9");
    expect(evaluator.snapshot().slowCount).toBe(3);
    expect(evaluator.evaluate("loss: 1")).toBe("HEALTHY");
    expect(evaluator.snapshot().slowCount).toBe(0);
    expect(evaluator.evaluate("loss: 9")).toBe("HEALTHY");
  });

  it("is not reset by non-matching lines or idle ticks", () => {
    const { evaluator } = setup(rule);
    evaluator.evaluate("loss: 9");
    evaluator.evaluate("other");
    evaluator.evaluate(null);
    evaluator.evaluate("loss: 9");
    expect(evaluator.evaluate("loss: 9")).toBe("SLOW");
  });

  it("defaults to 1", () => {
    const { evaluator } = setup({ logPattern: LOSS, metricThreshold: 5, operator: "gt" });
    expect(evaluator.evaluate("loss: 9")).toBe("SLOW");
    expect(evaluator.evaluate("loss: 1")).toBe("HEALTHY");
  });
});

describe("a capture float() rejects", () => {
  const rule: RuleFields = {
    logPattern: LOSS,
    metricThreshold: 5,
    operator: "gt",
    metricEvaluationDataPoints: 2,
  };

  it("keeps the previous state and slow count but counts as a match", () => {
    const { clock, evaluator } = setup({ ...rule, expectedRecurringFrequencyInSeconds: 10 });
    expect(evaluator.evaluate("loss: abc")).toBe("WAITING");
    evaluator.evaluate("loss: 9");
    evaluator.evaluate("loss: 9");
    clock.advance(8);
    expect(evaluator.evaluate("loss: 0x10")).toBe("SLOW");
    expect(evaluator.snapshot()).toMatchObject({
      slowCount: 2,
      lastMatchLine: "loss: 0x10",
      lastMetricValue: 9,
    });
    clock.advance(8);
    expect(evaluator.evaluate(null)).toBe("SLOW");
  });

  it("treats a group that did not take part like an unparsable one", () => {
    const { evaluator } = setup({
      logPattern: String.raw`step(?: loss=(\d+))?`,
      metricThreshold: 1,
      operator: "gt",
    });
    evaluator.evaluate("step loss=1");
    expect(evaluator.evaluate("step")).toBe("HEALTHY");
    evaluator.evaluate("step loss=3");
    expect(evaluator.evaluate("step")).toBe("SLOW");
  });
});

describe("suspended time", () => {
  it("is excluded from the start cut-off, and the clock is frozen while suspended", () => {
    const { clock, evaluator } = setup({ logPattern: "x", expectedStartCutOffInSeconds: 60 });
    clock.advance(30);
    evaluator.suspend();
    clock.advance(1000);
    expect(evaluator.evaluate(null)).toBe("WAITING");
    evaluator.resume();
    clock.advance(30);
    expect(evaluator.evaluate(null)).toBe("WAITING");
    clock.advance(0.001);
    expect(evaluator.evaluate(null)).toBe("HANGING");
  });

  it("is excluded from the recurring window, with explicit times and repeated calls", () => {
    const { clock, evaluator } = setup({ logPattern: "x", expectedRecurringFrequencyInSeconds: 10 });
    evaluator.evaluate("x");
    const t0 = clock.at();
    evaluator.suspend(t0 + 5_000);
    evaluator.suspend(t0 + 9_000);
    expect(evaluator.snapshot().suspended).toBe(true);
    evaluator.resume(t0 + 105_000);
    evaluator.resume(t0 + 500_000);
    clock.advance(110);
    expect(evaluator.evaluate(null)).toBe("HEALTHY");
    clock.advance(0.001);
    expect(evaluator.evaluate(null)).toBe("HANGING");
  });
});
