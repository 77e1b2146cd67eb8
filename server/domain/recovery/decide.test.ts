import { describe, expect, it } from "vitest";
import { decideRecovery } from "./decide";
import { actions, at, cluster, crash, HOUR, restart, SECOND, simulate } from "./test-helpers";
import type { RunPolicyInput } from "./types";

// AWS's example policy: 3 standard restarts before a full job restart, at most 1 full job restart.
const AWS_EXAMPLE: RunPolicyInput = {
  jobMaxRetryCount: 50,
  restartPolicy: { evalPeriodSeconds: 3600, numRestartBeforeFullJobRestart: 3, maxFullJobRestarts: 1 },
};
const windowed = (n: number | undefined, max?: number): RunPolicyInput => ({
  restartPolicy: { evalPeriodSeconds: 3600, numRestartBeforeFullJobRestart: n, maxFullJobRestarts: max },
});
const range = (n: number, step = 1) => Array.from({ length: n }, (_, i) => i * step);

describe("decideRecovery escalation", () => {
  it.each([
    {
      name: "3 PLRs, JLR, 3 more PLRs after the JLR, then FAIL at maxFullJobRestarts",
      runPolicy: AWS_EXAMPLE,
      minutes: range(10),
      expected: "PLR PLR PLR JLR PLR PLR PLR FAIL(maxFullJobRestarts)",
    },
    {
      name: "restarts outside the window do not count",
      runPolicy: AWS_EXAMPLE,
      minutes: range(8, 70),
      expected: "PLR PLR PLR PLR PLR PLR PLR PLR",
    },
    {
      name: "the window slides: the oldest restart ages out, then the limit is reached",
      runPolicy: AWS_EXAMPLE,
      minutes: [0, 30, 50, 70, 75],
      expected: "PLR PLR PLR PLR JLR",
    },
    {
      name: "unset numRestartBeforeFullJobRestart never escalates",
      runPolicy: windowed(undefined, 1),
      minutes: range(12),
      expected: Array(12).fill("PLR").join(" "),
    },
    {
      name: "unset maxFullJobRestarts allows any number of JLRs (our choice)",
      runPolicy: windowed(2),
      minutes: range(9),
      expected: "PLR PLR JLR PLR PLR JLR PLR PLR JLR",
    },
    {
      name: "numRestartBeforeFullJobRestart 0 escalates every fault",
      runPolicy: windowed(0, 2),
      minutes: range(4),
      expected: "JLR JLR FAIL(maxFullJobRestarts)",
    },
    {
      name: "maxFullJobRestarts 0 fails at the limit",
      runPolicy: windowed(2, 0),
      minutes: range(4),
      expected: "PLR PLR FAIL(maxFullJobRestarts)",
    },
    {
      name: "jobMaxRetryCount caps PLRs and JLRs together",
      runPolicy: { ...AWS_EXAMPLE, jobMaxRetryCount: 5 },
      minutes: range(8),
      expected: "PLR PLR PLR JLR PLR FAIL(jobMaxRetryCount)",
    },
    {
      name: "jobMaxRetryCount caps restarts that no window would escalate",
      runPolicy: { ...AWS_EXAMPLE, jobMaxRetryCount: 4 },
      minutes: range(6, 120),
      expected: "PLR PLR PLR PLR FAIL(jobMaxRetryCount)",
    },
    {
      name: "jobMaxRetryCount alone, without a restartPolicy",
      runPolicy: { jobMaxRetryCount: 3 },
      minutes: range(5),
      expected: "PLR PLR PLR FAIL(jobMaxRetryCount)",
    },
    {
      name: "jobMaxRetryCount 0 fails the first fault",
      runPolicy: { jobMaxRetryCount: 0 },
      minutes: [0],
      expected: "FAIL(jobMaxRetryCount)",
    },
  ])("$name", ({ runPolicy, minutes, expected }) => {
    expect(actions(simulate({ runPolicy, minutes }))).toBe(expected);
  });
});

