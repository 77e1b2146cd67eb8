import { readFile } from "node:fs/promises";
import path from "node:path";

/**
 * What `npm test` reads from its runners' JSON reports: the counts for the summary, and each failed test
 * as `file › title: first line of its error`, printed under the summary so that the tail of a CI log
 * (often all that is kept of it) names what failed.
 */
export type Counts = { passed: number; failed: number; skipped: number; failures: string[] };

/** An error message's first non-empty line, without ANSI colours, at most 200 characters. */
export function firstLine(message: string | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escapes are what is removed
  const plain = (message ?? "").replace(/\u001b\[[0-9;]*m/g, "");
  const line = plain.split("\n").find((part) => part.trim() !== "") ?? "";
  return line.trim().slice(0, 200);
}

export type VitestReport = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: {
    name: string;
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
};

/**
 * Failed tests, and files that failed without a failed test (an error at import or in a hook). Such a file
 * counts as one failure: its tests were skipped, not passed, and vitest has been seen to exit 0 after a
 * `beforeAll` that timed out (3 tests skipped, the run green).
 */
export function vitestCounts(report: VitestReport, root: string): Counts {
  let fileErrors = 0;
  const failures = report.testResults.flatMap((file) => {
    const name = path.relative(root, file.name);
    const failed = file.assertionResults.filter((test) => test.status === "failed");
    if (failed.length === 0) {
      if (!file.message) return [];
      fileErrors += 1;
      return [`${name}: ${firstLine(file.message)}`];
    }
    return failed.map((test) => `${name} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
  });
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + fileErrors,
    skipped: report.numPendingTests + report.numTodoTests,
    failures,
  };
}

type PlaywrightResult = { error?: { message?: string }; errors?: { message?: string }[] };
export type PlaywrightSuite = {
  title: string;
  file?: string;
  specs?: { title: string; tests: { status: string; results: PlaywrightResult[] }[] }[];
  suites?: PlaywrightSuite[];
};
export type PlaywrightReport = {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  suites?: PlaywrightSuite[];
};

const lastError = (results: readonly PlaywrightResult[]) => {
  const last = results.at(-1);
  return last?.error?.message ?? last?.errors?.[0]?.message;
};

/** Tests whose outcome was "unexpected" (failed in every try), with their last try's error. */
function playwrightFailures(suites: readonly PlaywrightSuite[]): string[] {
  return suites.flatMap((suite) => [
    ...(suite.specs ?? []).flatMap((spec) =>
      spec.tests
        .filter((test) => test.status === "unexpected")
        .map((test) => `${suite.file ?? suite.title} › ${spec.title}: ${firstLine(lastError(test.results))}`),
    ),
    ...playwrightFailures(suite.suites ?? []),
  ]);
}

export function playwrightCounts(report: PlaywrightReport): Counts {
  return {
    passed: report.stats.expected + report.stats.flaky,
    failed: report.stats.unexpected,
    skipped: report.stats.skipped,
    failures: playwrightFailures(report.suites ?? []),
  };
}

export const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(file, "utf8")) as T;
