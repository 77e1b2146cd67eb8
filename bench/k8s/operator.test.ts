import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { type OperatorExit, type OperatorProcess, parseCounters, whileOperatorRuns } from "./operator";

const METRICS = `# HELP rebound_operator_reconcile_duration_seconds Duration of one reconcile of one job.
rebound_operator_reconcile_duration_seconds_sum 1.5
rebound_operator_reconcile_duration_seconds_count 30
rebound_operator_agent_poll_errors_total{cause="timeout"} 2
rebound_operator_agent_poll_errors_total{cause="unreachable"} 3
rebound_operator_agent_polls_total 1200
rebound_operator_agent_push_lines_total 40
rebound_operator_agent_heartbeats_total 9000
rebound_operator_agent_silences_total 1
rebound_operator_restart_stage_seconds_sum{restart_type="POD_REPLACEMENT",stage="replacing"} 0.5
rebound_operator_restart_stage_seconds_count{restart_type="POD_REPLACEMENT",stage="replacing"} 2
rebound_operator_restart_stage_seconds_sum{restart_type="PLR",stage="stopping"} 0.25
rebound_operator_restart_stage_seconds_count{restart_type="PLR",stage="stopping"} 1
rebound_operator_restart_stage_seconds_sum{restart_type="POD_REPLACEMENT",stage="stopping"} 3
rebound_operator_restart_stage_seconds_count{restart_type="POD_REPLACEMENT",stage="stopping"} 2
rebound_operator_restart_stage_seconds_bucket{restart_type="PLR",stage="starting",le="1"} 7
`;

describe("the operator's counters", () => {
  it("sums each family's series", () => {
    expect(parseCounters(METRICS)).toEqual({
      reconciles: 30,
      reconcileSeconds: 1.5,
      errors: 0,
      pollErrors: 5,
      polls: 1200,
      pushLines: 40,
      heartbeats: 9000,
      silences: 1,
      // Every restart type together; a bucket line is not a sum or a count.
      stages: {
        replacing: { seconds: 0.5, count: 2 },
        stopping: { seconds: 3.25, count: 3 },
        starting: { seconds: 0, count: 0 },
      },
    });
  });

  it("says NaN for the agent traffic of an operator that does not export it, not 0", () => {
    const counters = parseCounters("rebound_operator_reconcile_duration_seconds_count 3\n");
    expect(counters.reconciles).toBe(3);
    expect(Number.isNaN(counters.pushLines)).toBe(true);
    expect(Number.isNaN(counters.polls)).toBe(true);
  });
});

/** A real process standing in for the operator: it exits with `code` after `afterMs`. */
function processExiting(code: number, afterMs: number) {
  const child = spawn(process.execPath, ["-e", `setTimeout(() => process.exit(${code}), ${afterMs})`]);
  let stopping = false;
  const exited = new Promise<OperatorExit>((resolve) =>
    child.once("close", (exitCode, signal) => resolve({ code: exitCode, signal, at: Date.now() })),
  );
  const operator = {
    exited,
    stopping: () => stopping,
  } as unknown as OperatorProcess;
  return {
    operator,
    stop() {
      stopping = true;
      child.kill("SIGTERM");
    },
  };
}

const never = new Promise<never>(() => undefined);

describe("a run while the operator runs", () => {
  it("fails at once, with the exit code, when the operator exits before the work is done", async () => {
    const { operator } = processExiting(7, 50);
    const began = Date.now();
    await expect(whileOperatorRuns(operator, never)).rejects.toThrow(
      "the operator exited (exit code 7) during the run",
    );
    expect(Date.now() - began).toBeLessThan(5000);
  });

  it("gives the work's result when the operator outlives it, and a later exit is no failure", async () => {
    const { operator, stop } = processExiting(0, 60_000);
    await expect(whileOperatorRuns(operator, Promise.resolve("measured"))).resolves.toBe("measured");
    stop();
    await operator.exited;
  });

  it("does not call the bench's own stop a crash", async () => {
    const { operator, stop } = processExiting(0, 60_000);
    const work = new Promise((resolve) => setTimeout(() => resolve("done"), 300));
    stop();
    await expect(whileOperatorRuns(operator, work)).resolves.toBe("done");
  });
});
