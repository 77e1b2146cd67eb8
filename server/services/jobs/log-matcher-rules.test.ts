import { describe, expect, it } from "vitest";
import { matchLines } from "./log-match-worker";
import { markingRules, metricTrips } from "./log-matcher-rules";

/** examples/jobs/demo-job.yaml's rules: a start rule, a hang rule, a fault rule and a metric rule. */
const DEMO_RULES = [
  { name: "JobStart", logPattern: ".*training started.*", expectedStartCutOffInSeconds: 60 },
  {
    name: "JobHang",
    logPattern: ".*step=(\\d+).*",
    expectedRecurringFrequencyInSeconds: 10,
    stopPattern: ".*training finished.*",
  },
  { name: "LossNaN", logPattern: ".*loss=(nan|inf).*", faultOnMatch: true },
  {
    name: "LowThroughput",
    logPattern: ".*throughput=([0-9.]+).*",
    metricThreshold: 100,
    operator: "lt" as const,
    metricEvaluationDataPoints: 5,
  },
];

/** What examples/trainer/demo-trainer.ts prints. */
const LOG = [
  "training started",
  "step=1 loss=2.3010 throughput=412.5 samples/s rank=0",
  "step=2 loss=2.2874 throughput=409.1 samples/s rank=0",
  "step=3 loss=nan throughput=398.0 samples/s rank=0",
  "step=4 loss=2.2010 throughput=61.2 samples/s rank=0",
  "training finished",
];

describe("which log lines the console marks (issue 36 item 1)", () => {
  it("turns a job's rules into the patterns that make a rule act, named for the marked line's title", () => {
    expect(markingRules(DEMO_RULES)).toEqual([
      { name: "JobHang: stops the rule", logPattern: ".*training finished.*" },
      { name: "LossNaN: faults the rank", logPattern: ".*loss=(nan|inf).*" },
      {
        name: "LowThroughput: value < 100",
        logPattern: ".*throughput=([0-9.]+).*",
        metric: { threshold: 100, operator: "lt" },
      },
    ]);
  });

  it("marks the fault, the slow step and the stop of the demo job's log, not its healthy progress lines", () => {
    const response = matchLines({ id: 1, rules: markingRules(DEMO_RULES), lines: LOG, budgetMs: 1000 });
    expect(response.matches).toEqual([
      [],
      [],
      [],
      ["LossNaN: faults the rank"],
      ["LowThroughput: value < 100"],
      ["JobHang: stops the rule"],
    ]);
  });

  it("compares a metric as the agent does: Python int() threshold, float() capture, NaN never passes", () => {
    const [rule] = markingRules([
      { name: "Loss", logPattern: ".*loss=(\\S+).*", metricThreshold: 2.9, operator: "gteq" },
    ]);
    expect(rule?.metric).toEqual({ threshold: 2, operator: "gteq" });
    // The spec as submitted may write the threshold as a string of an integer, as the agent's int() takes it.
    const [written] = markingRules([
      { name: "Tp", logPattern: ".*tp=(\\S+).*", metricThreshold: " 1_000 ", operator: "lt" },
    ]);
    expect(written?.metric).toEqual({ threshold: 1000, operator: "lt" });
    const metric = { threshold: 2, operator: "gteq" as const };
    expect(metricTrips(metric, "2")).toBe(true);
    expect(metricTrips(metric, " 1_0.5 ")).toBe(true);
    expect(metricTrips(metric, "1.99")).toBe(false);
    expect(metricTrips(metric, "nan")).toBe(false);
    expect(metricTrips(metric, "abc")).toBe(false);
    expect(metricTrips(metric, undefined)).toBe(false);
  });

  it("marks nothing for rules that only watch for hangs or a start, nor for a metric rule without operator", () => {
    expect(
      markingRules([
        { name: "Start", logPattern: ".*started.*", expectedStartCutOffInSeconds: 5 },
        { name: "Half", logPattern: ".*x=(\\d+).*", metricThreshold: 3 },
        { name: "NoFault", logPattern: ".*boom.*", faultOnMatch: false },
      ]),
    ).toEqual([]);
  });
});
