import { describe, expect, it } from "vitest";
import { runOutcome } from "./run-outcome";

/** Issue 36 item 5: how a past run ended, for runs written now and rows written before. */
describe("a past run's outcome", () => {
  it("says how a run written by this operator ended", () => {
    expect(
      runOutcome({ phase: "Succeeded", reason: "All ranks finished after 2 restarts", restarts: 2 }),
    ).toEqual({ outcome: "Succeeded", summary: "Succeeded" });
    expect(
      runOutcome({
        phase: "Failed",
        reason: "CrashLoop: 5 restarts in a row\nwithout progress",
        restarts: 5,
      }),
    ).toEqual({ outcome: "Failed", summary: "Failed: CrashLoop: 5 restarts in a row without progress" });
    expect(
      runOutcome({ phase: "Deleted", reason: "Deleted while Running after 3 restarts", restarts: 3 }),
    ).toEqual({ outcome: "Deleted", summary: "Deleted while Running after 3 restarts" });
  });

  it("reads an older row, written at the deletion with the phase it was in and a stale reason", () => {
    const older = {
      phase: "Running",
      reason: "The fault of reason WorkerCrash was remediated in 212 milliseconds.",
      restarts: 1,
    };
    expect(runOutcome(older)).toEqual({
      outcome: "Deleted",
      summary: "Deleted while Running after 1 restart",
    });
    expect(runOutcome({ phase: null, reason: null, restarts: 0 })).toEqual({
      outcome: "Deleted",
      summary: "Deleted after 0 restarts",
    });
    expect(runOutcome({ phase: "Failed", reason: null, restarts: 0 }).summary).toBe("Failed");
  });
});
