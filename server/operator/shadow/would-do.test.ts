import { describe, expect, it } from "vitest";
import { verdictMessage, wouldDo } from "./would-do";

const cluster = { healthyNodes: ["node-0", "node-1"], spareNodes: [], freeNodes: ["node-1"] };
const fault = {
  pod: "job-workers-0",
  node: "node-0",
  rank: 3,
  state: "HANGING" as const,
  rules: [{ rule: "hang", line: null }],
  at: Date.parse("2026-11-24T12:01:05Z"),
};

describe("what the restart policy would have done", () => {
  it("restarts the rank in place first, with HyperPod's reason", () => {
    const would = wouldDo({
      fault,
      runPolicy: { restartPolicy: { evalPeriodSeconds: 3600, numRestartBeforeFullJobRestart: 3 } },
      status: {},
      history: [],
      cluster,
    });
    expect(would).toEqual({ action: "restarted rank 3 in place", reason: "LogHang_hang" });
    expect(verdictMessage({ action: would.action, rule: "hang", state: "HANGING", at: fault.at })).toBe(
      "would have restarted rank 3 in place: rule hang HANGING at 12:01:05Z",
    );
  });

  it("over the job's history: the retry budget spent, it would have failed the job", () => {
    const history = Array.from({ length: 2 }, (_, n) => ({
      at: fault.at - 1000 * (n + 1),
      type: "PLR" as const,
      nodes: [],
      pods: ["job-workers-0"],
    }));
    const would = wouldDo({
      fault,
      runPolicy: { jobMaxRetryCount: 2, restartPolicy: { evalPeriodSeconds: 3600 } },
      status: { restartCount: 2 },
      history,
      cluster,
    });
    expect(would.action).toMatch(/^failed the job \(/);
  });
});
