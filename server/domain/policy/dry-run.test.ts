import { describe, expect, it } from "vitest";
import { runPolicySchema } from "@/server/domain/job-spec/run-policy.schema";
import { diffPolicyYaml } from "./diff";
import { dryRun, MAX_DRY_RUN_LINES } from "./dry-run";
import { explainPolicy } from "./explain";
import { lineTimestamp, lineTimestamps } from "./timestamps";

/** The dry-run: the real evaluator on a simulated clock, and the restart policy's next step. */

const policy = (input: unknown) => runPolicySchema.parse(input);
const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);

describe("dryRun", () => {
  it("spaces untimed lines by the interval and finds a hang after the output stops", () => {
    const runPolicy = policy({
      logMonitoringConfiguration: [
        { name: "hang", logPattern: ".*step.*", expectedRecurringFrequencyInSeconds: 30 },
      ],
    });
    const result = dryRun({ runPolicy, logText: "step 1\nstep 2\nstep 3\n", intervalMs: 5000, startAt: T0 });
    expect(result.rules[0]?.matches.map((m) => m.at)).toEqual([T0, T0 + 5000, T0 + 10_000]);
    expect(result.outputEndedAt).toBe(T0 + 10_000);
    // HANGING once more than 30 s have passed since the last match, at the next one-second tick.
    expect(result.fault).toMatchObject({ rule: "hang", state: "HANGING", lineNumber: null, at: T0 + 41_000 });
    expect(result.notes.join(" ")).toMatch(/no line had a timestamp: lines were spaced 5 s apart/);
    expect(result.notes.join(" ")).toMatch(/output ended 31 s before hang fired/);
  });

  it("reads the metric, counts data points in a row, and says what the restart policy does next", () => {
    const runPolicy = policy({
      restartPolicy: { evalPeriodSeconds: 3600, numRestartBeforeFullJobRestart: 2, maxFullJobRestarts: 1 },
      logMonitoringConfiguration: [
        {
          name: "slow",
          logPattern: ".*tps: ([0-9.]+).*",
          metricThreshold: 100,
          operator: "lt",
          metricEvaluationDataPoints: 2,
        },
      ],
    });
    const text = ["tps: 150", "tps: 90", "tps: 120", "tps: 80", "tps: 70"].join("\n");
    const fresh = dryRun({ runPolicy, logText: text, startAt: T0 });
    expect(fresh.rules[0]?.matches.map((m) => m.value)).toEqual([150, 90, 120, 80, 70]);
    expect(fresh.fault).toMatchObject({ state: "SLOW", lineNumber: 5, reason: "LogSlow_slow" });
    expect(fresh.nextAction?.action).toBe("in-place restart");
    const twice = [
      { at: T0 - 60_000, type: "PLR" as const },
      { at: T0 - 30_000, type: "PLR" as const },
    ];
    expect(dryRun({ runPolicy, logText: text, startAt: T0, history: twice }).nextAction?.action).toBe(
      "full job restart",
    );
    const spent = [
      ...twice,
      { at: T0 - 20_000, type: "JLR" as const },
      { at: T0 - 10_000, type: "PLR" as const },
      { at: T0 - 5000, type: "PLR" as const },
    ];
    expect(dryRun({ runPolicy, logText: text, startAt: T0, history: spent }).nextAction).toMatchObject({
      action: "fail",
      reason: expect.stringMatching(/maxFullJobRestarts/),
    });
  });

  it("stops a rule at its stopPattern and faults on a match at once", () => {
    const runPolicy = policy({
      logMonitoringConfiguration: [
        {
          name: "hang",
          logPattern: ".*step.*",
          expectedRecurringFrequencyInSeconds: 5,
          stopPattern: ".*done.*",
        },
        { name: "oom", logPattern: ".*out of memory.*", faultOnMatch: true },
      ],
    });
    const quiet = dryRun({ runPolicy, logText: "step 1\ndone\n", startAt: T0 });
    expect(quiet.fault).toBeNull();
    expect(quiet.rules[0]?.finalState).toBe("HEALTHY");
    const oom = dryRun({ runPolicy, logText: "step 1\nCUDA out of memory\nstep 2\n", startAt: T0 });
    expect(oom.fault).toMatchObject({ rule: "oom", state: "FAULTED", lineNumber: 2, reason: "LogFault_oom" });
  });

  it("runs a catastrophic-backtracking pattern on a 100,000-character line in linear time", () => {
    const runPolicy = policy({
      logMonitoringConfiguration: [
        { name: "nested", logPattern: "(a+)+$", faultOnMatch: true },
        { name: "pairs", logPattern: "(x+x+)+y", faultOnMatch: true },
      ],
    });
    const line = `${"a".repeat(50_000)}${"x".repeat(49_999)}!`;
    const started = performance.now();
    const result = dryRun({ runPolicy, logText: line });
    const ms = performance.now() - started;
    console.log(`[policy bad input] catastrophic patterns on a 100,000-character line: ${ms.toFixed(1)} ms`);
    expect(result.lines).toBe(1);
    expect(result.fault).toBeNull();
  });

  it("bounds the input: at most MAX_DRY_RUN_LINES lines, at most 2 MB", () => {
    const runPolicy = policy({});
    const many = dryRun({ runPolicy, logText: "x\n".repeat(MAX_DRY_RUN_LINES + 5) });
    expect(many.lines).toBe(MAX_DRY_RUN_LINES);
    expect(many.notes.join(" ")).toMatch(/only the first 20000 of 20005 lines/);
    expect(() => dryRun({ runPolicy, logText: "y".repeat(3 * 1024 * 1024) })).toThrow(
      /3\.0 MB; a dry-run takes at most 2 MB/,
    );
  });
});

