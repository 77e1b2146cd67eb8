import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { JobPage } from "@/server/domain/jobs/pages";
import type { RankOutput } from "@/server/domain/operator-api/rank-output";
import { dryRun, parsePolicyYaml } from "@/server/domain/policy";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { asLive, liveRankRun } from "./rank-dry-run";

/** The demo job's own rules: its whole YAML (the policy parser takes a job's spec.runPolicy). */
const DEMO_JOB = readFileSync(path.join(import.meta.dirname, "../../../examples/jobs/demo-job.yaml"), "utf8");
const parsed = parsePolicyYaml(DEMO_JOB);
if (!parsed.ok) throw new Error("the demo rules do not parse");
const runPolicy = parsed.runPolicy;

const T0 = Date.parse("2026-03-01T10:00:00Z");
const ref = { namespace: "team-a", name: "demo" };

/** A demo rank: "training started" 1.5 s in, then a step every 200 ms for `seconds`. */
function demoLines(seconds: number, loss = "2.5") {
  const steps = Array.from({ length: seconds * 5 }, (_, step) => ({
    text: `step=${step + 1} loss=${loss} throughput=1523.4 samples/s rank=3`,
    at: T0 + 1700 + step * 200,
  }));
  return [{ text: "training started", at: T0 + 1500 }, ...steps];
}

function output(lines: RankOutput["lines"], over: Partial<RankOutput> = {}): RankOutput {
  const readAt = over.readAt ?? (lines.at(-1)?.at ?? T0) + 100;
  return {
    attempt: 2,
    startedAt: T0,
    endedAt: null,
    readAt,
    lines,
    completeUntil: readAt,
    overLimit: false,
    timing: "arrivals",
    ...over,
  };
}

/** `logWatched: null`: an agent that does not say (HyperPod's lists no ranks). Default: watched. */
type Rank = { state?: string; logWatched?: boolean | null; localRank?: number };

/** The dry-run on rank 3 of a one-pod page, as the service runs it (domain dryRun, no worker thread). */
async function run(read: RankOutput, rank: Rank = {}) {
  const view = {
    rank: 3,
    localRank: rank.localRank ?? 3,
    pod: "demo-workers-0",
    state: rank.state ?? "running",
    logWatched: rank.logWatched === null ? undefined : (rank.logWatched ?? true),
  };
  const page = { topology: { ranks: [view] } } as unknown as JobPage;
  const asked: unknown[] = [];
  const source = {
    rankOutput: async (_ref: unknown, target: unknown) => {
      asked.push(target);
      return read;
    },
  } as unknown as ClusterSource;
  const live = await liveRankRun(source, { page, ref, rank: 3 });
  const result = asLive(dryRun({ runPolicy, ...live.input }), live);
  return { result, asked };
}

describe("a dry-run on a running rank", () => {
  it("predicts no fault on a healthy rank read whole: the start line counts, and lines come 0.2 s apart", async () => {
    const { result, asked } = await run(output(demoLines(300)));
    expect(asked).toEqual([{ pod: "demo-workers-0", localRank: 3 }]);
    expect(result.fault).toBeNull();
    expect(result.lines).toBe(1501);
    expect(result.start).toBe(T0);
    const last = T0 + 1700 + 1499 * 200;
    // The step window is still open when the output was read: when it fires if no step line comes.
    expect(result.deadlines).toEqual([{ rule: "JobHang", state: "HANGING", at: last + 11_000 }]);
    expect(result.rank).toMatchObject({
      rank: 3,
      pod: "demo-workers-0",
      watched: true,
      timed: true,
      attempt: 2,
    });
    expect(result.rules.find((rule) => rule.name === "JobStart")?.finalState).toBe("HEALTHY");
  });

  it("still predicts a hang the live rules would raise: a rank silent past its window before the read", async () => {
    const lines = demoLines(30);
    const { result } = await run(output(lines, { readAt: T0 + 120_000 }));
    const lastStep = lines.at(-1)?.at ?? 0;
    expect(result.fault).toMatchObject({ rule: "JobHang", state: "HANGING", lineNumber: null });
    expect(result.fault?.at).toBeGreaterThan(lastStep + 10_000);
    expect(result.fault?.at).toBeLessThanOrEqual(lastStep + 12_000);
    expect(result.nextAction?.action).toBe("in-place restart");
  });

  it("says an unwatched rank's rules would not fault the job, and what they would do", async () => {
    const { result } = await run(output(demoLines(30), { readAt: T0 + 120_000 }), { logWatched: false });
    expect(result).toMatchObject({ fault: null, nextAction: null, deadlines: [] });
    expect(result.notes[0]).toMatch(
      /^local rank 3 is not watched: .*would not fault the job \(JobHang would turn HANGING/,
    );
  });

  it("reads a rank of an agent that lists no ranks as watched when it is local rank 0 only", async () => {
    const page = (localRank: number) => run(output(demoLines(5)), { localRank, logWatched: null });
    expect((await page(0)).result.rank?.watched).toBe(true);
    expect((await page(1)).result.rank?.watched).toBe(false);
  });

  it("stops where the rank's process ended: a finished rank's rules stopped then", async () => {
    const lines = demoLines(30);
    const ended = (lines.at(-1)?.at ?? 0) + 50;
    const { result } = await run(output(lines, { endedAt: ended, readAt: T0 + 3_600_000 }), {
      state: "exited",
    });
    expect(result.fault).toBeNull();
    expect(result.end).toBe(ended);
  });

  it("stops at the first line left out when the attempt printed more than a dry-run takes, and says so", async () => {
    const lines = demoLines(30);
    const { result } = await run(
      output(lines, { overLimit: true, completeUntil: T0 + 40_000, readAt: T0 + 900_000 }),
    );
    expect(result.fault).toBeNull();
    expect(result.end).toBe(T0 + 40_000);
    expect(result.notes).toContain(
      `the attempt printed more than the dry-run takes (20,000 lines, 2 MB): its first ${lines.length} lines were run, up to 40 s after it started, and the run stops there`,
    );
  });

  it("without arrival times judges lines, not windows: a NaN line is found, no hang and no deadline", async () => {
    const lines = demoLines(3, "nan").map((line) => ({ ...line, at: null }));
    const { result } = await run(output(lines, { timing: "none", readAt: T0 + 900_000 }));
    expect(result.fault).toMatchObject({ rule: "LossNaN", state: "FAULTED", lineNumber: 2 });
    expect(result.deadlines).toEqual([]);
    expect(result.rank?.timed).toBe(false);
    expect(result.notes.join("\n")).toMatch(/records no arrival times.*hang windows are not judged/);
  });

  it("on Kubernetes with no line of the rank in the pod's log, judges no window (its agent may not tee)", async () => {
    const { result } = await run(output([], { timing: "runtime", readAt: T0 + 900_000 }));
    expect(result).toMatchObject({ fault: null, deadlines: [] });
    expect(result.notes.join("\n")).toMatch(/--tee 3/);
  });

  it("refuses a rank the job does not have", async () => {
    const page = { topology: { ranks: [] } } as unknown as JobPage;
    const source = {} as ClusterSource;
    await expect(liveRankRun(source, { page, ref, rank: 9 })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
