import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { rankLogFile, rankLogFileInput } from "./rank-log-file";

/**
 * The rank panel's "Download log" (issue 36 item 1) on a real local operator behind its HTTP API: the rank's
 * whole output since its attempt started, not the logs view's 200-line tail, read through the same checks
 * as jobs.logs (another team's job is NOT_FOUND; a rank or pod the job lacks is refused by name).
 */
let stack: ConsoleStack;
const job = { namespace: "hyperpod-ns-llm-research", name: "it-rank-log-file" };
const STEPS_WANTED = 320;

const stepOf = (line: string) => Number(/^step=(\d+) /.exec(line)?.[1] ?? Number.NaN);

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_rank_log_file", nodes: 1, gpusPerNode: 2 });
  await stack.operator.submit(demoJobYaml({ ...job, nodes: 1, ranks: 2, gpusPerPod: 2, stepMs: 10 }));
  await stack.operator.waitFor(
    "both ranks running",
    () => stack.operator.live(job)?.ranksRunning === 2,
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe("a rank's log as a file", () => {
  it("holds every line rank 1 printed since its attempt started, far past the view's 200-line tail", async () => {
    const engineer = await stack.user("engineer@rebound.local");
    const input = rankLogFileInput(job, new URLSearchParams("rank=1"));
    let lines: string[] = [];
    let filename = "";
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const file = await rankLogFile(stack.db, stack.source, engineer, input);
      ({ filename } = file);
      lines = file.text.split("\n").slice(0, -1);
      if (lines.filter((line) => line.startsWith("step=")).length >= STEPS_WANTED) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    console.log(`downloaded ${lines.length} lines of rank 1`);
    expect(filename).toBe("hyperpod-ns-llm-research_it-rank-log-file_rank-1.log");
    expect(lines[0]).toMatch(/^training started rank=1 /);
    const steps = lines.filter((line) => line.startsWith("step="));
    expect(steps.length).toBeGreaterThanOrEqual(STEPS_WANTED);
    // Every step from the first, in order, each rank 1's own.
    expect(steps.map(stepOf)).toEqual(steps.map((_, i) => i + 1));
    for (const line of steps) expect(line).toMatch(/ rank=1$/);
  }, 90_000);

  it("answers another team's engineer as if the job did not exist", async () => {
    const vision = await stack.user("vision@rebound.local");
    const input = rankLogFileInput(job, new URLSearchParams("rank=0"));
    await expect(rankLogFile(stack.db, stack.source, vision, input)).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: `job ${job.namespace}/${job.name} not found`,
    });
  });

  it("refuses a rank the job does not have, and a malformed query naming its field", async () => {
    const engineer = await stack.user("engineer@rebound.local");
    const input = rankLogFileInput(job, new URLSearchParams("rank=7"));
    await expect(rankLogFile(stack.db, stack.source, engineer, input)).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: `rank: 7 is not a rank of job ${job.namespace}/${job.name}`,
    });
    expect(() => rankLogFileInput(job, new URLSearchParams("rank=one"))).toThrow(/^rank: /);
    expect(() => rankLogFileInput(job, new URLSearchParams("pod=x"))).toThrow(/^localRank: /);
    expect(() => rankLogFileInput(job, new URLSearchParams(""))).toThrow(/^pod: name a rank/);
  });
});
