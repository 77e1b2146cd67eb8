import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentHandle,
  cleanupAgents,
  DEMO_TRAINER,
  REPO_ROOT,
  readRankLog,
  startAgent,
  waitForExit,
} from "./testing/agent-harness";

/** The HTTP contract's edges on the real agent: validation, refusals, graceful stop, shutdown, signals. */

const START = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "127.0.0.1", master_port: 29500 };

let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-agent-proto-"));
});

afterEach(async () => {
  await cleanupAgents();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function trainerAgent(name: string, extra: string[] = []): Promise<AgentHandle> {
  return startAgent({
    args: [
      "--server-port=0",
      "--server-host=127.0.0.1",
      "--nproc-per-node=2",
      `--log-dir=${path.join(dir, name, "logs")}`,
      "--shutdown-timeout=5",
      ...extra,
      DEMO_TRAINER,
      "--step-ms=50",
      `--checkpoint-dir=${path.join(dir, name, "ckpt")}`,
    ],
  });
}

describe("rebound-agent command line", () => {
  it("exits 2 with one error line on a bad flag", () => {
    const run = spawnSync(process.execPath, ["bin/rebound-agent.mjs", "--nproc-per-node=zero", "train.py"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      'rebound-agent: error: --nproc-per-node: expected auto, cpu, gpu or an integer from 1 to 4096, got "zero" (see rebound-agent --help)\n',
    );
  });
});

describe("agent HTTP contract", () => {
  it("refuses bad /start bodies with 422 naming the field, and stays READY", async () => {
    const agent = await trainerAgent("bad-bodies");
    const cases: { body?: unknown; rawBody?: string; loc: (string | number)[]; msg: string | RegExp }[] = [
      { body: { ...START, master_addr: undefined }, loc: ["body", "master_addr"], msg: "Field required" },
      {
        body: { ...START, master_addr: "" },
        loc: ["body", "master_addr"],
        msg: "Empty master_addr received from operator",
      },
      {
        body: { ...START, master_port: "http" },
        loc: ["body", "master_port"],
        msg: /expected a port number/,
      },
      {
        body: { ...START, log_monitoring_configuration: [{ name: "R", logPattern: "(a" }] },
        loc: ["body", "log_monitoring_configuration", 0, "logPattern"],
        msg: /./,
      },
      {
        // hyperpodrun's int("2.0") raises (an operator without a threshold is accepted, as there).
        body: {
          ...START,
          log_monitoring_configuration: [{ name: "R", logPattern: ".*", metricThreshold: "2.0" }],
        },
        loc: ["body", "log_monitoring_configuration", 0, "metricThreshold"],
        msg: /string of an integer/,
      },
      { rawBody: "{not json", loc: ["body"], msg: /^JSON decode error/ },
      { rawBody: "", loc: ["body"], msg: "Field required" },
    ];
    for (const { body, rawBody, loc, msg } of cases) {
      const reply = await agent.request({ method: "POST", path: "/start", body, rawBody });
      expect(reply.status).toBe(422);
      const detail = (reply.body as { detail: { loc: unknown; msg: string }[] }).detail;
      expect(detail[0]?.loc).toEqual(loc);
      expect(detail[0]?.msg).toMatch(msg);
    }
    const huge = await agent.request({
      method: "POST",
      path: "/start",
      rawBody: `"${"x".repeat(1024 * 1024 + 10)}"`,
    });
    expect(huge.status).toBe(413);
    expect(await agent.status()).toMatchObject({ status: "ready" });
    expect(await agent.status()).not.toHaveProperty("assigned_rank");
  });

  it("answers 409 to commands the state refuses, 404/405 to unknown routes", async () => {
    const agent = await trainerAgent("conflicts");
    expect((await agent.request({ method: "POST", path: "/stop" })).status).toBe(200);
    expect((await agent.request({ method: "POST", path: "/start", body: START })).status).toBe(200);
    const again = await agent.request({ method: "POST", path: "/start", body: START });
    expect(again).toMatchObject({
      status: 409,
      body: { detail: "Invalid state transition from RUNNING to RUNNING" },
    });
    expect((await agent.request({ method: "GET", path: "/nope" })).body).toEqual({ detail: "Not Found" });
    expect((await agent.request({ method: "GET", path: "/start" })).status).toBe(405);
    const update = await agent.request({
      method: "POST",
      path: "/update",
      body: { ...START, spare: 1, ipVersion: "v2" },
    });
    expect(update).toMatchObject({
      status: 200,
      body: { status: "running", spare: "True", ipversion: "v2" },
    });
    expect((await agent.request({ method: "GET", path: "/healthz" })).status).toBe(200);
    const metrics = await fetch(`http://127.0.0.1:${agent.port}/metrics`);
    expect(metrics.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  });

  it("stops gracefully with SIGUSR1 on /stop {is_graceful: true}: the trainer checkpoints and exits 0", async () => {
    const agent = await trainerAgent("graceful");
    await agent.request({ method: "POST", path: "/start", body: START });
    await agent.waitFor((s) => (s.ranks ?? []).every((r) => (r.step ?? 0) >= 2));
    const stop = await agent.request({
      method: "POST",
      path: "/stop",
      body: { is_graceful: true, timeout: 5 },
    });
    expect(stop).toMatchObject({ status: 200, body: { status: "stopping" } });
    const { status } = await agent.waitFor((s) => s.status === "ready");
    expect(status.ranks?.map((r) => [r.state, r.exit_code, r.signal])).toEqual([
      ["stopped", 0, null],
      ["stopped", 0, null],
    ]);
    const log = await readRankLog({
      logDir: path.join(dir, "graceful", "logs"),
      attempt: 0,
      localRank: 0,
      stream: "stdout",
    });
    expect(log).toContain("checkpoint saved on SIGUSR1 rank=0");
  });

  it("exits on /shutdown and leaves no worker behind", async () => {
    const agent = await trainerAgent("shutdown");
    await agent.request({ method: "POST", path: "/start", body: START });
    const { status } = await agent.waitFor((s) => (s.ranks ?? []).every((r) => r.state === "running"));
    const pids = (status.ranks ?? []).map((r) => r.pid ?? 0);
    const reply = await agent.request({ method: "POST", path: "/shutdown" });
    expect(reply).toMatchObject({ status: 200, body: { status: "shutdown" } });
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    expect(await waitForExit(pids, 1000)).toEqual([]);
  });

  it("stops its workers and exits 0 on SIGTERM", async () => {
    const agent = await trainerAgent("sigterm");
    await agent.request({ method: "POST", path: "/start", body: START });
    const { status } = await agent.waitFor((s) => (s.ranks ?? []).every((r) => r.state === "running"));
    agent.child.kill("SIGTERM");
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    expect(
      await waitForExit(
        (status.ranks ?? []).map((r) => r.pid ?? 0),
        1000,
      ),
    ).toEqual([]);
  });

  it("runs the pre-train and post-train scripts around the workers, then COMPLETED", async () => {
    const hook = path.join(dir, "hook.mjs");
    const script =
      "console.log('hook ' + process.argv.slice(2).join(' ') + ' world=' + process.env.WORLD_SIZE);\n";
    await writeFile(hook, script);
    const agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        "--nproc-per-node=2",
        `--log-dir=${path.join(dir, "hooks", "logs")}`,
        `--pre-train-script=${hook}`,
        "--pre-train-args=before 'the run'",
        `--post-train-script=${hook}`,
        "--post-train-args=after",
        DEMO_TRAINER,
        "--steps=3",
        "--step-ms=20",
        `--checkpoint-dir=${path.join(dir, "hooks", "ckpt")}`,
      ],
    });
    await agent.request({ method: "POST", path: "/start", body: { ...START, nnodes: 3 } });
    const { status } = await agent.waitFor((s) => s.status === "completed");
    // Both ranks share the checkpoint dir (rank 0 writes it), so a rank that starts late may resume from
    // rank 0's checkpoint and print one step more: only "finished, cleanly, after at least 3 steps" is fixed.
    expect(status.ranks?.map((r) => [r.state, r.exit_code])).toEqual([
      ["exited", 0],
      ["exited", 0],
    ]);
    expect(status.ranks?.every((r) => (r.step ?? 0) >= 3)).toBe(true);
    const logs = path.join(dir, "hooks", "logs");
    expect(await readRankLog({ logDir: logs, attempt: 0, localRank: "pre_train", stream: "stdout" })).toBe(
      "hook before the run world=6\n",
    );
    expect(await readRankLog({ logDir: logs, attempt: 0, localRank: "post_train", stream: "stdout" })).toBe(
      "hook after world=6\n",
    );
    expect((await readdir(logs)).length).toBe(1);
  });
});
