import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentStatus } from "@/server/domain/agent-api/protocol";
import { findFreePort } from "@/server/http/free-port";
import { ensureHyperPodAgent } from "@/test/hyperpod-agent";
import { type AgentHandle, cleanupAgents, REPO_ROOT, readRankLog, startAgent } from "./testing/agent-harness";

/**
 * Our --inprocess-restart agent with the PyTorch example's in-process variant
 * (examples/pytorch/train_inprocess.py), which talks to it through HyperPod's own Python IPC client
 * (hyperpod_elastic_agent.ipc, from the installed hyperpod-elastic-agent 1.1.3): the wire is HyperPod's.
 * Two agents × one rank, real torch.distributed (gloo): rank 1 crashes, rank 0 keeps its process and its
 * model, the new rank 1 takes model and optimizer state from rank 0 over the process group.
 */

let dir = "";
let python = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-agent-ipr-torch-"));
  python = (await ensureHyperPodAgent()).python;
}, 20 * 60_000);

afterEach(async () => {
  await cleanupAgents();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function torchAgent(node: number): Promise<AgentHandle> {
  return startAgent({
    args: [
      "--server-port=0",
      "--server-host=127.0.0.1",
      "--nproc-per-node=1",
      "--inprocess-restart",
      `--log-dir=${path.join(dir, String(node))}`,
      "--shutdown-timeout=5",
      "--no-python",
      python,
      path.join(REPO_ROOT, "examples/pytorch/train_inprocess.py"),
      "--steps=0",
      "--step-sleep=0.05",
      "--batch-size=32",
      "--hidden-dim=64",
      "--checkpoint-every=0",
      `--checkpoint-dir=${path.join(dir, "ckpt")}`,
      "--crash-at-step=20",
      "--crash-rank=1",
      "--peer-recovery",
    ],
    env: { INPROCESS_RESTART: "1" },
  });
}

const pids = (status: AgentStatus) => (status.ranks ?? []).map((rank) => rank.pid);

async function logMatching(input: {
  logDir: string;
  attempt: number;
  pattern: RegExp;
  also?: string;
}): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const log = await readRankLog({ ...input, localRank: 0, stream: "stdout" }).catch(() => "");
    if (input.pattern.test(log)) return log;
    if (Date.now() > deadline) {
      const other = input.also
        ? await readRankLog({ logDir: input.also, attempt: 0, localRank: 0, stream: "stdout" }).catch(
            () => "",
          )
        : "";
      throw new Error(`no ${input.pattern} in:\n${log.slice(-2000)}\nother:\n${other.slice(-1500)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("rebound-agent --inprocess-restart with HyperPod's Python IPC client (PyTorch)", () => {
  it("a crashed rank rejoins with its peer's model and optimizer; the healthy rank keeps its process", async () => {
    const port = await findFreePort();
    const agents = await Promise.all([torchAgent(0), torchAgent(1)]);
    const [a, b] = agents;
    if (!a || !b) throw new Error("agents did not start");
    const slow = { timeoutMs: 120_000, intervalMs: 200 };
    await Promise.all(agents.map((agent) => agent.waitFor((status) => status.status === "ready", slow)));
    const start = (agent: AgentHandle, rank: number, faultCount: number) =>
      agent.request({
        method: "POST",
        path: "/start",
        body: {
          rank,
          nnodes: 2,
          faultCount,
          master_addr: "127.0.0.1",
          master_port: port,
          rankIps: [
            { ip: "127.0.0.1", rank: 0 },
            { ip: "127.0.0.1", rank: 1 },
          ],
        },
      });
    await Promise.all([start(a, 0, 0), start(b, 1, 0)]);
    const before = await a.waitFor((status) => status.status === "running" && pids(status)[0] !== null, slow);
    await b.waitFor((status) => status.status === "faulted", slow);
    await Promise.all(agents.map((agent) => agent.request({ method: "POST", path: "/stop" })));
    const paused = await a.waitFor((status) => status.status === "ready", slow);
    expect(pids(paused.status)).toEqual(pids(before.status));
    await b.waitFor((status) => status.status === "ready", slow);
    await Promise.all([start(a, 0, 1), start(b, 1, 1)]);

    const restarted = await logMatching({
      also: path.join(dir, "0"),
      logDir: path.join(dir, "1"),
      attempt: 1,
      pattern: /state from peer rank=0 step=(\d+) rank=1[\s\S]*^step=\d+ /m,
    });
    const peerStep = Number(/state from peer rank=0 step=(\d+) rank=1/.exec(restarted)?.[1]);
    expect(peerStep).toBeGreaterThanOrEqual(19);
    expect(restarted).toMatch(new RegExp(`^step=${peerStep + 1} `, "m"));
    const kept = await logMatching({
      logDir: path.join(dir, "0"),
      attempt: 0,
      pattern: new RegExp(
        `run started rank=0 world_size=2 restart=1 step=${peerStep}[\\s\\S]*^step=${peerStep + 1} `,
        "m",
      ),
    });
    expect(kept).not.toMatch(/resuming from checkpoint at step [1-9]/);
    expect(pids(await a.status())).toEqual(pids(before.status));
  }, 300_000);
});
