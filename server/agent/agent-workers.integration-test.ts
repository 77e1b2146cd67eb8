import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { getPriority, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanupAgents, REPO_ROOT, startAgent } from "./testing/agent-harness";

const DEMO_TRAINER_JS = path.join(REPO_ROOT, "examples/trainer/dist/demo-trainer.mjs");

/**
 * Workers that misbehave at the process level: cannot start, print giant lines, fail their pre-train
 * script. These agents run from a temporary folder, not the repository root.
 */

const START = { rank: 0, nnodes: 1, faultCount: 0, master_addr: "127.0.0.1", master_port: 29500 };

let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-agent-workers-"));
});

afterEach(async () => {
  await cleanupAgents();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("agent workers", () => {
  it("runs workers at the niceness asked for, below the agent (and its own session group on Linux)", async () => {
    const agent = await startAgent({
      args: [
        "--nproc-per-node",
        "2",
        "--server-port",
        "0",
        "--log-dir",
        dir,
        "--worker-nice",
        "15",
        DEMO_TRAINER_JS,
        "--steps",
        "0",
      ],
    });
    const started = await agent.request({ method: "POST", path: "/start", body: START });
    expect(started.status).toBe(200);
    const { status } = await agent.waitFor(
      (s) => (s.ranks ?? []).every((rank) => rank.pid !== null) && (s.ranks ?? []).length === 2,
    );
    const pids = (status.ranks ?? []).map((rank) => rank.pid as number);
    expect(pids.map((pid) => getPriority(pid))).toEqual([15, 15]);
    expect(getPriority(agent.child.pid ?? 0)).toBe(0);
    if (existsSync("/proc/self/autogroup")) {
      for (const pid of pids) expect(readFileSync(`/proc/${pid}/autogroup`, "utf8")).toMatch(/ nice 15$/m);
    }
  });

  it("reports a worker that cannot be started as a WorkerCrash", async () => {
    const agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        `--log-dir=${path.join(dir, "enoent")}`,
        "--no-python",
        "/nonexistent/train",
      ],
    });
    await agent.request({ method: "POST", path: "/start", body: START });
    const { status } = await agent.waitFor((s) => s.status === "faulted");
    expect(status).toMatchObject({
      reason: "WorkerCrash",
      message:
        "A training worker process has crashed:\n    Local Rank 0 exited with code 127 due to: spawn /nonexistent/train ENOENT",
    });
    expect(status.ranks?.[0]).toMatchObject({ state: "crashed", pid: null, exit_code: 127 });
  });

  it("cuts giant lines for the rules and the status, but logs every byte", async () => {
    const worker = path.join(dir, "giant.mjs");
    await writeFile(
      worker,
      'process.stdout.write("HEAD" + "x".repeat(100000) + "TAIL\\n" + "step=1 loss=0.5\\n"); setTimeout(() => {}, 300);\n',
    );
    const logs = path.join(dir, "giant");
    const agent = await startAgent({
      args: ["--server-port=0", "--server-host=127.0.0.1", `--log-dir=${logs}`, "--nproc-per-node=2", worker],
      cwd: dir,
    });
    const rules = [
      { name: "Tail", logPattern: ".*TAIL.*", faultOnMatch: true },
      { name: "Head", logPattern: "HEAD.*" },
    ];
    await agent.request({
      method: "POST",
      path: "/start",
      body: { ...START, log_monitoring_configuration: rules },
    });
    const { status } = await agent.waitFor((s) => s.status !== "running");
    expect(status.status).toBe("completed");
    for (const rank of status.ranks ?? []) {
      expect(rank).toMatchObject({
        state: "exited",
        step: 1,
        loss: 0.5,
        rule_states: { Tail: "WAITING", Head: "HEALTHY" },
      });
    }
    const runDirs = await readdir(logs);
    const file = path.join(logs, runDirs[0] ?? "", "attempt_0", "1", "stdout.log");
    expect((await stat(file)).size).toBe(4 + 100_000 + 5 + 16);
  });

  it("faults WorkerFault when the pre-train script fails, and never starts the workers", async () => {
    const pre = path.join(dir, "pre-fail.mjs");
    await writeFile(pre, 'console.error("setup failed"); process.exit(3);\n');
    const agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        `--log-dir=${path.join(dir, "pre-fail")}`,
        "--nproc-per-node=2",
        `--pre-train-script=${pre}`,
        path.join(dir, "never-run.mjs"),
      ],
      cwd: dir,
    });
    await agent.request({ method: "POST", path: "/start", body: START });
    const { status } = await agent.waitFor((s) => s.status === "faulted");
    expect(status).toMatchObject({
      reason: "WorkerFault",
      message: `The pre-train script ${pre} exited with code 3 due to: setup failed`,
    });
    const settled = await agent.waitFor((s) => (s.ranks ?? []).every((r) => r.state === "stopped"));
    expect(settled.status.ranks?.map((r) => r.pid)).toEqual([null, null]);
  });
});