describe("lineTimestamp", () => {
  it.each([
    ["2026-03-01T12:00:01.500Z step", T0 + 1500],
    ["[2026-03-01 12:00:01,250] INFO step", T0 + 1250],
    ["2026-03-01 13:00:01+01:00 step", T0 + 1000],
    ["1772366401.5 step", Date.UTC(2026, 2, 1, 12, 0, 1, 500)],
    ["step 1 at 12:00", null],
    ["[titan] 2026-03-01 12:00:01,250 - root - INFO - step: 1", T0 + 1250],
    ["[rank0]:[titan] 2026-03-01 12:00:01,250 - root - INFO - step: 1", T0 + 1250],
    ["[INFO] 2026-03-01 12:00:02 step", T0 + 2000],
    ["E0301 12:00:01.583000 1234 torch/distributed/elastic/agent/server/api.py:123] failed", T0 + 1583],
    ["[rank0]:[E0301 12:00:01.123456789 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog", T0 + 1123.456789],
    // torch's c10 logger prints the month unpadded: three digits are M DD, four are MM DD.
    ["[rank0]:[E301 12:00:01.123456789 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog", T0 + 1123.456789],
    [
      "[E108 17:22:04.118509503 ProcessGroupGloo.cpp:143] Gloo connectFullMesh failed",
      Date.UTC(2026, 0, 8, 17, 22, 4) + 118.509503,
    ],
    [
      "[rank0]:[E1123 00:52:57.665427695 ProcessGroupNCCL.cpp:1664] [PG 0 Rank 0]",
      Date.UTC(2026, 10, 23, 0, 52, 57) + 665.427695,
    ],
    [
      "[rank0]:[E1012 00:52:57.5 ProcessGroupNCCL.cpp:1664] [PG 0 Rank 0]",
      Date.UTC(2026, 9, 12, 0, 52, 57, 500),
    ],
    ["[default0]:[rank12]:[E301 12:00:02.000000000 ProcessGroupNCCL.cpp:1515] [PG 0 Rank 12]", T0 + 2000],
    ["(WorkerDict pid=7591) [rank0]:[E301 12:00:02.5 ProcessGroupNCCL.cpp:2068] [PG ID 0 Rank 0]", T0 + 2500],
    ["[80748] [rank0]:[E301 12:00:03.000000000 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0]", T0 + 3000],
    ["[rank0]:[E1301 12:00:01.123456789 ProcessGroupNCCL.cpp:616] no month 13", null],
    ["[rank0]:[E132 12:00:01.123456789 ProcessGroupNCCL.cpp:616] no day 32", null],
    ["[rank0]:[E10 12:00:01.123456789 ProcessGroupNCCL.cpp:616] no day", null],
    ["[Sun Mar  1 12:00:04 2026] NVRM: Xid (PCI:0000:a1:00): 79, GPU has fallen off the bus.", T0 + 4000],
    ["03/01/2026 12:00:05 - INFO - __main__ - Saved state to checkpoint-500", T0 + 5000],
    ["2026/03/01 12:00:06 - mmengine - INFO - Epoch(train) [148][100/351]", T0 + 6000],
    ["[INFO 2026-03-01 12:00:07] 0/2700, SamplesPerSec=13.19", T0 + 7000],
    ["[INFO|2026-03-01 12:00:08] llamafactory.train.callbacks:157 >> {'loss': 0.1}", T0 + 8000],
    ["[NeMo I 2026-03-01 12:00:09 nemo_logging:393] Scheduled async checkpoint save", T0 + 9000],
    ["(pid=3769) 2026-03-01 12:00:10,500    WARNING torch_trainer.py:413 -- gloo", T0 + 10_500],
    ["Mar  1 12:00:03 node-1 kernel: NVRM: Xid (PCI:0000:3b:00): 79,", T0 + 3000],
  ])("%s", (line, at) => {
    const read = lineTimestamp(line, 2026);
    if (at === null) expect(read).toBeNull();
    else expect(read).toBeCloseTo(at, 3);
  });

  it("carries the year of the lines around a yearless one, and over New Year", () => {
    const lines = [
      "2025-12-31 23:59:58,000 - INFO - step 1",
      "Dec 31 23:59:59 node-1 kernel: NVRM: Xid 79",
      "Jan  1 00:00:01 node-1 kernel: NVRM: Xid 79",
      "E0101 00:00:02.000000 1 api.py:1] failed",
    ];
    expect(lineTimestamps(lines, 2020)).toEqual([
      Date.UTC(2025, 11, 31, 23, 59, 58),
      Date.UTC(2025, 11, 31, 23, 59, 59),
      Date.UTC(2026, 0, 1, 0, 0, 1),
      Date.UTC(2026, 0, 1, 0, 0, 2),
    ]);
  });
});

