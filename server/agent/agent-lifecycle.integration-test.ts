import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentProcessEnv } from "./env";
import {
  type AgentHandle,
  alivePids,
  cleanupAgents,
  DEMO_TRAINER,
  readEnvDump,
  readRankLog,
  startAgent,
  waitForExit,
} from "./testing/agent-harness";

/**
 * The real agent with 4 local ranks of the demo trainer, driven like the operator drives it:
 * READY → /start → RUNNING (exact env, step lines) → crash of rank 2 → FAULTED/WorkerCrash → /stop → READY
 * → /start faultCount=1 → the trainer resumes from its checkpoint.
 */

const EXTRA_ENV = { OMP_NUM_THREADS: "3", CUDA_VISIBLE_DEVICES: "0,1,2,3", REBOUND_TEST_MARKER: "x" };

describe("agent lifecycle, 4 local ranks", () => {
  let dir = "";
  let agent: AgentHandle;
  const paths = { logs: "", ckpt: "", env: "", control: "" };
  const start = (faultCount: number) =>
    agent.request({
      method: "POST",
      path: "/start",
      body: {
        rank: 0,
        nnodes: 2,
        faultCount,
        master_addr: "10.1.2.3",
        master_port: "29500",
        ipVersion: "v1",
      },
    });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "rebound-agent-it-"));
    Object.assign(paths, {
      logs: path.join(dir, "logs"),
      ckpt: path.join(dir, "ckpt"),
      env: path.join(dir, "env"),
      control: path.join(dir, "control.json"),
    });
    agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        "--nproc-per-node=4",
        "--nnodes=2",
        `--log-dir=${paths.logs}`,
        "--shutdown-timeout=5",
        "--rdzv-id=job-it",
        DEMO_TRAINER,
        "--step-ms=50",
        "--checkpoint-every=5",
        `--checkpoint-dir=${paths.ckpt}`,
        `--control-file=${paths.control}`,
        `--dump-env=${paths.env}`,
      ],
      env: EXTRA_ENV,
    });
  });

  afterAll(async () => {
    await cleanupAgents();
    await rm(dir, { recursive: true, force: true });
  });

  it("is READY once it listens", async () => {
    const status = await agent.status();
    expect(status).toMatchObject({
      status: "ready",
      restartMode: "process_level_restart",
      agent_version: "1.1.0",
    });
    expect(Object.keys(status.transitions ?? {})).toEqual(["READY"]);
  });

  it("answers /start with RUNNING at once, then runs 4 workers with the torch environment", async () => {
    const reply = await start(0);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: "running",
      reason: "Running",
      assigned_rank: "0",
      ipversion: "v1",
    });
    const { status } = await agent.waitFor((s) =>
      (s.ranks ?? []).every((r) => r.pid !== null && r.state === "running"),
    );
    expect(status.ranks?.map((r) => [r.local_rank, r.rank])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    await agent.waitFor((s) => (s.ranks ?? []).every((r) => (r.step ?? 0) >= 1));
    const agentEnv = { ...agentProcessEnv(), ...EXTRA_ENV };
    for (const localRank of [0, 1, 2, 3]) {
      const env = await readEnvDump(paths.env, localRank);
      expect(env).toEqual({
        ...agentEnv,
        LOCAL_RANK: String(localRank),
        RANK: String(localRank),
        GROUP_RANK: "0",
        ROLE_RANK: String(localRank),
        ROLE_NAME: "default",
        LOCAL_WORLD_SIZE: "4",
        WORLD_SIZE: "8",
        GROUP_WORLD_SIZE: "2",
        ROLE_WORLD_SIZE: "8",
        MASTER_ADDR: "10.1.2.3",
        MASTER_PORT: "29500",
        JOB_RESTART_COUNT: "0",
        TORCHELASTIC_RESTART_COUNT: "0",
        TORCHELASTIC_MAX_RESTARTS: "0",
        TORCHELASTIC_RUN_ID: "job-it",
        TORCHELASTIC_USE_AGENT_STORE: "False",
        TORCH_NCCL_ASYNC_ERROR_HANDLING: "1",
        HYPERPOD_SIGNAL_COORDINATION: "disabled",
      });
    }
  });

  it("parses every rank's step, loss and throughput", async () => {
    const { status } = await agent.waitFor((s) => (s.ranks ?? []).every((r) => (r.step ?? 0) >= 12));
    for (const rank of status.ranks ?? []) {
      expect(rank.last_line).toMatch(
        new RegExp(`^step=\\d+ loss=\\d\\.\\d{4} throughput=\\d+\\.\\d samples/s rank=${rank.rank}$`),
      );
      expect(typeof rank.loss).toBe("number");
      expect(rank.throughput).toBeGreaterThan(1000);
      expect(rank.restarts).toBe(0);
    }
    const metrics = await agent.request({ method: "GET", path: "/metrics" });
    expect(metrics.text).toMatch(/rebound_agent_rank_step\{local_rank="3",rank="3"\} \d+/);
  });

  it("reports a crash of rank 2 as WorkerCrash within 500 ms of its exit, and stops the other workers", async () => {
    const pids = [...agent.workerPids];
    await writeFile(paths.control, JSON.stringify({ kind: "crash", rank: 2, id: "crash-1" }));
    const { status, at } = await agent.waitFor((s) => s.status === "faulted", { intervalMs: 5 });
    expect(status.reason).toBe("WorkerCrash");
    expect(status.message).toMatch(
      /^A training worker process has crashed:\n {4}Local Rank 2 exited with code 1 due to: demo-trainer: injected crash on rank 2 at step \d+ at=\d+$/,
    );
    const crashedAt = Number(/at=(\d+)$/.exec(status.message ?? "")?.[1]);
    const observed = at - crashedAt;
    const agentSide = Date.parse(status.transitions?.FAULTED ?? "") - Date.parse(status.fault_at ?? "");
    console.log(
      `crash detection: ${observed} ms observed over HTTP, ${agentSide} ms exit -> FAULTED in the agent`,
    );
    expect(observed).toBeLessThan(500);
    expect(await waitForExit(pids)).toEqual([]);
    const final = await agent.waitFor((s) => (s.ranks ?? []).every((r) => r.state !== "running"));
    expect(final.status.ranks?.map((r) => r.state)).toEqual(["stopped", "stopped", "crashed", "stopped"]);
    expect(final.status.ranks?.[2]).toMatchObject({ exit_code: 1, signal: null });
    expect(final.status.status).toBe("faulted");
  });

  it("goes STOPPING → READY on /stop", async () => {
    const reply = await agent.request({
      method: "POST",
      path: "/stop",
      body: { restart_mode: "process_level_restart" },
    });
    expect(reply.status).toBe(200);
    expect(["stopping", "ready"]).toContain((reply.body as { status: string }).status);
    const { status } = await agent.waitFor((s) => s.status === "ready");
    expect(status).not.toHaveProperty("reason");
    expect(Object.keys(status.transitions ?? {})).toEqual(["READY", "RUNNING", "FAULTED", "STOPPING"]);
  });

  it("restarts with faultCount=1: JOB_RESTART_COUNT=1 and the trainer resumes from its checkpoint", async () => {
    expect((await start(1)).status).toBe(200);
    const { status } = await agent.waitFor((s) => (s.ranks ?? []).every((r) => r.step !== null));
    expect(status.ranks?.every((r) => r.restarts === 1)).toBe(true);
    for (const localRank of [0, 1, 2, 3]) {
      const env = await readEnvDump(paths.env, localRank);
      expect(env).toMatchObject({ JOB_RESTART_COUNT: "1", TORCHELASTIC_RESTART_COUNT: "1" });
    }
    const log = await readRankLog({ logDir: paths.logs, attempt: 1, localRank: 0, stream: "stdout" });
    const resumedAt = Number(/resuming from checkpoint at step (\d+)/.exec(log)?.[1]);
    expect(resumedAt).toBeGreaterThanOrEqual(5);
    expect(log).toContain(`step=${resumedAt + 1} `);
    expect(log).not.toMatch(/^step=1 /m);
    // The crash command was written before these workers started: it is not replayed.
    await agent.waitFor((s) => (s.ranks ?? []).every((r) => (r.step ?? 0) >= resumedAt + 5));
    expect((await agent.status()).status).toBe("running");
    expect(alivePids(status.ranks?.map((r) => r.pid ?? 0) ?? [])).toHaveLength(4);
  });
});
