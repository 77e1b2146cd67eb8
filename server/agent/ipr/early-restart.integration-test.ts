import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentStatus } from "../protocol";
import { cleanupAgents, DEMO_TRAINER, readRankLog, startAgent } from "../testing/agent-harness";

/**
 * With `--early-worker-restart` the in-process agent restarts a failed node's workers as soon as one dies,
 * before the operator's /stop (ipr-agent.ts): while it reports FAULTED (with the crashed rank, as the operator needs it) the new workers
 * start and wait at the barrier; the /stop then keeps them (READY, no further restart), so the node is
 * READY sooner than a restart begun on /stop could make it. Without the flag, as hyperpodrun, the failed
 * workers stay down until the /stop.
 */

let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-ipr-early-"));
});

afterEach(async () => {
  await cleanupAgents();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const pids = (status: AgentStatus) => (status.ranks ?? []).map((rank) => rank.pid);

async function fileWith(read: () => Promise<string>, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await read().catch(() => "");
    if (pattern.test(text) || Date.now() > deadline) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const BODY = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "127.0.0.1", master_port: 29500 };

/** An in-process agent with two ranks, started and stepping; returns it with rank 1's pid. */
async function runningAgent(logDir: string, extra: string[]) {
  const agent = await startAgent({
    args: [
      "--server-port=0",
      "--server-host=127.0.0.1",
      "--nproc-per-node=2",
      "--inprocess-restart",
      ...extra,
      `--log-dir=${logDir}`,
      "--shutdown-timeout=5",
      DEMO_TRAINER,
      "--step-ms=50",
      `--checkpoint-dir=${path.join(dir, "ckpt")}`,
    ],
    env: { INPROCESS_RESTART: "1" },
  });
  await agent.waitFor((status) => status.status === "ready");
  expect((await agent.request({ method: "POST", path: "/start", body: BODY })).status).toBe(200);
  const running = await agent.waitFor(
    (status) => status.status === "running" && (status.ranks ?? []).every((rank) => (rank.step ?? 0) >= 3),
  );
  const victim = running.status.ranks?.[1]?.pid;
  if (!victim) throw new Error("no pid for rank 1");
  return { agent, victim };
}

describe("in-process agent: restart of a failed node", () => {
  it("with --early-worker-restart starts the workers again before the /stop, reports the crash meanwhile, and keeps them on /stop", async () => {
    const logDir = path.join(dir, "logs-early");
    const { agent, victim } = await runningAgent(logDir, ["--early-worker-restart"]);
    process.kill(victim, "SIGKILL");

    // No /stop yet: the new workers (attempt 1) start and reach the barrier on their own.
    const read = (localRank: number) => () =>
      readRankLog({ logDir, attempt: 1, localRank, stream: "stdout" });
    for (const localRank of [0, 1])
      expect(await fileWith(read(localRank), /training started \(in-process restart\)/)).toMatch(
        /training started/,
      );
    const faulted = await agent.status();
    expect(faulted.status).toBe("faulted");
    expect(faulted.reason).toBe("WorkerCrash");
    expect(faulted.ranks?.[1]).toMatchObject({ pid: victim, state: "crashed" });

    expect((await agent.request({ method: "POST", path: "/stop" })).status).toBe(200);
    const ready = await agent.waitFor((status) => status.status === "ready");
    const kept = pids(ready.status);
    expect(kept).not.toContain(victim);
    expect(kept.every((pid) => pid !== null)).toBe(true);
    // The /stop kept the early workers: no third attempt.
    await expect(readRankLog({ logDir, attempt: 2, localRank: 0, stream: "stdout" })).rejects.toThrow();

    expect(
      (await agent.request({ method: "POST", path: "/start", body: { ...BODY, faultCount: 1 } })).status,
    ).toBe(200);
    const again = await agent.waitFor(
      (status) => status.status === "running" && (status.ranks ?? []).every((rank) => (rank.step ?? 0) >= 1),
    );
    expect(pids(again.status)).toEqual(kept);
  }, 60_000);

  it("by default, as hyperpodrun, leaves the failed workers down until the /stop, then restarts them", async () => {
    const logDir = path.join(dir, "logs-default");
    const { agent, victim } = await runningAgent(logDir, []);
    process.kill(victim, "SIGKILL");
    await agent.waitFor((status) => status.status === "faulted");
    // Long enough for an early restart to have started the workers (they start in well under a second).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await expect(readRankLog({ logDir, attempt: 1, localRank: 0, stream: "stdout" })).rejects.toThrow();
    const faulted = await agent.status();
    expect(faulted.status).toBe("faulted");
    expect(faulted.ranks?.[1]).toMatchObject({ pid: victim, state: "crashed" });

    expect((await agent.request({ method: "POST", path: "/stop" })).status).toBe(200);
    const ready = await agent.waitFor((status) => status.status === "ready");
    expect(pids(ready.status)).not.toContain(victim);
    const read = () => readRankLog({ logDir, attempt: 1, localRank: 1, stream: "stdout" });
    expect(await fileWith(read, /training started/)).toMatch(/training started/);
  }, 60_000);
});
