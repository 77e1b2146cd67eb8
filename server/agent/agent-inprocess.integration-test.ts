import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentStatus } from "@/server/domain/agent-api/protocol";
import {
  type AgentHandle,
  cleanupAgents,
  DEMO_TRAINER,
  REPO_ROOT,
  readRankLog,
  startAgent,
} from "./testing/agent-harness";

/**
 * The in-process-restart agent alone (`--inprocess-restart`), two agents driven by hand as HyperPod's
 * operator drives them: READY once every rank waits at the barrier, /start releases it, a crash on one node
 * faults that agent, /stop pauses the healthy node's ranks (same pids, state kept) and restarts the crashed
 * node's processes, /start with the agents' worker_data lets the new rank take its state from a peer.
 */

let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-agent-ipr-"));
});

afterEach(async () => {
  await cleanupAgents();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RANK_IPS = [
  { ip: "127.0.0.1", rank: 0 },
  { ip: "127.0.0.1", rank: 1 },
];

function iprAgent(name: string, node: number): Promise<AgentHandle> {
  return startAgent({
    args: [
      "--server-port=0",
      "--server-host=127.0.0.1",
      "--nproc-per-node=2",
      "--inprocess-restart",
      `--log-dir=${path.join(dir, name, String(node), "logs")}`,
      "--shutdown-timeout=5",
      DEMO_TRAINER,
      "--step-ms=50",
      "--peer-recovery",
      `--checkpoint-dir=${path.join(dir, name, "ckpt")}`,
    ],
    env: { INPROCESS_RESTART: "1" },
  });
}

const start = (agent: AgentHandle, input: { rank: number; faultCount: number; workerData?: unknown[] }) =>
  agent.request({
    method: "POST",
    path: "/start",
    body: {
      rank: input.rank,
      nnodes: 2,
      faultCount: input.faultCount,
      master_addr: "127.0.0.1",
      master_port: 29500,
      rankIps: RANK_IPS,
      ipVersion: `v${input.faultCount}`,
      ...(input.workerData ? { worker_data: input.workerData } : {}),
    },
  });

const pids = (status: AgentStatus) => (status.ranks ?? []).map((rank) => rank.pid);
const stepping = (min: number) => (status: AgentStatus) =>
  status.status === "running" && (status.ranks ?? []).every((rank) => (rank.step ?? 0) >= min);

/** A rank's stdout log once it matches `pattern` (the file lags the agent's view of the output a little). */
async function logMatching(input: { logDir: string; attempt: number; localRank: number; pattern: RegExp }) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const log = await readRankLog({ ...input, stream: "stdout" }).catch(() => "");
    if (input.pattern.test(log) || Date.now() > deadline) return log;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function lastStep(input: { logDir: string; attempt: number; localRank: number }): Promise<number> {
  const log = await readRankLog({ ...input, stream: "stdout" });
  const steps = [...log.matchAll(/^step=(\d+) /gm)].map((match) => Number(match[1]));
  return steps.at(-1) ?? -1;
}

describe("rebound-agent --inprocess-restart", () => {
  it("pauses healthy ranks in place and restarts a crashed node's ranks with state from a peer", async () => {
    const [a, b] = await Promise.all([iprAgent("peer", 0), iprAgent("peer", 1)]);
    if (!a || !b) throw new Error("agents did not start");
    const readyA = await a.waitFor((status) => status.status === "ready");
    expect(readyA.status).toMatchObject({ restartMode: "in_process_restart" });
    expect(pids(readyA.status).every((pid) => pid !== null)).toBe(true);
    await b.waitFor((status) => status.status === "ready");

    expect((await start(a, { rank: 0, faultCount: 0 })).status).toBe(200);
    expect((await start(b, { rank: 1, faultCount: 0 })).status).toBe(200);
    const runningA = await a.waitFor(stepping(5));
    const runningB = await b.waitFor(stepping(5));
    expect((runningB.status.ranks ?? []).map((rank) => rank.rank)).toEqual([2, 3]);
    await a.waitFor((status) => Array.isArray(status.worker_data) && status.worker_data.length === 2);

    const victim = runningB.status.ranks?.[1]?.pid;
    if (!victim) throw new Error("no pid for rank 3");
    process.kill(victim, "SIGKILL");
    const faulted = await b.waitFor((status) => status.status === "faulted");
    expect(faulted.status.reason).toBe("WorkerCrash");
    expect((await a.status()).status).toBe("running");

    await Promise.all([
      a.request({ method: "POST", path: "/stop" }),
      b.request({ method: "POST", path: "/stop" }),
    ]);
    const pausedA = await a.waitFor((status) => status.status === "ready");
    expect(pids(pausedA.status)).toEqual(pids(runningA.status));
    expect(pausedA.status.priority).toBe("True");
    const restartedB = await b.waitFor((status) => status.status === "ready");
    expect(pids(restartedB.status).some((pid) => pids(runningB.status).includes(pid))).toBe(false);
    const logA = path.join(dir, "peer", "0", "logs");
    const stepBeforeA = await lastStep({ logDir: logA, attempt: 0, localRank: 1 });

    const workerData = [pausedA.status, restartedB.status].flatMap((status) =>
      Array.isArray(status.worker_data) ? status.worker_data : [],
    );
    expect(workerData.map((entry) => (entry as { rank: number }).rank).sort()).toEqual([0, 1]);
    await start(a, { rank: 0, faultCount: 1, workerData });
    await start(b, { rank: 1, faultCount: 1, workerData });
    await a.waitFor(stepping(stepBeforeA + 3));
    await b.waitFor((status) => status.status === "running" && (status.ranks?.[1]?.step ?? 0) > stepBeforeA);

    expect(pids(await a.status())).toEqual(pids(runningA.status));
    const logB = path.join(dir, "peer", "1", "logs");
    const newRank = await logMatching({ logDir: logB, attempt: 1, localRank: 1, pattern: /^step=/m });
    const peer = /state from peer rank=(\d) step=(\d+) weights=\S+ rank=3/.exec(newRank);
    expect(peer).not.toBeNull();
    expect(Number(peer?.[2])).toBeGreaterThanOrEqual(stepBeforeA - 1);
    const firstStep = Number(/^step=(\d+) /m.exec(newRank)?.[1]);
    expect(firstStep).toBe(Number(peer?.[2]) + 1);
    const keptA = await logMatching({
      logDir: logA,
      attempt: 0,
      localRank: 1,
      pattern: new RegExp(`^step=${stepBeforeA + 1} `, "m"),
    });
    expect(keptA).toMatch(
      new RegExp(`in-process restart: kept state step=${stepBeforeA} .* rank=1 restart=1`),
    );
    expect(keptA).toMatch(new RegExp(`^step=${stepBeforeA + 1} `, "m"));
  }, 60_000);

  it("restarts the processes when paused ranks miss --inprocess-timeout", async () => {
    const agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        "--nproc-per-node=1",
        "--inprocess-restart",
        "--inprocess-timeout=1",
        `--log-dir=${path.join(dir, "stubborn", "logs")}`,
        "--no-python",
        process.execPath,
        path.join(REPO_ROOT, "server/agent/testdata/ipr-stubborn.mjs"),
      ],
    });
    const ready = await agent.waitFor((status) => status.status === "ready");
    expect((await start(agent, { rank: 0, faultCount: 0 })).status).toBe(200);
    await agent.waitFor((status) => status.status === "running");
    const stoppedAt = Date.now();
    await agent.request({ method: "POST", path: "/stop" });
    const again = await agent.waitFor(
      (status) => status.status === "ready" && pids(status)[0] !== pids(ready.status)[0],
    );
    expect(again.at - stoppedAt).toBeGreaterThanOrEqual(1000);
    expect(agent.output()).toMatch(/Timed out \(1s\) waiting for workers to report to barrier/);
  }, 30_000);
});
