import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentStatus } from "@/server/domain/agent-api/protocol";
import { cleanupAgents, DEMO_TRAINER, readRankLog, startAgent } from "../testing/agent-harness";

/**
 * With `--early-worker-restart` the in-process agent restarts a rank that fails on its own (its worker dies,
 * or a rule on it fires) alone and at once, before the operator's /stop (ipr-agent.ts): while it reports
 * FAULTED (with the failed rank, as the operator needs it) the rank's new process starts and waits at the
 * barrier, the node's other ranks keep their processes, and the /stop pauses them like any node's. A second
 * failure before the /stop has the /stop restart every worker, as without the flag. Without the flag, as
 * hyperpodrun, the failed workers stay down until the /stop, which restarts every worker of the node.
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

async function waitForGone(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`pid ${pid} still alive`);
}

async function fileWith(read: () => Promise<string>, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await read().catch(() => "");
    if (pattern.test(text) || Date.now() > deadline) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const BODY = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "127.0.0.1", master_port: 29500 };
const NAN_RULE = { name: "NaNLoss", logPattern: ".*loss=nan.*", faultOnMatch: true };
const STARTED = /training started \(in-process restart\)/g;

const startsIn = (text: string) => text.match(STARTED)?.length ?? 0;

/** An in-process agent with two ranks, started and stepping; returns it with its ranks' pids. */
async function runningAgent(logDir: string, extra: string[], start: Record<string, unknown> = BODY) {
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
      `--control-file=${logDir}.control.json`,
    ],
    env: { INPROCESS_RESTART: "1" },
  });
  await agent.waitFor((status) => status.status === "ready");
  expect((await agent.request({ method: "POST", path: "/start", body: start })).status).toBe(200);
  const running = await agent.waitFor(
    (status) => status.status === "running" && (status.ranks ?? []).every((rank) => (rank.step ?? 0) >= 3),
  );
  const [kept, victim] = pids(running.status);
  if (!kept || !victim) throw new Error("no pid for a rank");
  return { agent, kept, victim };
}

/** Waits until local rank `localRank`'s log of attempt 0 shows `n` process starts. */
async function startedTimes(logDir: string, localRank: number, n: number): Promise<number> {
  const read = () => readRankLog({ logDir, attempt: 0, localRank, stream: "stdout" });
  return startsIn(await fileWith(read, new RegExp(`(${STARTED.source}[\\s\\S]*){${n}}`)));
}

describe("in-process agent: restart of a failed node", () => {
  it("with --early-worker-restart restarts a crashed rank alone before the /stop, keeps the other, and /stop pauses it", async () => {
    const logDir = path.join(dir, "logs-early");
    const { agent, kept, victim } = await runningAgent(logDir, ["--early-worker-restart"]);
    process.kill(victim, "SIGKILL");

    // No /stop yet: rank 1's new process starts (its output appended to attempt 0's log) on its own.
    expect(await startedTimes(logDir, 1, 2)).toBe(2);
    const faulted = await agent.status();
    expect(faulted.status).toBe("faulted");
    expect(faulted.reason).toBe("WorkerCrash");
    expect(faulted.ranks?.[1]).toMatchObject({ pid: victim, state: "crashed" });
    expect(faulted.ranks?.[0]).toMatchObject({ pid: kept, state: "running" });

    expect((await agent.request({ method: "POST", path: "/stop" })).status).toBe(200);
    const ready = await agent.waitFor((status) => status.status === "ready");
    const [rank0, rank1] = pids(ready.status);
    expect(rank0).toBe(kept);
    expect(rank1).not.toBe(victim);
    expect(rank1).toEqual(expect.any(Number));
    // Rank 0 paused in its process: started once; no second attempt.
    expect(startsIn(await readRankLog({ logDir, attempt: 0, localRank: 0, stream: "stdout" }))).toBe(1);
    await expect(readRankLog({ logDir, attempt: 1, localRank: 0, stream: "stdout" })).rejects.toThrow();

    expect(
      (await agent.request({ method: "POST", path: "/start", body: { ...BODY, faultCount: 1 } })).status,
    ).toBe(200);
    const again = await agent.waitFor(
      (status) => status.status === "running" && (status.ranks ?? []).every((rank) => (rank.step ?? 0) >= 1),
    );
    expect(pids(again.status)).toEqual([kept, rank1]);
  }, 60_000);

  it("with --early-worker-restart restarts a rank alone when a rule on it fires (--log-rules-all-ranks)", async () => {
    const logDir = path.join(dir, "logs-rule");
    const { agent, kept, victim } = await runningAgent(
      logDir,
      ["--early-worker-restart", "--log-rules-all-ranks"],
      {
        ...BODY,
        log_monitoring_configuration: [NAN_RULE],
      },
    );
    await writeFile(`${logDir}.control.json`, JSON.stringify({ kind: "nan", rank: 1, id: "nan-1" }));

    expect(await startedTimes(logDir, 1, 2)).toBe(2);
    // A few of the agent's rule ticks (250 ms): the rule that fired must not fire again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const faulted = await agent.status();
    expect(faulted).toMatchObject({ status: "faulted", reason: "LogFault_NaNLoss" });
    expect(faulted.ranks?.[0]).toMatchObject({ pid: kept, state: "running" });
    expect(faulted.ranks?.[0]?.pid).toBe(kept);

    expect((await agent.request({ method: "POST", path: "/stop" })).status).toBe(200);
    const [rank0, rank1] = pids((await agent.waitFor((status) => status.status === "ready")).status);
    expect(rank0).toBe(kept);
    expect(rank1).not.toBe(victim);
    await expect(readRankLog({ logDir, attempt: 1, localRank: 0, stream: "stdout" })).rejects.toThrow();
  }, 60_000);

  it("with --early-worker-restart, a second failure before the /stop has the /stop restart every worker", async () => {
    const logDir = path.join(dir, "logs-twice");
    const { agent, kept, victim } = await runningAgent(logDir, ["--early-worker-restart"]);
    process.kill(victim, "SIGKILL");
    expect(await startedTimes(logDir, 1, 2)).toBe(2);
    process.kill(kept, "SIGKILL");
    await waitForGone(kept);

    expect((await agent.request({ method: "POST", path: "/stop" })).status).toBe(200);
    const ready = await agent.waitFor((status) => status.status === "ready");
    const read = () => readRankLog({ logDir, attempt: 1, localRank: 0, stream: "stdout" });
    expect(await fileWith(read, STARTED)).toMatch(STARTED);
    expect(pids(ready.status)).not.toContain(kept);
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
