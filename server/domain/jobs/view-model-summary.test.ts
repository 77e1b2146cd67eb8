import { describe, expect, it } from "vitest";
import type { LiveJob } from "@/server/domain/operator-api/contract";
import {
  jobSummaryParts,
  nextTryText,
  oneLine,
  ranksText,
  restartTotals,
  statusLabel,
} from "./view-model-summary";

const live = (over: Partial<LiveJob> = {}): LiveJob => ({
  namespace: "ns",
  name: "job",
  createdAt: 0,
  gpus: 1,
  priorityClass: null,
  queue: null,
  phase: "Starting",
  status: "BackOff",
  reason: "BackOff: Pod job-w-0 exited before the job ran",
  backOffUntil: 20_000,
  recovery: null,
  restartCount: 0,
  pods: [],
  ranksTotal: 2,
  ranksRunning: 0,
  ranksHealthy: 0,
  updatedAt: 1,
  ...over,
});

describe("oneLine", () => {
  it("puts a multi-line reason on one line", () => {
    const reason =
      "StartFailure: The agent of pod w-0 exited with code 2; last lines of its output:\nerror: bad\n  flag";
    expect(oneLine(reason)).toBe(
      "StartFailure: The agent of pod w-0 exited with code 2; last lines of its output: error: bad flag",
    );
  });

  it("says a doubled reason once and cuts a long one with …", () => {
    expect(oneLine("CrashLoop: CrashLoop: 5 restarts in a row")).toBe("CrashLoop: 5 restarts in a row");
    const cut = oneLine("x".repeat(200), 40);
    expect(cut).toHaveLength(40);
    expect(cut.endsWith("…")).toBe(true);
  });
});

describe("nextTryText", () => {
  it("says the seconds to the next try, rounded up, and now once due", () => {
    expect(nextTryText(20_000, 8_200)).toBe("next try in 12 s");
    expect(nextTryText(20_000, 20_000)).toBe("next try now");
    expect(nextTryText(300_000, 0)).toBe("next try in 5 min");
  });
});

describe("restartTotals", () => {
  it("counts each failure a folded row stands for, per type; FAIL restarts nothing", () => {
    expect(
      restartTotals([
        { action: "POD_REPLACEMENT", count: 5 },
        { action: "PLR" },
        { action: "FAIL", count: 1 },
        { action: "JLR", count: 2 },
      ]),
    ).toEqual({ plr: 1, podReplacement: 5, jlr: 2 });
  });
});

describe("jobSummaryParts and statusLabel", () => {
  it("gives the list and the page the same status, reason, back-off and ranks", () => {
    expect(jobSummaryParts(live())).toEqual({
      status: "BackOff",
      phase: "Starting",
      reason: "BackOff: Pod job-w-0 exited before the job ran",
      backOffUntil: 20_000,
      ranksHealthy: 0,
      ranksTotal: 2,
    });
  });

  it("reads Pending while waiting for admission, the operator's status beside it", () => {
    expect(statusLabel({ phase: "Pending", status: "Created" })).toEqual({
      label: "Pending",
      detail: "Created",
    });
    expect(statusLabel({ phase: "Running", status: "BackOff" })).toEqual({ label: "BackOff", detail: null });
  });
});

describe("ranksText", () => {
  it("reads healthy of total while the job lives, finished once it ended", () => {
    expect(ranksText({ phase: "Running", ranksHealthy: 3, ranksTotal: 4 })).toBe("3/4");
    expect(ranksText({ phase: "Failed", ranksHealthy: 0, ranksTotal: 4 })).toBe("4 finished");
  });
});
