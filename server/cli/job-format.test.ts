import { describe, expect, it } from "vitest";
import { jobDetailText, jobsTable } from "./job-format";

const job = {
  namespace: "ns",
  name: "crashy",
  phase: "Recovering" as const,
  status: "BackOff",
  ranksRunning: 0,
  ranksTotal: 1,
  restartCount: 2,
  reason:
    "WorkerCrash: The agent of pod crashy-w-0 exited with code 2; last lines of its output:\nline one\nline two",
  backOffUntil: 30_000,
};

describe("rebound jobs", () => {
  it("shows a back-off as its own status with the time to the next try, and the reason on one line", () => {
    const lines = jobsTable(
      [job, { ...job, name: "ok", status: "Running", reason: null, backOffUntil: null }],
      18_000,
    ).split("\n");
    expect(lines).toHaveLength(3);
    const cells = lines[1]?.split("\t") ?? [];
    expect(cells[2]).toBe("BackOff (next try in 12 s)");
    expect(cells[5]).toBe(
      "WorkerCrash: The agent of pod crashy-w-0 exited with code 2; last lines of its output: line one line two",
    );
    expect(lines[2]?.split("\t")[2]).toBe("Running");
  });
});

describe("rebound job", () => {
  it("prints the reason whole, its lines kept", () => {
    const text = jobDetailText(job, 18_000);
    expect(text).toContain("Status:    BackOff (next try in 12 s)");
    expect(text).toContain("\n  line one\n  line two");
  });
});
