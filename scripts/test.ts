/**
 * `npm test`: set-up → typecheck → lint → unit → integration (real PostgreSQL) → kubernetes (the real
 * kube-apiserver test cluster, built with Go) → e2e (Chromium against the built console). The set-up finds
 * or installs what the tests need outside node_modules (scripts/lib/test-prerequisites.ts; a Go toolchain
 * it fetches is put first on this process's PATH, which every step inherits) and stops before any step
 * when it cannot; `npm run test:setup` (`--setup`) does only that. Every step runs even after a
 * failure so one run shows everything; it prints one summary line per runner, a closing
 * `N passed, N failed` line over all tests, then each failed test with its error's first line
 * (scripts/lib/test-reports.ts), and exits non-zero on any failure.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { generatePrismaClient } from "./lib/prisma-generate";
import { ensurePrerequisites } from "./lib/test-prerequisites";
import { localHost } from "./lib/test-prerequisites-host";
import {
  type Counts,
  type PlaywrightReport,
  playwrightCounts,
  readJson,
  type VitestReport,
  vitestCounts,
} from "./lib/test-reports";

const ROOT = path.resolve(import.meta.dirname, "..");
const RESULTS = path.join(ROOT, "test-results");
const bin = (name: string) => path.join(ROOT, "node_modules/.bin", name);

type Step = { name: string; command: string; args: string[]; counts?: () => Promise<Counts> };
type Outcome = { name: string; ok: boolean; seconds: number; counts?: Counts };

const vitest = (project: string): Step => {
  const out = path.join(RESULTS, `${project}.json`);
  return {
    name: project,
    command: bin("vitest"),
    args: ["run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${out}`],
    counts: async () => vitestCounts(await readJson<VitestReport>(out), ROOT),
  };
};

const steps: Step[] = [
  { name: "typecheck", command: bin("tsc"), args: ["--noEmit"] },
  { name: "lint", command: bin("biome"), args: ["check", "--error-on-warnings", "."] },
  vitest("unit"),
  vitest("integration"),
  vitest("kubernetes"),
  {
    name: "e2e",
    command: bin("playwright"),
    args: ["test"],
    counts: async () =>
      playwrightCounts(await readJson<PlaywrightReport>(path.join(RESULTS, "e2e-report.json"))),
  },
];

function runStep(step: Step): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, { stdio: "inherit", cwd: ROOT });
    child.on("error", () => resolve(false));
    child.on("exit", (code) => resolve(code === 0));
  });
}

async function execute(step: Step): Promise<Outcome> {
  console.log(`\n━━ ${step.name}: ${path.basename(step.command)} ${step.args.join(" ")}`);
  const started = Date.now();
  const ok = await runStep(step);
  const seconds = (Date.now() - started) / 1000;
  const counts = step.counts ? await step.counts().catch(() => undefined) : undefined;
  // A runner that reports no tests has not tested anything: treat it as a failure. A failed test fails the
  // step even when the runner exits 0 (seen once with vitest after a failing integration file).
  const empty = step.counts !== undefined && (counts === undefined || counts.passed + counts.failed === 0);
  const failedTests = (counts?.failed ?? 0) > 0;
  return { name: step.name, ok: ok && !empty && !failedTests, seconds, counts };
}

function summaryLine(outcome: Outcome): string {
  const counts = outcome.counts
    ? ` (${outcome.counts.passed} passed, ${outcome.counts.failed} failed, ${outcome.counts.skipped} skipped)`
    : "";
  return `${outcome.name.padEnd(12)} ${outcome.ok ? "PASS" : "FAIL"}${counts} in ${outcome.seconds.toFixed(1)} s`;
}

/**
 * A step's failures for the closing line: its failed tests, or 1 for a step that failed without a failed
 * test (tsc, Biome, a runner that found no tests or whose global set-up failed, e.g. the Go build).
 */
function failedCount(outcome: Outcome): number {
  const failedTests = outcome.counts?.failed ?? 0;
  return outcome.ok || failedTests > 0 ? failedTests : 1;
}

/** Finds or installs the machine's prerequisites; false (after saying what to run) when it cannot. */
async function setUp(): Promise<boolean> {
  const started = Date.now();
  const stop = await ensurePrerequisites({ host: localHost(), log: (line) => console.log(line) });
  for (const line of stop) console.error(line);
  if (stop.length === 0)
    console.log(`test prerequisites ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return stop.length === 0;
}

async function main() {
  if (!(await setUp())) process.exit(1);
  if (process.argv.includes("--setup")) process.exit(0);
  await mkdir(RESULTS, { recursive: true });
  await generatePrismaClient();
  const outcomes: Outcome[] = [];
  for (const step of steps) outcomes.push(await execute(step));

  console.log("\n━━ summary");
  for (const outcome of outcomes) console.log(summaryLine(outcome));
  const total = outcomes.reduce(
    (sum, outcome) => ({
      passed: sum.passed + (outcome.counts?.passed ?? 0),
      failed: sum.failed + failedCount(outcome),
    }),
    { passed: 0, failed: 0 },
  );
  console.log(`${total.passed} passed, ${total.failed} failed`);
  const failures = outcomes.flatMap((outcome) =>
    (outcome.counts?.failures ?? []).map((failure) => `  ${outcome.name}: ${failure}`),
  );
  if (failures.length > 0) console.log(`failed tests:\n${failures.join("\n")}`);
  process.exit(outcomes.every((outcome) => outcome.ok) ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(`npm test: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
