import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { readRankOutput } from "@/server/cluster/local/rank-output";
import { cleanupAgents, startAgent } from "./testing/agent-harness";

/**
 * The real agent records when each line of a rank's output arrived, beside its stdout.log and stderr.log,
 * and the local back end reads them back in the order the agent read them (server/agent/arrivals.ts,
 * server/cluster/local/rank-output.ts): the times a dry-run on a running rank plays.
 */
const START = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "127.0.0.1", master_port: 29500 };
const ref = { namespace: "team-a", name: "timed" };
const uid = "uid-1";
const pod = "timed-workers-0";

let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-arrivals-"));
});

afterEach(async () => {
  await cleanupAgents();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("arrival times of a rank's output", () => {
  it("are recorded as the lines arrive, on both streams, from the rank's start to its end", async () => {
    const worker = path.join(dir, "timed.mjs");
    await writeFile(
      worker,
      [
        "const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));",
        'console.log("training started");',
        "await sleep(400);",
        'console.error("warning: slow disk");',
        "await sleep(400);",
        'console.log("step=1 loss=2.5");',
        "",
      ].join("\n"),
    );
    const podsDir = path.join(dir, "pods");
    const logs = path.join(podsDir, ref.namespace, ref.name, uid, pod, "logs");
    const agent = await startAgent({
      args: ["--server-port=0", "--server-host=127.0.0.1", `--log-dir=${logs}`, "--nproc-per-node=2", worker],
      cwd: dir,
    });
    const before = Date.now();
    await agent.request({ method: "POST", path: "/start", body: START });
    const { status } = await agent.waitFor((s) => s.status === "completed");
    // The agent writes its record as lines come; its last entry (the end) may still be on its way to disk.
    const output = await vi.waitFor(async () => {
      const read = await readRankOutput({ podsDir, ref, pod, uid, localRank: 1 });
      expect(read.endedAt).not.toBeNull();
      return read;
    });
    expect(output.lines.map((line) => line.text)).toEqual([
      "training started",
      "warning: slow disk",
      "step=1 loss=2.5",
    ]);
    const [started, warned, stepped] = output.lines.map((line) => line.at ?? 0);
    expect(output).toMatchObject({ attempt: 0, timing: "arrivals", overLimit: false });
    expect(output.startedAt).toBeGreaterThanOrEqual(before);
    expect(started).toBeGreaterThanOrEqual(output.startedAt ?? 0);
    // The worker sleeps 400 ms between lines: the times say so (not 1 s apart, not all at once).
    expect((warned ?? 0) - (started ?? 0)).toBeGreaterThanOrEqual(350);
    expect((stepped ?? 0) - (warned ?? 0)).toBeGreaterThanOrEqual(350);
    expect((stepped ?? 0) - (started ?? 0)).toBeLessThan(2000);
    expect(output.endedAt).toBeGreaterThanOrEqual(stepped ?? 0);
    expect(Date.parse(status.transitions?.COMPLETED ?? "")).toBeGreaterThanOrEqual(output.endedAt ?? 0);
  });
});
