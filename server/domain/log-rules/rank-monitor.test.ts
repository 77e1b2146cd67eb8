import { describe, expect, it } from "vitest";
import type { LogMonitoringRule } from "./log-rule.schema";
import { createRankLogMonitor, type RankLogMonitor } from "./rank-monitor";
import { fakeClock } from "./testing";

const RULES: LogMonitoringRule[] = [
  { name: "JobStart", logPattern: ".*Experiment configuration.*", expectedStartCutOffInSeconds: 120 },
  { name: "JobHang", logPattern: ".*Batch \\d+.*", expectedRecurringFrequencyInSeconds: 30 },
  { name: "Tput", logPattern: ".*samples/sec: (\\d+(?:\\.\\d+)?).*", metricThreshold: 10, operator: "lt" },
  { name: "OOM", logPattern: ".*out of memory.*", faultOnMatch: true },
];

function setup(rules: LogMonitoringRule[] = RULES): {
  clock: ReturnType<typeof fakeClock>;
  monitor: RankLogMonitor;
} {
  const clock = fakeClock();
  const result = createRankLogMonitor({ rules, now: clock.now });
  if (!result.ok) throw new Error(result.reason);
  return { clock, monitor: result.monitor };
}

describe("RankLogMonitor", () => {
  it("refuses a configuration with a pattern that does not compile", () => {
    const result = createRankLogMonitor({
      rules: [{ name: "Bad", logPattern: "a(?=b)" }],
      now: () => 0,
    });
    expect(result).toEqual({
      ok: false,
      reason:
        "rule Bad: logPattern: lookahead (?=...) is not supported: patterns run with a linear-time engine (RE2 syntax)",
    });
  });

  it("waits, turns HEALTHY, then reports a hang with the rule and its last line", () => {
    const { clock, monitor } = setup();
    expect(monitor.tick().state).toBe("WAITING");
    expect(monitor.onLine("Experiment configuration: x").state).toBe("HEALTHY");
    monitor.onLine("Batch 1 samples/sec: 50");
    clock.advance(31);
    expect(monitor.tick()).toEqual({
      state: "HANGING",
      rules: [{ rule: "JobHang", line: "Batch 1 samples/sec: 50" }],
    });
    expect(monitor.snapshot().fault?.reason).toBe("LogHang_JobHang");
    expect(monitor.onLine("Batch 2 samples/sec: 50").state).toBe("HEALTHY");
    expect(monitor.snapshot().fault).toBeNull();
  });

  it("reports SLOW from a metric rule", () => {
    const { monitor } = setup();
    monitor.onLine("Experiment configuration");
    expect(monitor.onLine("Batch 3 samples/sec: 2.5").state).toBe("SLOW");
    expect(monitor.snapshot().fault?.reason).toBe("LogSlow_Tput");
  });

  it("keeps the rule list captured when the state was entered", () => {
    const { clock, monitor } = setup();
    monitor.onLine("Batch 1 samples/sec: 50");
    clock.advance(121);
    expect(monitor.tick().rules.map((r) => r.rule)).toEqual(["JobStart", "JobHang"]);
    const { monitor: second, clock: secondClock } = setup();
    secondClock.advance(121);
    expect(second.tick().rules.map((r) => r.rule)).toEqual(["JobStart"]);
    second.onLine("Batch 1 samples/sec: 50");
    secondClock.advance(31);
    expect(second.tick().rules.map((r) => r.rule)).toEqual(["JobStart"]);
  });

  it("latches FAULTED until suspended", () => {
    const { monitor } = setup();
    monitor.onLine("Experiment configuration");
    expect(monitor.onLine("RuntimeError: CUDA out of memory").state).toBe("FAULTED");
    expect(monitor.snapshot().fault?.reason).toBe("LogFault_OOM");
    monitor.onLine("Batch 4 samples/sec: 80");
    expect(monitor.tick().state).toBe("FAULTED");
    monitor.suspend();
    expect(monitor.snapshot()).toMatchObject({ state: "WAITING", fault: null, suspended: true });
  });

  it("keeps reporting FAULTED even when the faulted rule itself recovers", () => {
    const { monitor } = setup([
      { name: "Err", logPattern: ".*NCCL error.*", faultOnMatch: true, stopPattern: ".*recovered.*" },
      { name: "Step", logPattern: "step" },
    ]);
    monitor.onLine("step 1");
    expect(monitor.onLine("NCCL error 3").state).toBe("FAULTED");
    monitor.onLine("recovered");
    expect(monitor.snapshot().evaluators.map((e) => e.state)).toEqual(["HEALTHY", "HEALTHY"]);
    expect(monitor.onLine("step 2")).toEqual({
      state: "FAULTED",
      rules: [{ rule: "Err", line: "NCCL error 3" }],
    });
    monitor.suspend();
    expect(monitor.snapshot()).toMatchObject({ state: "WAITING", fault: null, suspended: true });
  });

  it("excludes suspended time and ignores input while suspended", () => {
    const { clock, monitor } = setup();
    monitor.onLine("Experiment configuration");
    monitor.onLine("Batch 1 samples/sec: 50");
    monitor.suspend();
    clock.advance(600);
    expect(monitor.onLine("RuntimeError: out of memory").state).toBe("WAITING");
    monitor.resume();
    clock.advance(29);
    expect(monitor.tick().state).toBe("HEALTHY");
    clock.advance(2);
    expect(monitor.tick().state).toBe("HANGING");
    expect(monitor.snapshot().evaluators.map((e) => e.state)).toEqual([
      "HEALTHY",
      "HANGING",
      "HEALTHY",
      "WAITING",
    ]);
  });
});
