import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAgent } from "@/scripts/lib/agent-build";
import { cleanupAgents, readRankLog, startAgent } from "./testing/agent-harness";

/**
 * The bundled agent (dist/agent/main.mjs, what the image runs through REBOUND_AGENT_BUNDLE) does what the
 * agent from source does: it listens, takes /start, runs the ranks to the end and keeps their output. The
 * start time of each (spawn to listening) is printed for the record (docs/configuration.md quotes it).
 */

const SCRIPT = 'import os\nprint("rank", os.environ["RANK"], "of", os.environ["WORLD_SIZE"], flush=True)\n';

let dir = "";
let bundle = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "rebound-agent-bundle-"));
  await writeFile(path.join(dir, "hello.py"), SCRIPT);
  bundle = await buildAgent();
}, 60_000);

afterAll(async () => {
  await cleanupAgents();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function runOnce(name: string, env: Record<string, string>) {
  const logDir = path.join(dir, name);
  const startedAt = performance.now();
  const agent = await startAgent({
    args: [
      "--server-port=0",
      "--server-host=127.0.0.1",
      "--nproc-per-node=2",
      `--log-dir=${logDir}`,
      "hello.py",
    ],
    env,
    cwd: dir,
  });
  const listeningMs = Math.round(performance.now() - startedAt);
  const start = await agent.request({
    method: "POST",
    path: "/start",
    body: { rank: 0, nnodes: 1, faultCount: 0, master_addr: "127.0.0.1", master_port: 29500 },
  });
  expect(start.status).toBe(200);
  const done = await agent.waitFor((status) => status.status === "completed", { timeoutMs: 30_000 });
  const output = await readRankLog({ logDir, attempt: 0, localRank: 1, stream: "stdout" });
  return { listeningMs, status: done.status.status, output };
}

describe("the bundled agent", () => {
  it("runs ranks to the end as the agent from source does, and starts sooner", async () => {
    const fromSource = await runOnce("source", {});
    const bundled = await runOnce("bundle", { REBOUND_AGENT_BUNDLE: bundle });
    expect(bundled.status).toBe("completed");
    expect(bundled.output).toContain("rank 1 of 2");
    expect(bundled.output).toBe(fromSource.output);
    console.log(
      `agent start to listening: from source (tsx) ${fromSource.listeningMs} ms, bundled ${bundled.listeningMs} ms`,
    );
  }, 90_000);
});
