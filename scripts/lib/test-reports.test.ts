import { describe, expect, it } from "vitest";
import { firstLine, playwrightCounts, vitestCounts } from "./test-reports";

describe("vitestCounts", () => {
  const report = {
    numPassedTests: 2,
    numFailedTests: 1,
    numPendingTests: 0,
    numTodoTests: 0,
    testResults: [
      {
        name: "/repo/server/a.integration-test.ts",
        assertionResults: [
          { fullName: "a passes", status: "passed", failureMessages: [] },
          {
            fullName: "a recovers the job",
            status: "failed",
            failureMessages: [
              "\n\u001b[31mAssertionError: expected 'Running' to be 'Failed'\u001b[39m\n    at x.ts:1",
            ],
          },
        ],
      },
      {
        name: "/repo/server/b.integration-test.ts",
        message: "Error: hook timed out in 120000ms\nstack",
        assertionResults: [],
      },
      { name: "/repo/server/c.integration-test.ts", assertionResults: [{ fullName: "c", status: "passed" }] },
    ],
  };

  it("names each failed test and each file that failed without one, with its error's first line", () => {
    // b's hook failed: its tests never ran, and it counts as a failure beside a's failed test.
    expect(vitestCounts(report, "/repo")).toEqual({
      passed: 2,
      failed: 2,
      skipped: 0,
      failures: [
        "server/a.integration-test.ts › a recovers the job: AssertionError: expected 'Running' to be 'Failed'",
        "server/b.integration-test.ts: Error: hook timed out in 120000ms",
      ],
    });
  });
});

describe("playwrightCounts", () => {
  it("names the tests that failed in every try, from nested suites, with the last try's error", () => {
    const failing = {
      status: "unexpected",
      results: [
        { error: { message: "first try" } },
        { errors: [{ message: "Timed out 5000ms waiting for x" }] },
      ],
    };
    const report = {
      stats: { expected: 3, unexpected: 1, flaky: 1, skipped: 0 },
      suites: [
        {
          title: "tv.ui.spec.ts",
          file: "tv.ui.spec.ts",
          specs: [{ title: "a playlist", tests: [{ status: "flaky", results: [{}] }] }],
          suites: [{ title: "nested", specs: [{ title: "revoking", tests: [failing] }] }],
        },
      ],
    };
    expect(playwrightCounts(report)).toEqual({
      passed: 4,
      failed: 1,
      skipped: 0,
      failures: ["nested › revoking: Timed out 5000ms waiting for x"],
    });
  });
});

describe("firstLine", () => {
  it("keeps the first non-empty line, at most 200 characters", () => {
    expect(firstLine(undefined)).toBe("");
    expect(firstLine(`\n  ${"x".repeat(300)}\nmore`)).toBe("x".repeat(200));
  });
});
