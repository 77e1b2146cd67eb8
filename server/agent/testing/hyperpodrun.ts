import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdirSync } from "node:fs";
import path from "node:path";
import { findFreePort } from "@/server/http/free-port";
import { createAgentClient } from "@/server/operator/agent-client";
import type { HyperPodAgent } from "@/test/hyperpod-agent";
import { agentProcessEnv, spawnEnv } from "../env";
import { signalGroupOnly } from "../process-group";

/**
 * AWS's unmodified `hyperpodrun` (test/hyperpod-agent.ts installs it) started for a test: one node, one
 * local rank, its output teed to `<dir>/logs` (where its log agent reads rank 0's stdout.log), its own
 * temporary files under `<dir>` (log agent log, IPC socket). Ready once /status answers `ready`.
 * `killHyperPodRuns()` SIGKILLs every one started here (its workers run in their own session and must
 * end themselves when their agent is gone).
 */

export type HyperPodRun = { url: string; output(): string };

/** hyperpodrun 1.1.3 makes this folder at start (hard-coded; it writes the rank → IP table there). */
const RESOURCE_CONFIG_DIR = "/opt/ml/input/config";
const READY_TIMEOUT_MS = 90_000;
const OUTPUT_TAIL = 20_000;

const live = new Set<ChildProcess>();
const client = createAgentClient({ timeoutMs: 5000 });

/** Fails with one line when hyperpodrun could not make its resource folder (it would exit at start). */
export function checkResourceConfigDir(): void {
  try {
    mkdirSync(RESOURCE_CONFIG_DIR, { recursive: true });
    accessSync(RESOURCE_CONFIG_DIR, constants.W_OK);
  } catch {
    throw new Error(`hyperpodrun needs a writable ${RESOURCE_CONFIG_DIR}: run the test as root or create it`);
  }
}

async function waitReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`hyperpodrun exited with ${child.exitCode}:\n${output()}`);
    const status = await client.status(url);
    if (status.ok && status.value.status === "ready") return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`hyperpodrun was not ready after ${READY_TIMEOUT_MS} ms:\n${output()}`);
}

export async function startHyperPodRun(input: {
  agent: HyperPodAgent;
  dir: string;
  script: string;
  args: readonly string[];
}): Promise<HyperPodRun> {
  const port = await findFreePort();
  const child = spawn(
    input.agent.hyperpodrun,
    [
      "--nnodes=1",
      "--nproc-per-node=1",
      "--server-host=127.0.0.1",
      `--server-port=${port}`,
      "--tee=3",
      `--log_dir=${path.join(input.dir, "logs")}`,
      input.script,
      ...input.args,
    ],
    {
      env: spawnEnv({ ...agentProcessEnv(), NNODES: "1", TMPDIR: input.dir }),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  live.add(child);
  let text = "";
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString("utf8")).slice(-OUTPUT_TAIL);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, () => text);
  return { url, output: () => text };
}

export async function killHyperPodRuns(): Promise<void> {
  const running = [...live].filter(
    (child) => child.pid !== undefined && child.exitCode === null && child.signalCode === null,
  );
  live.clear();
  await Promise.all(
    running.map((child) => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.pid !== undefined) signalGroupOnly(child.pid, "SIGKILL");
      return exited;
    }),
  );
}
