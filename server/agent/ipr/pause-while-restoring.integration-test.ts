import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentStatus } from "@/server/domain/agent-api/protocol";
import { cleanupAgents, DEMO_TRAINER, readRankLog, startAgent } from "../testing/agent-harness";

/**
 * The cause of in-process recoveries stuck in "stopping" (bench:goodput, peer mode): a rank that gets
 * job_fault while it is still taking its state from a peer (past the barrier, its training loop not
 * started) must come back to the barrier once that is done. The demo trainer used to drop such a
 * job_fault: the rank then trained on and its agent waited for it at the barrier forever (no
 * --inprocess-timeout here, so nothing else ends the pause). The peer here accepts connections and never
 * answers, so the restore lasts the trainer's fetch timeout (5 s) and the /stop surely comes inside it.
 */

let dir = "";
let silent: Server | null = null;
const held: Socket[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-ipr-restore-"));
});

afterEach(async () => {
  await cleanupAgents();
  for (const socket of held.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
  silent = null;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A TCP server that takes connections and never writes: a peer that does not answer. */
async function silentPeer(): Promise<number> {
  const server = createServer((socket) => {
    held.push(socket);
  });
  silent = server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

const pids = (status: AgentStatus) => (status.ranks ?? []).map((rank) => rank.pid);

describe("in-process pause while a rank restores its state", () => {
  it("brings the restoring rank back to the barrier: READY with the same process", async () => {
    const port = await silentPeer();
    const logDir = path.join(dir, "logs");
    const agent = await startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        "--nproc-per-node=1",
        "--inprocess-restart",
        `--log-dir=${logDir}`,
        "--shutdown-timeout=5",
        DEMO_TRAINER,
        "--step-ms=50",
        "--peer-recovery",
        `--checkpoint-dir=${path.join(dir, "ckpt")}`,
      ],
      env: { INPROCESS_RESTART: "1" },
    });
    const ready = await agent.waitFor((status) => status.status === "ready");
    const started = await agent.request({
      method: "POST",
      path: "/start",
      body: {
        rank: 0,
        nnodes: 2,
        faultCount: 0,
        master_addr: "127.0.0.1",
        master_port: 29500,
        rankIps: [
          { ip: "127.0.0.1", rank: 0 },
          { ip: "127.0.0.1", rank: 1 },
        ],
        ipVersion: "v0",
        worker_data: [{ rank: 1, group_rank: 1, local_rank: 0, data: JSON.stringify({ peer_port: port }) }],
      },
    });
    expect(started.status).toBe(200);
    // The rank is now asking the silent peer for its state; pause it meanwhile.
    await agent.waitFor((status) => status.status === "running");
    expect((await agent.request({ method: "POST", path: "/stop" })).status).toBe(200);

    const paused = await agent.waitFor((status) => status.status === "ready", { timeoutMs: 20_000 });
    expect(pids(paused.status)).toEqual(pids(ready.status));
    const log = await readRankLog({ logDir, attempt: 0, localRank: 0, stream: "stdout" });
    expect(log).toMatch(/no peer answered: state from the checkpoint rank=0/);
    expect(log).toMatch(/job_fault: back to the barrier at step 0 rank=0/);
    expect(log).not.toMatch(/^step=/m);
  }, 60_000);
});