describe("decideRecovery window boundary", () => {
  const now = at(600);
  const decideWith = (oldest: number) =>
    decideRecovery({
      runPolicy: AWS_EXAMPLE,
      history: [restart(oldest, "PLR"), restart(now - 10 * SECOND, "PLR"), restart(now - SECOND, "PLR")],
      fault: crash(now),
      now,
      cluster: cluster(),
    });

  it("does not count a restart exactly evalPeriodSeconds old", () => {
    expect(decideWith(now - HOUR).action).toBe("PLR");
  });

  it("counts a restart one millisecond younger than evalPeriodSeconds", () => {
    expect(decideWith(now - HOUR + 1).action).toBe("JLR");
  });
});

describe("decideRecovery status writes", () => {
  it("resets the window count on JLR and counts restarts since it", () => {
    const decisions = simulate({ runPolicy: AWS_EXAMPLE, minutes: [0, 1, 2, 3, 4, 5] });
    const jlr = decisions[3];
    const last = decisions[5];
    expect(jlr?.restartStatus).toEqual({
      currentEvalPeriod: Math.floor(at(3) / 1000),
      fullJobRestartCount: 1,
      restartCount: 0,
    });
    expect(jlr?.latestFaultyPodInstanceList?.restartType).toBe("JLR");
    expect(jlr?.restartCount).toBe(4);
    expect(last?.restartStatus).toEqual({
      currentEvalPeriod: Math.floor(at(3) / 1000),
      fullJobRestartCount: 1,
      restartCount: 2,
    });
    expect(last?.restartCount).toBe(6);
  });

  it("writes the window start, the faulty pod list and the history record for a PLR", () => {
    const now = at(120);
    const decision = decideRecovery({
      runPolicy: AWS_EXAMPLE,
      status: { restartCount: 7 },
      history: [restart(at(100), "PLR", ["node-1"])],
      fault: crash(now),
      now,
      cluster: cluster(),
    });
    expect(decision).toEqual({
      action: "PLR",
      restartStatus: {
        currentEvalPeriod: Math.floor((now - HOUR) / 1000),
        fullJobRestartCount: 0,
        restartCount: 2,
      },
      latestFaultyPodInstanceList: {
        restartType: "PLR",
        faultyInstanceIdList: ["node-1"],
        faultyPodList: ["job-pod-1"],
        faultyRankList: ["1"],
      },
      restartCount: 8,
      record: { at: now, type: "PLR", nodes: ["node-1"], pods: ["job-pod-1"] },
    });
  });

  it("writes currentEvalPeriod 0 when there is no window and no JLR", () => {
    const decision = decideRecovery({ history: [], fault: crash(at(0)), now: at(0), cluster: cluster() });
    expect(decision.restartStatus.currentEvalPeriod).toBe(0);
  });
});

describe("decideRecovery FAIL", () => {
  it("names jobMaxRetryCount, trusting status.restartCount when the history was trimmed", () => {
    const decision = decideRecovery({
      runPolicy: AWS_EXAMPLE,
      status: { restartCount: 50 },
      history: [],
      fault: crash(at(0)),
      now: at(0),
      cluster: cluster(),
    });
    expect(decision).toMatchObject({
      action: "FAIL",
      limit: "jobMaxRetryCount",
      reason: "jobMaxRetryCount (50) exceeded: the job has restarted 50 times",
      latestFaultyPodInstanceList: null,
      record: null,
      restartCount: 50,
    });
  });

  it("names maxFullJobRestarts, trusting status.restartStatus.fullJobRestartCount", () => {
    const now = at(300);
    const decision = decideRecovery({
      runPolicy: AWS_EXAMPLE,
      status: {
        restartCount: 9,
        restartStatus: { currentEvalPeriod: 0, fullJobRestartCount: 1, restartCount: 3 },
      },
      history: [restart(at(290), "PLR"), restart(at(295), "PLR"), restart(at(299), "PLR")],
      fault: crash(now),
      now,
      cluster: cluster(),
    });
    expect(decision).toMatchObject({
      action: "FAIL",
      limit: "maxFullJobRestarts",
      reason:
        "maxFullJobRestarts (1) reached: 3 restarts within evalPeriodSeconds (3600) since the last full job restart",
      restartStatus: { fullJobRestartCount: 1, restartCount: 3 },
      restartCount: 9,
    });
  });
});