describe("dryRun on a live rank's output", () => {
  const runPolicy = policy({
    logMonitoringConfiguration: [
      { name: "JobStart", logPattern: ".*training started.*", expectedStartCutOffInSeconds: 60 },
      { name: "JobHang", logPattern: ".*step=.*", expectedRecurringFrequencyInSeconds: 10 },
    ],
  });

  it("times lines by their arrival, counts the start cut-off from the rules' start, and plays no window past the read", () => {
    const text = "training started\nstep=1\nstep=2\nstep=3";
    const arrivals = [T0 + 2000, T0 + 2200, T0 + 2400, T0 + 2600];
    const result = dryRun({ runPolicy, logText: text, arrivals, rulesStartedAt: T0, endAt: T0 + 5000 });
    expect(result.fault).toBeNull();
    expect(result.rules[1]?.matches.map((m) => m.at)).toEqual([T0 + 2200, T0 + 2400, T0 + 2600]);
    expect(result.end).toBe(T0 + 5000);
    // JobStart matched: no window left; JobHang fires 10 s after the last step (at the next tick) if none comes.
    expect(result.deadlines).toEqual([{ rule: "JobHang", state: "HANGING", at: T0 + 2600 + 11_000 }]);
    expect(result.notes.join(" ")).not.toMatch(/spaced/);
  });

  it("finds a hang that already happened before the read, from arrival times", () => {
    const arrivals = [T0 + 1000, T0 + 2000];
    const result = dryRun({
      runPolicy,
      logText: "training started\nstep=1",
      arrivals,
      rulesStartedAt: T0,
      endAt: T0 + 20_000,
    });
    expect(result.fault).toMatchObject({ rule: "JobHang", state: "HANGING", at: T0 + 13_000 });
    expect(result.deadlines).toEqual([]);
  });

  it("counts the start cut-off from the rules' start, not the first line", () => {
    const result = dryRun({
      runPolicy,
      logText: "loading\ntraining started",
      arrivals: [T0 + 30_000, T0 + 70_000],
      rulesStartedAt: T0,
      endAt: T0 + 71_000,
    });
    expect(result.fault).toMatchObject({ rule: "JobStart", state: "HANGING", at: T0 + 61_000 });
  });
});

describe("explainPolicy and diffPolicyYaml", () => {
  it("says each rule in words", () => {
    const runPolicy = policy({
      restartPolicy: { evalPeriodSeconds: 600, numRestartBeforeFullJobRestart: 2 },
      logMonitoringConfiguration: [
        { name: "hang", logPattern: ".*step.*", expectedRecurringFrequencyInSeconds: 30 },
        {
          name: "slow",
          logPattern: ".*tps: ([0-9]+).*",
          metricThreshold: 100,
          operator: "lt",
          metricEvaluationDataPoints: 3,
        },
      ],
    });
    const explained = explainPolicy(runPolicy);
    expect(explained.rules[0]?.text).toBe(
      "Faults the job (hang) when no line matches `.*step.*` for 30 s after the last match.",
    );
    expect(explained.rules[1]?.text).toMatch(/below 100 on 3 matching lines in a row/);
    expect(explained.restart[0]).toMatch(
      /Within a 600 s window, the first 2 fault\(s\) restart processes in place/,
    );
  });

  it("diffs two versions line by line, numbered on both sides", () => {
    const lines = diffPolicyYaml("a: 1\nb: 2\nc: 3\n", "a: 1\nb: 20\nc: 3\nd: 4\n");
    expect(lines).toEqual([
      { kind: "same", text: "a: 1", fromLine: 1, toLine: 1 },
      { kind: "removed", text: "b: 2", fromLine: 2, toLine: null },
      { kind: "added", text: "b: 20", fromLine: null, toLine: 2 },
      { kind: "same", text: "c: 3", fromLine: 3, toLine: 3 },
      { kind: "added", text: "d: 4", fromLine: null, toLine: 4 },
    ]);
  });
});
